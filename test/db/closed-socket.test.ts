import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type StartEmbeddedPostgresReturnType,
  startEmbeddedPostgres,
} from "../../lib/local/postgres/embedded.ts";
import { ROOT } from "../helpers/cli.ts";

// postgres.js 3.4.9 dies of a write to a connection whose backend ended (upstream #1066, #1154,
// #1208); patches/postgres+3.4.9.patch carries the fix. The probe runs once with the driver as
// installed and once with a copy where the patch is taken back out, on a real Postgres.

const installed = join(ROOT, "node_modules", "postgres");
const patch = join(ROOT, "patches", "postgres+3.4.9.patch");
const dataDir = mkdtempSync(join(tmpdir(), "closed-socket-"));
const unpatched = join(mkdtempSync(join(tmpdir(), "postgres-unpatched-")), "postgres");
let pg: StartEmbeddedPostgresReturnType;

beforeAll(async () => {
  pg = await startEmbeddedPostgres({ dataDir });
  cpSync(installed, unpatched, { recursive: true });
  // The patch's paths start with a/node_modules/postgres/.
  execFileSync("git", ["apply", "-R", "-p3", patch], { cwd: unpatched });
});
afterAll(async () => {
  await pg?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(join(unpatched, ".."), { recursive: true, force: true });
});

function probe(driverDir: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, "closed-socket-probe.ts"), driverDir, pg.url],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  // A probe that neither dies nor finishes is a failure that says so, not a test timeout.
  const timer = setTimeout(() => {
    out += "\nprobe: no exit after 30 s (killed)";
    child.kill("SIGKILL");
  }, 30_000);
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

it("the installed driver carries the patch (npm install applied it)", () => {
  expect(readFileSync(join(installed, "src", "connection.js"), "utf8")).toContain("PR #1168");
  expect(readFileSync(join(installed, "cjs", "src", "connection.js"), "utf8")).toContain(
    "PR #1168",
  );
});

it("without the patch, a query on a connection whose backend ended kills the process", async () => {
  const { code, out } = await probe(unpatched);
  expect(code).not.toBe(0);
  expect(out).toContain("Cannot read properties of null (reading 'write')");
}, 60_000);

it("with the patch, those queries reject with CONNECTION_CLOSED and the pool answers again", async () => {
  const { code, out } = await probe(installed);
  expect({ code, out }).toMatchObject({ code: 0 });
  const result = JSON.parse(out.trim().split("\n").at(-1) as string);
  expect(result.reservedFirst).not.toBe("ok");
  expect(result.reservedSecond).toBe("CONNECTION_CLOSED");
  expect(result.transaction).not.toBe("ok");
  expect(result.after).toBe("ok");
}, 60_000);
