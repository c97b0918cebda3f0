// A share of `bench:ws`'s client sockets in a process of its own, driven by scripts/bench-ws.ts
// over IPC, so that parsing every copy is spread over several processes and the clients are not
// what bounds the figures. A trade's tx hash carries the time it was committed (its first 16 hex
// digits: microseconds since the epoch), so each receipt's latency is known here without a
// message from the driver; every process reads the same clock.
import WebSocket from "ws";

export type ClientCommand =
  | { type: "open"; ports: number[]; first: number; count: number; subscribe?: string }
  | { type: "expect"; perSocket: number; timeoutMs: number }
  | { type: "close" };

export type ClientReply =
  | { type: "opened" }
  | { type: "expecting" }
  | { type: "done"; latencies: number[]; received: number; last: number }
  | { type: "closed" }
  | { type: "failed"; error: string };

/** Milliseconds since the epoch, sub-millisecond, comparable between processes. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** A tx hash stamped with now (see the file's comment). */
export const stampedTx = () =>
  `0x${Math.round(epochMs() * 1000)
    .toString(16)
    .padStart(
      16,
      "0",
    )}${Array.from({ length: 48 }, () => Math.floor(Math.random() * 16).toString(16)).join("")}`;

const reply = (m: ClientReply) => process.send?.(m);
let sockets: WebSocket[] = [];
let phase: { want: number; latencies: number[]; received: number; last: number } | undefined;
let finish: (() => void) | undefined;

function onMessage(d: WebSocket.RawData) {
  const at = epochMs();
  const text = d.toString();
  const i = text.indexOf('"txHash":"0x');
  if (i < 0 || !phase) return;
  const sent = Number.parseInt(text.slice(i + 12, i + 28), 16) / 1000;
  phase.latencies.push(at - sent);
  phase.received++;
  phase.last = at;
  if (phase.received >= phase.want) finish?.();
}

async function open(c: Extract<ClientCommand, { type: "open" }>) {
  for (let i = 0; i < c.count; i += 200) {
    const batch = Array.from({ length: Math.min(200, c.count - i) }, (_, k) => c.first + i + k);
    const opened = await Promise.all(
      batch.map(
        (k) =>
          new Promise<WebSocket>((resolve, reject) => {
            // Its own address each, so the API's per-IP socket limit does not apply.
            const ip = `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
            const port = c.ports[k % c.ports.length];
            const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, {
              headers: { "x-forwarded-for": ip },
            });
            ws.once("error", reject);
            ws.once("open", () => {
              if (!c.subscribe) return resolve(ws);
              ws.once("message", (d) => {
                const m = JSON.parse(d.toString()) as { type: string };
                if (m.type === "subscribed") resolve(ws);
                else reject(new Error(`subscribe answered ${d.toString()}`));
              });
              ws.send(JSON.stringify({ type: "subscribe", channel: "token", id: c.subscribe }));
            });
          }),
      ),
    );
    sockets.push(...opened);
  }
  for (const ws of sockets) ws.on("message", onMessage);
}

async function expect(c: Extract<ClientCommand, { type: "expect" }>) {
  phase = { want: c.perSocket * sockets.length, latencies: [], received: 0, last: 0 };
  const p = phase;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
    if (p.want === 0) resolve();
    setTimeout(resolve, c.timeoutMs).unref();
  });
  reply({ type: "expecting" });
  await done;
  phase = undefined;
  reply({ type: "done", latencies: p.latencies, received: p.received, last: p.last });
}

process.on("disconnect", () => process.exit(0));
process.on("message", (c: ClientCommand) => {
  const run = async () => {
    if (c.type === "open") {
      await open(c);
      reply({ type: "opened" });
    } else if (c.type === "expect") await expect(c);
    else {
      for (const ws of sockets) ws.terminate();
      sockets = [];
      reply({ type: "closed" });
    }
  };
  run().catch((error: unknown) => reply({ type: "failed", error: String(error) }));
});
