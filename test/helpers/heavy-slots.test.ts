import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { takeHeavySlot } from "./heavy-slots.ts";

// tier: unit
// The heavy slots that keep two heavy test files at once: a third taker waits for a release,
// and a slot whose holder died (a worker killed mid-file) is taken from it.

const dir = mkdtempSync(join(tmpdir(), "heavy-slots-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("gives out two slots, makes a third wait for a release, and frees a dead holder's", async () => {
  const a = await takeHeavySlot(dir, 2);
  const b = await takeHeavySlot(dir, 2);
  let third = false;
  const c = takeHeavySlot(dir, 2).then((release) => {
    third = true;
    return release;
  });
  await new Promise((r) => setTimeout(r, 600));
  expect(third).toBe(false);
  a();
  const releaseC = await c;
  expect(third).toBe(true);

  // A slot naming a process that has exited is free.
  const dead = spawnSync("true").pid as number;
  b();
  releaseC();
  writeFileSync(join(dir, "slot-0"), String(dead));
  writeFileSync(join(dir, "slot-1"), String(process.pid));
  const d = await takeHeavySlot(dir, 2);
  expect(readdirSync(dir).sort()).toEqual(["slot-0", "slot-1"]);
  d();
  expect(readdirSync(dir)).toEqual(["slot-1"]);
});
