import { readFileSync } from "node:fs";

/**
 * A process's resident memory in bytes (VmRSS from /proc: Linux only); undefined elsewhere or
 * once the process is gone.
 */
export function residentBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
