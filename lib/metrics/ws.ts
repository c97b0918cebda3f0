import { Counter, Gauge } from "prom-client";
import { registry } from "./registry.ts";

export const wsSockets = new Gauge({
  name: "launchpad_ws_sockets",
  help: "WebSocket connections open on this API process",
  registers: [registry],
});

export const wsSubscriptions = new Gauge({
  name: "launchpad_ws_subscriptions",
  help: "WebSocket subscriptions held on this API process, by channel kind (launch, token, factory, agent, trades)",
  labelNames: ["channel"] as const,
  registers: [registry],
});

export const wsMessages = new Counter({
  name: "launchpad_ws_messages_total",
  help: "Messages sent to WebSocket subscribers (live and replayed items), by channel kind",
  labelNames: ["channel"] as const,
  registers: [registry],
});

// One child per channel kind, looked up once: the fan-out calls this for every socket.
const sent = new Map<string, ReturnType<typeof wsMessages.labels>>();

/** One item delivered to one socket. */
export function countWsMessage(channel: string) {
  let child = sent.get(channel);
  if (!child) {
    child = wsMessages.labels(channel);
    sent.set(channel, child);
  }
  child.inc();
}

/** A socket opened (+1) or closed (-1). */
export function countWsSocket(delta: 1 | -1) {
  wsSockets.inc(delta);
}

/** A subscription added (+1) or removed (-1) on a channel kind. */
export function countWsSubscription(channel: string, delta: 1 | -1) {
  wsSubscriptions.inc({ channel }, delta);
}
