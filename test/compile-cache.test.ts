import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.ts";

// tier: component
// The CLI's compile cache (bin/launchpad.js) is used on every start, and a module edited since is
// compiled afresh, never run from a stale cache entry (same size, same modification time).

const dir = mkdtempSync(join(tmpdir(), "compile-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cacheFiles = (d: string): string[] =>
  existsSync(d)
    ? readdirSync(d, { recursive: true, encoding: "utf8" }).filter((f) =>
        statSync(join(d, f)).isFile(),
      )
    : [];

describe("the compile cache", () => {
  it("is filled by the CLI's first run, and not with NODE_DISABLE_COMPILE_CACHE=1", () => {
    const run = (tmp: string, extra: Record<string, string> = {}) =>
      execFileSync(process.execPath, [join(ROOT, "bin", "launchpad.js"), "--help"], {
        env: { PATH: process.env.PATH, TMPDIR: tmp, ...extra },
        encoding: "utf8",
      });
    const on = join(dir, "on");
    const off = join(dir, "off");
    for (const d of [on, off]) execFileSync("mkdir", ["-p", d]);
    expect(run(on)).toContain("Usage: launchpad");
    expect(cacheFiles(join(on, "node-compile-cache")).length).toBeGreaterThan(10);
    expect(run(off, { NODE_DISABLE_COMPILE_CACHE: "1" })).toContain("Usage: launchpad");
    expect(cacheFiles(join(off, "node-compile-cache"))).toEqual([]);
  });

  it("runs an edited module's new code, not the cached compile of the old", () => {
    const cache = join(dir, "cache");
    const mod = join(dir, "value.ts");
    const main = join(dir, "main.mjs");
    writeFileSync(
      main,
      `const { enableCompileCache } = await import("node:module");
enableCompileCache(${JSON.stringify(cache)});
const { value } = await import(${JSON.stringify(mod)});
console.log(value());`,
    );
    const write = (n: number) => {
      writeFileSync(mod, `export const value = (): number => ${n};\n`);
      utimesSync(mod, 1_700_000_000, 1_700_000_000); // the edit keeps size and mtime
    };
    const run = () => execFileSync(process.execPath, [main], { encoding: "utf8" }).trim();
    write(1);
    expect(run()).toBe("1");
    expect(run()).toBe("1"); // from the cache now
    expect(cacheFiles(cache).length).toBeGreaterThan(0);
    write(2);
    expect(run()).toBe("2");
  });
});
