import { readFileSync } from "node:fs";

/** Clock ticks a second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** Which role a process of the stack is, from its command line; undefined: not ours to count. */
export function roleOf(pid: number): string | undefined {
  // The load generator itself: its CPU competes with the stack's on the same cores.
  if (pid === process.pid) return "harness (load generator)";
  let cmd: string[];
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
  if (cmd.some((a) => a.endsWith("/anvil"))) return "anvil";
  if (cmd.some((a) => a.includes("postgres"))) return "postgres";
  if (cmd.some((a) => a.endsWith("ponder.js"))) return "indexer";
  if (!cmd.some((a) => a.endsWith("launchpad.js"))) return undefined;
  const last = cmd.at(-1) ?? "?";
  return last === "start" ? "supervisor" : last;
}

export type ProcSample = {
  at: number;
  /** CPU ticks used so far, per process (its role and ticks). */
  cpuTicks: Map<number, { role: string; ticks: number }>;
  rssKb: Record<string, number>;
};

/** CPU ticks used so far per process and resident memory now per role, over `pids`. */
export function sampleRoles(pids: number[]): ProcSample {
  const cpuTicks = new Map<number, { role: string; ticks: number }>();
  const rssKb: Record<string, number> = {};
  for (const pid of pids) {
    const role = roleOf(pid);
    if (!role) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command name.
      cpuTicks.set(pid, { role, ticks: Number(f[11]) + Number(f[12]) });
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      rssKb[role] = (rssKb[role] ?? 0) + Number(rss ?? 0);
    } catch {} // gone between the listing and the read
  }
  return { at: Date.now(), cpuTicks, rssKb };
}

/**
 * Per role between two samples: cores used (1 = one core busy) and the later RSS in MB. Summed
 * per process: a process started in between counts from zero, and one gone by the later sample
 * (a Postgres backend that disconnected) loses only its last interval, instead of taking all
 * its ticks off its role's sum.
 */
export function roleUse(a: ProcSample, b: ProcSample) {
  const seconds = (b.at - a.at) / 1000;
  const ticks: Record<string, number> = {};
  for (const [pid, now] of b.cpuTicks) {
    const before = a.cpuTicks.get(pid)?.ticks ?? 0;
    ticks[now.role] = (ticks[now.role] ?? 0) + Math.max(0, now.ticks - before);
  }
  const out: Record<string, { cores: number; rssMb: number }> = {};
  for (const [role, t] of Object.entries(ticks)) {
    out[role] = {
      cores: Math.round((t / TICKS / Math.max(seconds, 0.001)) * 100) / 100,
      rssMb: Math.round((b.rssKb[role] ?? 0) / 1024),
    };
  }
  return out;
}
