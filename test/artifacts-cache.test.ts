import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadArtifacts, OUT_DIR } from "../contracts/compile.ts";

// tier: component
// The compiled contracts' cache (contracts/out/artifacts.json) is used only for the sources it
// was compiled from: a cache left by other sources (another key) is recompiled, never deployed.
// The cache is what a start uses once the shipped build (contracts/build.json) no longer matches
// the sources: the loads below leave the shipped build out (contracts/compile.test.ts tests it).
const noShipped = join(OUT_DIR, "no-shipped-build.json");

const cachePath = join(OUT_DIR, "artifacts.json");
type CacheFile = { key: string; solc: string; contracts: Record<string, { bytecode: string }> };
const read = () => JSON.parse(readFileSync(cachePath, "utf8")) as CacheFile;

describe("the contracts' compile cache", () => {
  it("rebuilds a cache made from other sources instead of using it", async () => {
    // A fresh clone has no cache yet (every start reads the shipped build): this makes it.
    const fresh = await loadArtifacts({ shippedPath: noShipped });
    const good = read();
    expect(Object.keys(good.contracts).length).toBeGreaterThan(5);
    // What sources that changed since leave behind: another key, other bytecode.
    const stale: CacheFile = {
      ...good,
      key: `${good.key.slice(0, -8)}00000000`,
      contracts: Object.fromEntries(
        Object.entries(good.contracts).map(([name, a]) => [name, { ...a, bytecode: "0xdead" }]),
      ),
    };
    const tmp = `${cachePath}.stale-test.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(stale));
    renameSync(tmp, cachePath); // as the cache itself writes: a reader never sees half a file
    const logs: string[] = [];
    const rebuilt = await loadArtifacts({ shippedPath: noShipped, log: (l) => logs.push(l) });
    expect(logs.join("\n")).toMatch(/compiled \d+ sources/);
    for (const [name, a] of Object.entries(rebuilt)) {
      expect(a.bytecode, name).not.toBe("0xdead");
      expect(a.bytecode, name).toBe(fresh[name]?.bytecode);
    }
    expect(read().key).toBe(good.key);
    // And the rebuilt cache is used as it is: no second compile.
    const again: string[] = [];
    await loadArtifacts({ shippedPath: noShipped, log: (l) => again.push(l) });
    expect(again).toEqual([]);
  }, 300_000);
});
