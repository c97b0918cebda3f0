import { readdir, readFile, readlink } from "node:fs/promises";
import { createServer } from "node:net";

/** Asks the OS for a free TCP port on `host` (the port may be taken again before use). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port assigned"));
      });
    });
  });
}

const LISTEN_PORTS = { from: 20_000, to: 32_000 };
/** Ports this process already handed out: they are free until their server binds them. */
const handedOut = new Set<number>();

/**
 * Narrows the range `freeListenPort` draws from, so that processes picking ports side by
 * side (test workers) draw from disjoint slices and cannot pick the same unbound port.
 */
export function useListenPortRange(from: number, to: number): { from: number; to: number } {
  if (!(20_000 <= from && from < to && to <= 32_000)) {
    throw new RangeError(`bad port range ${from}-${to}`);
  }
  const before = { ...LISTEN_PORTS };
  LISTEN_PORTS.from = from;
  LISTEN_PORTS.to = to;
  return before;
}

/**
 * A free TCP port below Linux's ephemeral range (32768 and up), for a server that is bound
 * later or again after a restart: a port from `freePort` is an ephemeral one, which any
 * outgoing connection of the machine may take as its own local port in between. A port is
 * handed out once per process: several picked before any is bound never collide.
 */
export async function freeListenPort(host = "127.0.0.1"): Promise<number> {
  const span = LISTEN_PORTS.to - LISTEN_PORTS.from;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LISTEN_PORTS.from + Math.floor(Math.random() * span);
    if (handedOut.has(port) || !(await isPortFree(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  return freePort(host);
}

/** True when nothing listens on `host:port` (binding it succeeds). */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

const TCP_STATES: Record<string, string> = {
  "01": "ESTABLISHED",
  "02": "SYN_SENT",
  "03": "SYN_RECV",
  "04": "FIN_WAIT1",
  "05": "FIN_WAIT2",
  "06": "TIME_WAIT",
  "07": "CLOSE",
  "08": "CLOSE_WAIT",
  "09": "LAST_ACK",
  "0A": "LISTEN",
  "0B": "CLOSING",
};

/** A TCP socket on a local port: its state, and its process where this user may see it. */
export type PortSocket = { state: string; pid?: number; cmdline?: string };

/**
 * The sockets on local TCP `port` (Linux /proc; elsewhere none), each with its state and, where
 * this user may read the process's fds, its pid and command line.
 */
export async function portSockets(port: number): Promise<PortSocket[]> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const sockets: { inode: string; state: string }[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(file, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.split(":")[1] !== hex) continue;
      sockets.push({ inode: f[9] ?? "0", state: TCP_STATES[f[3] ?? ""] ?? `state ${f[3]}` });
    }
  }
  if (sockets.length === 0) return [];
  const owners = await socketOwners(new Set(sockets.map((s) => s.inode).filter((i) => i !== "0")));
  return sockets.map((s) => ({ state: s.state, ...owners.get(s.inode) }));
}

/**
 * Who holds local TCP `port`, in words, for an "already in use" error (empty when nobody is
 * seen: the port was held for a moment only).
 *
 * @example
 * throw new Error(`port ${port} is already in use${await portHolders(port)}`);
 */
export async function portHolders(port: number): Promise<string> {
  const sockets = await portSockets(port);
  if (sockets.length === 0) return "";
  const parts = sockets.map((s) =>
    s.pid ? `${s.state} by pid ${s.pid}: ${s.cmdline?.slice(0, 160)}` : `${s.state} (no process)`,
  );
  return ` (${[...new Set(parts)].join("; ")})`;
}

/** Socket inode → its process, for the processes whose fds this user may read. */
async function socketOwners(
  inodes: Set<string>,
): Promise<Map<string, { pid: number; cmdline: string }>> {
  const owners = new Map<string, { pid: number; cmdline: string }>();
  if (inodes.size === 0) return owners;
  const pids = (await readdir("/proc").catch(() => [])).filter((d) => /^\d+$/.test(d));
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (!inode || !inodes.has(inode) || owners.has(inode)) continue;
      const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      owners.set(inode, { pid: Number(pid), cmdline: cmd.split("\0").join(" ").trim() });
    }
  }
  return owners;
}
