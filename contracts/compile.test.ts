import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBuild, SHIPPED_BUILD } from "./compile.ts";

// tier: component
// The build shipped in the repository is what a fresh compile of contracts/src gives (a contract
// changed without `npm run contracts:build` fails here), and it is never used for other sources.

const dir = mkdtempSync(join(tmpdir(), "compile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the shipped contract build", () => {
  it("equals a fresh compile of the sources", async () => {
    const shipped = JSON.parse(readFileSync(SHIPPED_BUILD, "utf8"));
    const fresh = await loadBuild({ force: true, outDir: join(dir, "fresh") });
    expect(shipped.contracts).toEqual(fresh.contracts);
    expect(shipped.solcLongVersion).toBe(fresh.solcLongVersion);
    // And a load without `force` takes it as it is: its key matches the sources.
    const logs: string[] = [];
    await loadBuild({ outDir: join(dir, "none"), log: (l) => logs.push(l) });
    expect(logs).toEqual([]);
  }, 120_000);

  it("is not used once the sources changed: they are compiled", async () => {
    const shippedCopy = join(dir, "shipped.json");
    copyFileSync(SHIPPED_BUILD, shippedCopy);
    const sources = {
      "Changed.sol":
        "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\ncontract Changed { function f() external pure returns (uint256) { return 7; } }\n",
    };
    const logs: string[] = [];
    const build = await loadBuild({
      sources,
      shippedPath: shippedCopy,
      outDir: join(dir, "changed"),
      log: (l) => logs.push(l),
    });
    expect(Object.keys(build.contracts)).toEqual(["Changed"]);
    expect(logs).toEqual([expect.stringMatching(/^compiled 1 sources/)]);
  }, 120_000);
});
