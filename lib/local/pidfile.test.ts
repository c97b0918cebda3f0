import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, expect, it } from "vitest";
import { processRuns } from "./pidfile.ts";

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

/** A zombie: `sleep 0` exits under a parent (`sleep 30` after exec) that never waits for it. */
async function zombie(): Promise<{ pid: number; parent: ReturnType<typeof spawn> }> {
  const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"]);
  children.push(parent);
  const [line] = (await once(parent.stdout, "data")) as [Buffer];
  const pid = Number(line.toString().trim());
  for (let i = 0; i < 100; i++) {
    if (!processRuns(pid)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { pid, parent };
}

it("counts a zombie as not running, though kill(pid, 0) still succeeds on it", async () => {
  const { pid } = await zombie();
  expect(() => process.kill(pid, 0)).not.toThrow();
  expect(processRuns(pid)).toBe(false);
});

it("counts a live process as running and a gone one as not", async () => {
  const child = spawn("sleep", ["30"]);
  children.push(child);
  expect(processRuns(child.pid as number)).toBe(true);
  child.kill("SIGKILL");
  await once(child, "exit");
  expect(processRuns(child.pid as number)).toBe(false);
});
