import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Test mode only (LAUNCHPAD_ENV=test with LAUNCHPAD_TEST_KILL_POINTS): kills this process
 * with SIGKILL right after `step`, once per agent and step (a marker file in the data dir
 * lets the restarted worker pass the same point), to prove the saga resumes after a crash.
 */
export function maybeKill(p: {
  points: string[];
  dataDir: string;
  agentId: string;
  step: string;
}): void {
  if (!p.points.includes(p.step) && !p.points.includes("all")) return;
  const dir = join(p.dataDir, "test-kills");
  const marker = join(dir, `${p.agentId}.${p.step}`);
  if (existsSync(marker)) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(marker, String(Date.now()));
  process.kill(process.pid, "SIGKILL");
}
