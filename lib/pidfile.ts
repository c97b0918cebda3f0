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
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) process.kill(pid, "SIGKILL");
  }
  await rm(pidPath, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
