import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Abi, Hex } from "viem";
import { writeJsonAtomic } from "../lib/json-file.ts";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const execFileAsync = promisify(execFile);
const CHILD = join(here, "compile-child.ts");

/** Directory holding our Solidity sources. */
export const SOURCES_DIR = join(here, "src");
/** Cache directory (gitignored). */
export const OUT_DIR = join(here, "out");
/**
 * The build shipped in the repository (`npm run contracts:build` writes it): a fresh clone starts
 * without running solc (about 10 s of CPU). Used only while its key matches the sources, the
 * compiler and the settings; `contracts/compile.test.ts` proves it equals a fresh compile.
 */
export const SHIPPED_BUILD = join(here, "build.json");

/** Compiler settings; part of the cache key. `evmVersion` is explicit: solc 0.8.37 defaults to osaka. */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: {
    "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
  },
} as const;

export type Artifact = {
  abi: Abi;
  /** Creation bytecode. */
  bytecode: Hex;
  /** Runtime bytecode (what anvil_setCode installs). */
  deployedBytecode: Hex;
};

export type Artifacts = Record<string, Artifact>;

export type LoadArtifactsParameters = {
  /** Recompile even when the cache matches. */
  force?: boolean;
  /** Tests: other sources than `contracts/src`, another shipped build and cache directory. */
  sources?: Record<string, string>;
  shippedPath?: string;
  outDir?: string;
  log?: (msg: string) => void;
};

/** `solcLongVersion`: what a block explorer's verification asks for (`0.8.37+commit.…`). */
type CacheFile = { key: string; solc: string; solcLongVersion: string; contracts: Artifacts };

/** What one run of solc gives: the artifacts and the compiler's full version. */
export type Build = { solcLongVersion: string; contracts: Artifacts };

/**
 * Compiles `contracts/src/**\/*.sol` (or reads the cache in `contracts/out/`) and returns abi and
 * bytecode per contract name.
 *
 * @example
 * const { TokenManager2 } = await loadArtifacts();
 * await wallet.deployContract({ abi: TokenManager2.abi, bytecode: TokenManager2.bytecode, args });
 */
export async function loadArtifacts(p: LoadArtifactsParameters = {}): Promise<Artifacts> {
  return (await loadBuild(p)).contracts;
}

/**
 * `loadArtifacts` with the compiler's full version, for verification inputs
 * (contracts/deploy/verify-input.ts).
 */
export async function loadBuild(p: LoadArtifactsParameters = {}): Promise<Build> {
  const sources = p.sources ?? readSources();
  const solcVersion = readPackageVersion("solc");
  const key = cacheKey(sources, solcVersion);
  const cachePath = join(p.outDir ?? OUT_DIR, "artifacts.json");
  if (!p.force) {
    for (const path of [p.shippedPath ?? SHIPPED_BUILD, cachePath]) {
      const cached = readCacheFile(path);
      if (cached?.key === key) return cached;
    }
  }
  // Two loads at once in one process (the devnet's two chains) share one compile.
  let build = compiling.get(key);
  if (!build || p.force) {
    build = compileAndCache(sources, key, solcVersion, cachePath, p.log);
    compiling.set(key, build);
    build.finally(() => compiling.delete(key)).catch(() => undefined);
  }
  return build;
}

const compiling = new Map<string, Promise<Build>>();

async function compileAndCache(
  sources: Record<string, string>,
  key: string,
  solcVersion: string,
  cachePath: string,
  log?: (msg: string) => void,
): Promise<Build> {
  const started = Date.now();
  const build = await compile(sources);
  log?.(`compiled ${Object.keys(sources).length} sources in ${Date.now() - started} ms`);
  writeCacheFile(cachePath, { key, solc: solcVersion, ...build });
  return build;
}

/**
 * Compiles the sources afresh and writes the shipped build (`npm run contracts:build`): run it
 * after changing a contract, with `contracts/gen-abis.ts`.
 */
export async function writeShippedBuild(path: string = SHIPPED_BUILD): Promise<void> {
  const sources = readSources();
  const solcVersion = readPackageVersion("solc");
  const build = await compile(sources);
  writeCacheFile(path, { key: cacheKey(sources, solcVersion), solc: solcVersion, ...build });
}

