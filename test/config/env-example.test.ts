import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES } from "../../lib/config.ts";

const ROOT = join(import.meta.dirname, "..", "..");
/** Where the product reads its environment (tests and scripts may read their own). */
const SOURCES = ["api", "jobs", "lib", "src", "services", "devnet", "cli", "web", "bin"];
const FILES = ["ponder.config.ts"];

/**
 * Read by the product but deliberately not in `.env.example`: hand-overs between our own
 * processes and hooks only the test suite sets. Each with why; keep this list short.
 */
const INTERNAL: Record<string, string> = {
  DEVNET_RECORD: "set by the CLI for its children from the devnet's deployment record",
  LAUNCHPAD_TEST_ANVIL_SHED_BYTES:
    "a test's knob on the devnet's anvil (state-file shedding); no operator sets it",
  LAUNCHPAD_TEST_ANVIL_HISTORY:
    "a test's knob on the devnet's anvil (past states kept); no operator sets it",
};

/** What a line of code reads from the environment or the parsed configuration. */
const READS = [
  // process.env.X, process.env["X"], env.X / env?.X on an environment object
  /\benv\??\.([A-Z][A-Z0-9_]+)\b/g,
  /\benv\[["'`]([A-Z][A-Z0-9_]+)["'`]\]/g,
  // the parsed configuration (lib/config.ts): config.X, and `e.X` inside loadConfig
  /\b(?:config|e)\??\.([A-Z][A-Z0-9_]+)\b/g,
  // variables handed to a child as object keys: the contract addresses of the devnet record
  /\b([A-Z][A-Z0-9_]*_ADDRESS)\??:/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|js)$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

/** Every variable the product reads, with the first file that reads it. */
function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  for (const v of CONFIG_VARIABLES) found.set(v, "lib/config.ts (schema)");
  const files = [
    ...SOURCES.flatMap((d) => sourceFiles(join(ROOT, d))),
    ...FILES.map((f) => join(ROOT, f)),
  ];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const re of READS)
      for (const m of text.matchAll(re)) {
        const name = m[1] as string;
        if (!found.has(name)) found.set(name, relative(ROOT, file));
      }
  }
  return found;
}

/** Variables `.env.example` documents: a `NAME=` line, commented out or not. */
function documented(): Set<string> {
  const text = readFileSync(join(ROOT, ".env.example"), "utf8");
  return new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1] as string));
}

describe(".env.example", () => {
  it("documents every variable the code reads", () => {
    const docs = documented();
    const missing = [...variablesRead()]
      .filter(([name]) => !docs.has(name) && !(name in INTERNAL))
      .map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });

  it("documents nothing the code no longer reads, and lists no internal variable", () => {
    const read = variablesRead();
    const stale = [...documented()].filter((name) => !read.has(name));
    expect(stale).toEqual([]);
    expect(Object.keys(INTERNAL).filter((name) => documented().has(name))).toEqual([]);
    expect(Object.keys(INTERNAL).filter((name) => !read.has(name))).toEqual([]);
  });
});
