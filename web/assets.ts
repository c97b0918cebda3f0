import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

// The browser islands (web/client/*.ts) bundled by esbuild when the role starts, with
// lightweight-charts from node_modules: nothing comes from a CDN. The bundle is cached on
// disk under the data directory, keyed by a hash of every input, so a restart with unchanged
// sources serves the cached files without building.

const WEB_DIR = import.meta.dirname;
const ROOT = join(WEB_DIR, "..");
/** Entry points: one script per page that needs one. */
export const ENTRIES = ["agent", "launch", "home", "portfolio"] as const;
export type Entry = (typeof ENTRIES)[number];

/** One served file: content-hashed name, bytes, type. */
export type Asset = { name: string; body: Buffer; type: string; gzipBytes: number };
export type Assets = {
  /** URL path (`/assets/<name>`) of an entry's script or of the stylesheet. */
  script: (entry: Entry) => string;
  style: string;
  byName: Map<string, Asset>;
  /** Whether this start built the bundle (false: served from the cache). */
  built: boolean;
};

function sourceFiles(): string[] {
  const files = [join(WEB_DIR, "style.css")];
  for (const f of readdirSync(WEB_DIR, { recursive: true }) as string[]) {
    if (f.endsWith(".ts") && !f.endsWith(".test.ts")) files.push(join(WEB_DIR, f));
  }
  files.push(join(ROOT, "node_modules", "lightweight-charts", "package.json"));
  files.push(join(ROOT, "node_modules", "esbuild", "package.json"));
  return files.sort();
}

function inputHash(): string {
  const h = createHash("sha256");
  for (const f of sourceFiles()) {
    h.update(relative(ROOT, f));
    h.update(readFileSync(f));
  }
  return h.digest("hex").slice(0, 16);
}

const short = (b: Buffer) => createHash("sha256").update(b).digest("hex").slice(0, 12);

/**
 * Builds (or loads from `<cacheDir>/web-build/<hash>/`) the islands and the stylesheet.
 *
 * @example
 * const assets = await loadAssets("/data"); assets.script("agent") // "/assets/agent.3f2a….js"
 */
export async function loadAssets(cacheDir: string): Promise<Assets> {
  const dir = join(cacheDir, "web-build", inputHash());
  let files: Record<string, Buffer>;
  let built = false;
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as string[];
    files = Object.fromEntries(manifest.map((n) => [n, readFileSync(join(dir, n))]));
  } catch {
    files = await bundle();
    mkdirSync(dir, { recursive: true });
    for (const [n, b] of Object.entries(files)) writeFileSync(join(dir, n), b);
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(Object.keys(files)));
    built = true;
  }
  const byName = new Map<string, Asset>();
  const names: Record<string, string> = {};
  for (const [logical, body] of Object.entries(files)) {
    const [base, ext] = logical.split(".") as [string, string];
    const name = `${base}.${short(body)}.${ext}`;
    names[logical] = name;
    byName.set(name, {
      name,
      body,
      type: ext === "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      gzipBytes: gzipSync(body).length,
    });
  }
  return {
    script: (entry) => `/assets/${names[`${entry}.js`]}`,
    style: `/assets/${names["style.css"]}`,
    byName,
    built,
  };
}

async function bundle(): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  const result = await build({
    entryPoints: ENTRIES.map((e) => join(WEB_DIR, "client", `${e}.ts`)),
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2020",
    write: false,
    outdir: "out",
    logLevel: "silent",
  });
  for (const f of result.outputFiles) {
    const name = f.path.split("/").pop() as string;
    out[name] = Buffer.from(f.contents);
  }
  out["style.css"] = readFileSync(join(WEB_DIR, "style.css"));
  return out;
}
