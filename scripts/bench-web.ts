// The web app's weight: builds the browser islands as `launchpad web` does (into a throwaway
// cache) and prints each page's JavaScript and the stylesheet, raw and gzipped, against the
// issue's ceiling for the agent page (300 KB gzipped). `npm run bench:web`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENTRIES, loadAssets } from "../web/assets.ts";

const CEILING_GZIP_BYTES = 300 * 1024;
const dir = mkdtempSync(join(tmpdir(), "bench-web-"));
const started = performance.now();
const assets = await loadAssets(dir);
const buildMs = performance.now() - started;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`build: ${buildMs.toFixed(0)} ms (esbuild, minified)`);
console.log("file                        raw        gzip");
const row = (label: string, path: string) => {
  const a = assets.byName.get(path.slice("/assets/".length));
  if (!a) throw new Error(`no asset ${path}`);
  console.log(
    `${label.padEnd(26)} ${kb(a.body.length).padStart(9)} ${kb(a.gzipBytes).padStart(10)}`,
  );
  return a.gzipBytes;
};
const agent = row("agent page JS", assets.script("agent"));
for (const e of ENTRIES.filter((x) => x !== "agent")) row(`${e} page JS`, assets.script(e));
row("stylesheet", assets.style);
console.log(
  `agent page JS gzipped: ${kb(agent)} of the ${kb(CEILING_GZIP_BYTES)} ceiling (${((agent / CEILING_GZIP_BYTES) * 100).toFixed(0)}%)`,
);
rmSync(dir, { recursive: true, force: true });
if (agent > CEILING_GZIP_BYTES) process.exitCode = 1;
