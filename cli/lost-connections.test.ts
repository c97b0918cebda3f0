import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// A role's process with surviveLostConnections: a rejection nobody awaited that carries a lost
// connection's code is logged and the process carries on; any other still ends it (exit 1).
const lifecycle = join(import.meta.dirname, "lifecycle.ts");
const logger = join(import.meta.dirname, "..", "lib", "logger.ts");

function run(reason: string) {
  const script = `
    import { surviveLostConnections } from ${JSON.stringify(lifecycle)};
    import { createLogger } from ${JSON.stringify(logger)};
    surviveLostConnections(createLogger("test", "warn"));
    Promise.reject(${reason});
    setTimeout(() => { console.log("still running"); process.exit(0); }, 200);`;
  return spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
}

describe("surviveLostConnections", () => {
  it("carries on past a lost connection nobody awaited (ECONNRESET, a Postgres restart's 57P01)", () => {
    for (const reason of [
      `Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })`,
      `Object.assign(new Error("terminating connection"), { code: "57P01" })`,
    ]) {
      const r = run(reason);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain("still running");
      expect(r.stdout).toContain("a lost connection no code awaited");
    }
  });

  it("still ends the process on any other unhandled rejection", () => {
    const r = run(`new TypeError("a bug")`);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain("still running");
    expect(r.stderr).toContain("TypeError: a bug");
  });
});
