import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { posix } from "node:path";
import { readSources, SOLC_SETTINGS } from "../compile.ts";
import type { PlannedContract } from "./service-set.ts";

const require = createRequire(import.meta.url);

/** What a block explorer (BscScan's "Standard JSON Input") needs to verify one contract. */
export type VerificationInput = {
  /** As explorers list it: `v0.8.37+commit.…`. */
  compilerVersion: string;
  /** `<source unit>:<contract>`. */
  contractName: string;
  address: string;
  /** ABI-encoded constructor arguments, hex without 0x. */
  constructorArguments: string;
  /** The exact input the artifacts were compiled from: every source unit, same names, same settings. */
  standardJsonInput: {
    language: "Solidity";
    sources: Record<string, { content: string }>;
    settings: typeof SOLC_SETTINGS;
  };
};

/**
 * The standard JSON input our artifacts come from: our sources and every file they import, under
 * the unit names solc resolved them to. Compiled again, it gives the deployed bytecode byte for
 * byte (contracts/deploy/verify-input.test.ts), which is what an explorer checks.
 */
export function standardJsonInput(): VerificationInput["standardJsonInput"] {
  const own = readSources();
  const sources: Record<string, { content: string }> = {};
  const visit = (unit: string, content: string) => {
    if (sources[unit]) return;
    sources[unit] = { content };
    for (const imported of importsOf(content)) {
      // solc names a relative import after the importing unit; any other path is a unit name.
      const name = imported.startsWith(".")
        ? posix.normalize(posix.join(posix.dirname(unit), imported))
        : imported;
      visit(name, own[name] ?? readFileSync(require.resolve(name), "utf8"));
    }
  };
  for (const [unit, content] of Object.entries(own)) visit(unit, content);
  return { language: "Solidity", sources, settings: SOLC_SETTINGS };
}

/** Import paths of a Solidity source (`import "x";`, `import {A} from "x";`, `import * as A from "x";`). */
function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/^\s*import\s+(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gm)) {
    if (m[1]) out.push(m[1]);
  }
  return out;
}

/**
 * The verification input of one planned contract.
 *
 * @example
 * const input = verificationInput(set.launchFactory, build.solcLongVersion, standardJsonInput());
 * writeFileSync("LaunchFactory.json", JSON.stringify(input));
 */
export function verificationInput(
  contract: PlannedContract,
  solcLongVersion: string,
  input: VerificationInput["standardJsonInput"],
): VerificationInput {
  const unit = Object.keys(input.sources).find((u) =>
    new RegExp(`\\bcontract\\s+${contract.name}\\b`).test(input.sources[u]?.content ?? ""),
  );
  if (!unit) throw new Error(`no source unit defines contract ${contract.name}`);
  return {
    compilerVersion: `v${solcLongVersion.replace(/\.Emscripten\.clang$/, "")}`,
    contractName: `${unit}:${contract.name}`,
    address: contract.address,
    constructorArguments: contract.constructorArgs.slice(2),
    standardJsonInput: input,
  };
}
