import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { processRuns } from "./pidfile.ts";

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

/**
 * A zombie: a child of a shell that has since exec'd `sleep`, which never waits, killed by us.
 * The child is killed only once the exec is seen: a shell still running may reap it first
 * (dash does when the child exits before the exec, which a loaded machine made happen).
 */
async function zombie(): Promise<{ pid: number; parent: ReturnType<typeof spawn> }> {
  const parent = spawn("sh", ["-c", "sleep 60 & echo $!; exec sleep 30"]);
  children.push(parent);
  const [line] = (await once(parent.stdout, "data")) as [Buffer];
  const pid = Number(line.toString().trim());
  await until(() => readFileSync(`/proc/${parent.pid}/cmdline`, "utf8") === "sleep\u000030\u0000");
  process.kill(pid, "SIGKILL");
  await until(() => !processRuns(pid));
  return { pid, parent };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
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
