import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";

/**
 * Stops a process left running by an earlier supervisor that was killed hard (SIGKILL),
 * when the pid file names a live process whose command line contains `expect`: SIGINT, and
 * SIGKILL after `graceMs`. It returns once the process is gone, so its ports are free: a
 * SIGKILL takes effect a moment after it is sent, and a port checked in that moment is still
 * held (a CI run's next start found the devnet's port "already in use").
 */
export async function killStale(pidPath: string, expect: string, graceMs = 15_000): Promise<void> {
  const pid = Number.parseInt(await readFile(pidPath, "utf8").catch(() => ""), 10);
  if (!Number.isInteger(pid) || pid <= 0) return;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  if (cmdline.includes(expect)) await stopProcess(pid, expect, graceMs);
  await rm(pidPath, { force: true });
}

/**
 * SIGINT to `pid`, SIGKILL after `graceMs`; returns once it is gone (its ports free).
 *
 * @example
 * await stopProcess(anvilPid, "anvil");
 */
export async function stopProcess(pid: number, name: string, graceMs = 15_000): Promise<void> {
  try {
    process.kill(pid, "SIGINT");
  } catch {
    return; // already gone
  }
  if (await exited(pid, graceMs)) return;
  process.kill(pid, "SIGKILL");
  if (!(await exited(pid, 10_000))) throw new Error(`${name} (pid ${pid}) survived SIGKILL`);
}

/** Waits up to `ms` for `pid` to stop running; false if it still runs. */
async function exited(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processRuns(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * True while `pid` names a running process. A zombie does not run: where nothing reaps
 * orphans (a container whose init does not wait), a hard-killed process stays one for good,
 * and `kill(pid, 0)` still succeeds on it.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // runs, as another user
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state field follows the command name, which is in parentheses and may hold spaces.
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return true; // no /proc (not Linux): kill's answer stands
  }
}
