import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";

/**
 * Stops a process left running by an earlier supervisor that was killed hard (SIGKILL),
 * when the pid file names a live process whose command line contains `expect`.
 */
export async function killStale(pidPath: string, expect: string): Promise<void> {
  const pid = Number.parseInt(await readFile(pidPath, "utf8").catch(() => ""), 10);
  if (!Number.isInteger(pid) || pid <= 0) return;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  if (cmdline.includes(expect)) {
    process.kill(pid, "SIGINT");
    const deadline = Date.now() + 15_000;
    while (processRuns(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (processRuns(pid)) process.kill(pid, "SIGKILL");
  }
  await rm(pidPath, { force: true });
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
