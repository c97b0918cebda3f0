import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgresJs from "postgres";
import { afterAll, expect, it } from "vitest";
import { postgresUser, startEmbeddedPostgres } from "./embedded.ts";

const dataDir = mkdtempSync(join(tmpdir(), "embedded-pg-"));
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
  rmSync(dataDir, { recursive: true, force: true });
});

it("starts again over a lock file whose postmaster is a zombie (a hard kill where nothing reaps)", async () => {
  const first = await startEmbeddedPostgres({ dataDir });
  const owner = process.getuid?.() === 0 ? await postgresUser() : {};
  await first.stop();
  // What a SIGKILL of the supervisor leaves where init never reaps: postmaster.pid naming a
  // process that is a zombie (kill(pid, 0) succeeds on it, so Postgres itself refuses).
  // The zombie must be the cluster owner's, as the postmaster was: Postgres takes EPERM from
  // kill(pid, 0) for "gone", so a zombie of another user would not stop it.
  const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 60"], owner);
  cleanup.push(() => parent.kill("SIGKILL"));
  const [line] = (await once(parent.stdout, "data")) as [Buffer];
  const pid = Number(line.toString().trim());
  await new Promise((r) => setTimeout(r, 200)); // `sleep 0` has exited: a zombie now
  writeFileSync(
    join(dataDir, "postgres", "postmaster.pid"),
    `${pid}\n${join(dataDir, "postgres")}\n1700000000\n${first.port}\n\n127.0.0.1\n  0  0\nready\n`,
  );

  const again = await startEmbeddedPostgres({ dataDir });
  cleanup.push(() => again.stop());
  const sql = postgresJs(again.url, { max: 1 });
  cleanup.push(() => sql.end());
  expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
}, 120_000);