function readCacheFile(path: string): CacheFile | undefined {
  if (!existsSync(path)) return;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as CacheFile;
  } catch {
    // A torn or stale cache file is simply rebuilt.
    return;
  }
}

function writeCacheFile(path: string, file: CacheFile): void {
  // Whole or not at all: a parallel reader never sees half a file.
  writeJsonAtomic(path, file);
}

/** Loads one artifact by contract name; throws when it does not exist. */
export async function loadArtifact(name: string): Promise<Artifact> {
  const all = await loadArtifacts();
  const artifact = all[name];
  if (!artifact) throw new Error(`no compiled contract named ${name}`);
  return artifact;
}

/** Our Solidity sources, keyed by their path under `contracts/src/` (solc's source unit names). */
export function readSources(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".sol"))
        out[relative(SOURCES_DIR, path)] = readFileSync(path, "utf8");
    }
  };
  walk(SOURCES_DIR);
  return out;
}

function cacheKey(sources: Record<string, string>, solcVersion: string): string {
  const hash = createHash("sha256");
  // The cache file's shape: a file of an older shape is rebuilt, not read.
  hash.update("cache v2: solcLongVersion");
  hash.update(JSON.stringify(SOLC_SETTINGS));
  hash.update(`solc@${solcVersion} oz@${readPackageVersion("@openzeppelin/contracts")}`);
  for (const name of Object.keys(sources).sort()) hash.update(`\0${name}\0${sources[name]}`);
  return hash.digest("hex");
}

function readPackageVersion(pkg: string): string {
  const json = JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8"));
  return String(json.version);
}

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
};

/**
 * Compiles in a child process (contracts/compile-child.ts). solc-js is a WASM compiler whose heap
 * (~350 MB) a process keeps once it ran: in the supervisor of a fresh clone's `npm start`, which
 * compiles before it deploys, it stayed at 260 MB for the life of the stack instead of 100.
 */
async function compile(sources: Record<string, string>): Promise<Build> {
  mkdirSync(OUT_DIR, { recursive: true });
  const input = join(OUT_DIR, `sources.${process.pid}.json`);
  const out = join(OUT_DIR, `compiled.${process.pid}.json`);
  try {
    // The very sources the cache key was made from.
    writeFileSync(input, JSON.stringify(sources));
    await execFileAsync(process.execPath, [CHILD, input, out], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stderr?: string }) => {
      throw new Error("solc compilation failed", {
        cause: new Error(error.stderr?.trim() || String(error)),
      });
    });
    return JSON.parse(readFileSync(out, "utf8")) as Build;
  } finally {
    rmSync(input, { force: true });
    rmSync(out, { force: true });
  }
}

/** Runs solc-js on `sources` in this process (the child's half of `compile`). */
export async function compileSources(sources: Record<string, string>): Promise<Build> {
  const solc = (await import("solc")).default;
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, { content: v }])),
    settings: SOLC_SETTINGS,
  };
  return { solcLongVersion: solc.version(), contracts: compileStandardJson(solc, input, sources) };
}

/** Compiles a standard JSON input with a loaded solc-js; artifacts of `own` sources only. */
export function compileStandardJson(
  solc: { compile(input: string, callbacks: object): string },
  input: object,
  own: Record<string, unknown>,
): Artifacts {
  const findImports = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), "utf8") };
    } catch {
      return { error: `import not found: ${path}` };
    }
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), { import: findImports }),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error("solc compilation failed", {
      cause: new Error(errors.map((e) => e.formattedMessage).join("\n")),
    });
  }
  const artifacts: Artifacts = {};
  for (const [file, byName] of Object.entries(output.contracts ?? {})) {
    // Only contracts defined in our own sources, not OpenZeppelin's.
    if (!(file in own)) continue;
    for (const [name, c] of Object.entries(byName)) {
      if (c.evm.bytecode.object.length === 0) continue; // interfaces and abstract contracts
      artifacts[name] = {
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  return artifacts;
}

// `npx node contracts/compile.ts` compiles and prints the contract sizes.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const artifacts = await loadArtifacts({
    force: process.argv.includes("--force"),
    log: console.log,
  });
  for (const [name, a] of Object.entries(artifacts)) {
    console.log(`${name.padEnd(24)} runtime ${(a.deployedBytecode.length - 2) / 2} bytes`);
  }
}
