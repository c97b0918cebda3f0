import type { WebSocket } from "ws";
import type { Sql } from "../../lib/db/client.ts";
import { isMissingRelation } from "../../lib/db/views.ts";
import type { Logger } from "../../lib/logger.ts";
import { countWsSocket } from "../../lib/metrics/ws.ts";
import { WS_LIMITS } from "../limits.ts";
import { message, type ResolvedChannel, replay, resolveChannel, STREAM_OF } from "./channels.ts";
import { decodeCursor, encodeCursor, type Position } from "./cursor.ts";
import { Hub, type Subscription } from "./hub.ts";
import {
  type ClientMessage,
  parseClientMessage,
  splitChannel,
  type WsErrorCode,
} from "./protocol.ts";

export type ConnectionDeps = { sql: Sql; schema: string; hub: Hub; log: Logger };

/** Close codes the bridge uses (RFC 6455 section 7.4.1). */
export const CLOSE = { goingAway: 1001, policy: 1008, tryAgainLater: 1013 } as const;

/**
 * One client socket: parses its messages one at a time, holds its subscriptions, and applies
 * its limits (bad-message flood, subscription count, send buffer).
 */
export class Connection {
  readonly subs = new Map<string, Subscription>();
  alive = true;
  private bad: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private closing = false;

  readonly ws: WebSocket;
  private readonly d: ConnectionDeps;

  constructor(ws: WebSocket, d: ConnectionDeps) {
    this.ws = ws;
    this.d = d;
    ws.on("message", (data, isBinary) => this.receive(isBinary ? "" : data.toString()));
    ws.on("pong", () => {
      this.alive = true;
    });
    countWsSocket(1);
    ws.on("close", () => {
      countWsSocket(-1);
      this.dropAll();
    });
  }

  /** Sends one message, cutting the socket once its unsent buffer passes the limit. */
  send = (data: string | Buffer): void => {
    if (this.closing || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(data, { binary: false });
    if (this.ws.bufferedAmount > WS_LIMITS.maxBufferedBytes) {
      this.close(CLOSE.tryAgainLater, "slow consumer: send buffer full");
    }
  };

  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.dropAll();
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), WS_LIMITS.closeGraceMs).unref();
  }

  private receive(text: string): void {
    // Messages are handled in order; a client that outruns the database is refused, not queued.
    if (this.queued >= WS_LIMITS.maxSubscriptionsPerSocket) {
      this.error("limit_exceeded", null, "too many messages in flight; wait for the answers");
      return;
    }
    this.queued++;
    this.queue = this.queue
      .then(() => this.handle(text))
      .catch((error: unknown) => {
        this.d.log.warn({ err: error }, "websocket message failed");
        this.send(message("error", null, { code: "internal_error", message: "try again" }, null));
      })
      .finally(() => {
        this.queued--;
      });
  }

  private async handle(text: string): Promise<void> {
    if (this.closing) return;
    const m = parseClientMessage(text);
    if (typeof m === "string") return this.error("malformed", null, m);
    if (m.type === "ping") return this.send(message("pong", null, null, null));
    const { kind, id } = splitChannel(m.channel, m.id);
    if (!kind) {
      return this.error(
        "unknown_channel",
        m.channel,
        "channel is one of launch, token, factory, agent",
      );
    }
    if (m.type === "unsubscribe") return this.unsubscribe(kind, id);
    if (this.subs.size >= WS_LIMITS.maxSubscriptionsPerSocket) {
      const max = WS_LIMITS.maxSubscriptionsPerSocket;
      return this.error("limit_exceeded", m.channel, `at most ${max} subscriptions per socket`);
    }
    let resolved: ResolvedChannel | string;
    try {
      resolved = await resolveChannel(this.d.sql, this.d.schema, kind, id);
    } catch (error) {
      if (!isMissingRelation(error)) throw error;
      return this.error("unavailable", m.channel, "the chain index is not published yet", false);
    }
    if (typeof resolved === "string") return this.error("unknown_id", m.channel, resolved);
    await this.subscribe(resolved, m);
  }

  private async subscribe(c: ResolvedChannel, m: Extract<ClientMessage, { type: "subscribe" }>) {
    const stream = STREAM_OF[c.kind];
    let since: Position | undefined;
    if (m.since !== undefined) {
      const d = decodeCursor(m.since);
      // A launchCreated cursor may start a launch channel: its events from the launch's block on.
      if (d?.stream === stream) since = d.position;
      else if (d?.stream === "launch" && c.kind === "launch") since = [d.position[0], -1n];
      else
        return this.error(
          "bad_cursor",
          c.name,
          "since must be a cursor of this channel's messages",
        );
    }
    const old = this.subs.get(c.name);
    if (old) this.d.hub.remove(old);
    const present = this.d.hub.present(stream);
    const sub: Subscription = {
      receiver: this,
      channel: c,
      lastSent: since ?? present,
      pending: since ? [] : undefined,
    };
    this.subs.set(c.name, sub);
    this.d.hub.add(sub);
    const start = since ?? present ?? [0n, -1n];
    if (!since) return this.send(message("subscribed", c.name, null, encodeCursor(stream, start)));
    const items = await replay(this.d.sql, this.d.schema, c, since, WS_LIMITS.maxReplay + 1).catch(
      (error: unknown) => {
        this.drop(c.name);
        throw error;
      },
    );
    if (items.length > WS_LIMITS.maxReplay) {
      this.drop(c.name);
      const text = `more than ${WS_LIMITS.maxReplay} messages to replay: page the REST endpoint, then subscribe without since`;
      return this.error("replay_too_long", c.name, text, false);
    }
    this.send(
      message("subscribed", c.name, { replayed: items.length }, encodeCursor(stream, start)),
    );
    sub.pending = [...items, ...(sub.pending ?? [])];
    Hub.flush(sub);
  }

  private unsubscribe(kind: ResolvedChannel["kind"], id: string | undefined) {
    const lower = id?.toLowerCase();
    const match = [...this.subs.values()].find((s) => {
      if (s.channel.kind !== kind) return false;
      if (kind === "factory") return true;
      if (kind === "launch") return s.channel.launchId === lower || s.channel.route === lower;
      return s.channel.name === `${kind}.${lower}`;
    });
    const name = match?.channel.name ?? (lower ? `${kind}.${lower}` : kind);
    if (match) this.drop(match.channel.name);
    this.send(message("unsubscribed", name, null, null));
  }

  private drop(name: string) {
    const sub = this.subs.get(name);
    if (sub) this.d.hub.remove(sub);
    this.subs.delete(name);
  }

  private dropAll() {
    for (const name of [...this.subs.keys()]) this.drop(name);
  }

  /** Answers with an `error`; a client's mistakes count toward the flood limit. */
  private error(code: WsErrorCode, channel: string | null, text: string, counts = true): void {
    this.send(message("error", channel, { code, message: text }, null));
    if (!counts) return;
    const now = Date.now();
    this.bad = this.bad.filter((t) => t > now - 60_000);
    this.bad.push(now);
    if (this.bad.length > WS_LIMITS.maxBadMessagesPerMinute) {
      this.close(CLOSE.policy, "too many bad messages");
    }
  }
}
