import type { Sql } from "../../lib/db/client.ts";
import { AGENT_EVENTS_CHANNEL } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { countWsMessage, countWsSubscription } from "../../lib/metrics/ws.ts";
import { PERPS_CHANGED_CHANNEL } from "../../lib/pollers/sources.ts";
import { type WatchMarker, watchMarker } from "../../lib/pollers/watched.ts";
import { WS_LIMITS } from "../limits.ts";
import { AgentTail } from "./agent-tail.ts";
import {
  ALL_ROUTES,
  agentMessage,
  chainMessage,
  message,
  type Outgoing,
  type ResolvedChannel,
  STREAM_OF,
  VIEW_STREAMS,
} from "./channels.ts";
import {
  comparePositions,
  encodeCursor,
  justBefore,
  type Position,
  type Stream,
} from "./cursor.ts";
import { Loop } from "./loop.ts";
import { type TailBatch, ViewTail } from "./view-tail.ts";

/** What the hub needs of a socket: a send that applies the socket's own limits. */
export type Receiver = { send: (data: string | Buffer) => void };

/** One socket's subscription to one channel. */
export type Subscription = {
  receiver: Receiver;
  channel: ResolvedChannel;
  /** Position of the last item sent; later items at or before it are the seam's duplicates. */
  lastSent?: Position;
  /** While a resume replays, live items wait here. */
  pending?: Outgoing[];
};

type Channel = { resolved: ResolvedChannel; subs: Set<Subscription> };

/**
 * The process's fan-out: tailers read Postgres (woken by NOTIFY, and on a timer), and
 * every item goes to the sockets of this process subscribed to its channel. No item is held
 * in memory beyond one read, so every process delivers the same stream.
 */
export class Hub {
  private readonly channels = new Map<string, Channel>();
  private readonly views: ViewTail[];
  private readonly agents: AgentTail;
  private timer: NodeJS.Timeout | undefined;
  private readonly chainLoop: Loop;
  private readonly agentLoop: Loop;
  private unlisten: (() => Promise<void>)[] = [];
  /** An agent channel with a subscriber marks its agent watched: the pollers refresh it first. */
  private readonly watch: WatchMarker;

  private readonly sql: Sql;
  private readonly schema: string;
  private readonly log: Logger;

  constructor(sql: Sql, schema: string, log: Logger) {
    this.sql = sql;
    this.schema = schema;
    this.log = log;
    this.watch = watchMarker(sql, (error) =>
      log.debug({ err: error }, "marking a watched agent failed"),
    );
    this.views = VIEW_STREAMS.map((s) => new ViewTail(sql, schema, s));
    this.agents = new AgentTail(sql);
    const failed = (error: unknown) =>
      this.log.warn({ err: error }, "websocket tail read failed; retrying on the next wake-up");
    this.chainLoop = new Loop(() => this.readChain(), failed);
    this.agentLoop = new Loop(() => this.readAgents(), failed);
  }

  async start(): Promise<void> {
    const chain = () => void this.chainLoop.wake();
    const agents = () => void this.agentLoop.wake();
    // Ponder notifies `<views schema>_live_query` when it commits a block, with the names of the
    // tables it changed (`[]`: none, as for every empty block: nothing to read); agent_events
    // notifies on every write. The timer covers a notification lost during a reconnect.
    const a = await this.sql.listen(
      `${this.schema}_live_query`,
      (tables) => {
        if (tables !== "[]") chain();
      },
      chain,
    );
    const b = await this.sql.listen(AGENT_EVENTS_CHANNEL, agents, agents);
    // The perps poller stored a poll (or a wallet changed): a signal, not an item.
    const c = await this.sql.listen(PERPS_CHANGED_CHANNEL, (agentId) => this.perpsChanged(agentId));
    this.unlisten.push(
      () => a.unlisten(),
      () => b.unlisten(),
      () => c.unlisten(),
    );
    this.timer = setInterval(() => {
      chain();
      agents();
      // Kept watched while subscribed (the marker writes at most once a minute per agent).
      for (const c of this.channels.values())
        if (c.resolved.kind === "agent") this.watch(c.resolved.route);
    }, WS_LIMITS.pollMs);
    await Promise.all([this.chainLoop.wake(), this.agentLoop.wake()]);
  }

  async stop(): Promise<void> {
    this.chainLoop.stop();
    this.agentLoop.stop();
    clearInterval(this.timer);
    await Promise.all(this.unlisten.map((u) => u().catch(() => {})));
  }

  /** The cursor of the present on a stream (what a subscription without `since` starts at). */
  present(stream: Stream): Position | undefined {
    return stream === "agent"
      ? this.agents.cursor
      : this.views.find((v) => v.spec.stream === stream)?.cursor;
  }

  add(sub: Subscription): void {
    const name = sub.channel.name;
    const c = this.channels.get(name) ?? { resolved: sub.channel, subs: new Set() };
    if (!c.subs.has(sub)) countWsSubscription(sub.channel.kind, 1);
    c.subs.add(sub);
    this.channels.set(name, c);
    if (sub.channel.kind === "agent") this.watch(sub.channel.route);
  }

  remove(sub: Subscription): void {
    const c = this.channels.get(sub.channel.name);
    if (!c) return;
    if (c.subs.delete(sub)) countWsSubscription(sub.channel.kind, -1);
    if (c.subs.size === 0) this.channels.delete(sub.channel.name);
  }

  /** Ends a resume: sends what arrived live meanwhile, minus what the replay already sent. */
  static flush(sub: Subscription): void {
    const pending = sub.pending ?? [];
    sub.pending = undefined;
    for (const m of pending) Hub.deliver(sub, m);
  }

  static deliver(sub: Subscription, m: Outgoing): void {
    if (sub.pending) {
      sub.pending.push(m);
      return;
    }
    if (!m.always && sub.lastSent && comparePositions(m.position, sub.lastSent) <= 0) return;
    if (!m.always) sub.lastSent = m.position;
    // Encoded once for every socket it goes to.
    m.bytes ??= Buffer.from(m.text);
    sub.receiver.send(m.bytes);
    countWsMessage(sub.channel.kind);
  }

  /** The chain views side by side; true when one read a full batch. */
  private async readChain(): Promise<boolean> {
    const batches = await Promise.all(this.views.map((t) => t.read()));
    batches.forEach((b, i) => {
      if (b) this.dispatchChain((this.views[i] as ViewTail).spec.stream, b);
    });
    return batches.some((b) => b?.more === true);
  }

  private async readAgents(): Promise<boolean> {
    const { added, more } = await this.agents.read();
    this.dispatchAgents(added);
    return more;
  }

  private channelsOf(stream: Stream): Channel[] {
    return [...this.channels.values()].filter((c) => STREAM_OF[c.resolved.kind] === stream);
  }

  private byRoute(stream: Stream): Map<string, Channel> {
    return new Map(this.channelsOf(stream).map((c) => [c.resolved.route, c]));
  }

  private dispatchChain(stream: Stream, batch: TailBatch): void {
    if (this.channels.size === 0) return;
    const routes = this.byRoute(stream);
    // An item goes to its own route's channel and to the channel of every route (`trades`).
    const all = routes.get(ALL_ROUTES);
    const targets = (route: string) => [routes.get(route), all].filter((c) => c !== undefined);
    for (const r of batch.removed) {
      for (const c of targets(r.route)) {
        const back = justBefore(r.position);
        const text = message("removed", c.resolved.name, r.ref, encodeCursor(stream, back));
        for (const sub of c.subs) Hub.deliver(sub, { position: back, text, always: true });
      }
    }
    if (batch.rewoundTo) {
      const to = batch.rewoundTo;
      for (const c of this.channelsOf(stream))
        for (const sub of c.subs)
          if (sub.lastSent && comparePositions(sub.lastSent, to) > 0) sub.lastSent = to;
    }
    for (const item of batch.added) {
      for (const c of targets(item.route)) {
        const m = chainMessage(c.resolved, item.row, item.position);
        if (m) for (const sub of c.subs) Hub.deliver(sub, m);
      }
    }
  }

  /**
   * Tells the agent's subscribers its perps account changed (`perps`, data `{agentId}`, no
   * cursor: nothing to replay, the client reads GET /v2/agents/{agent}/perps again).
   */
  private perpsChanged(agentId: string): void {
    const c = this.byRoute("agent").get(agentId);
    if (!c) return;
    const text = message("perps", c.resolved.name, { agentId }, null);
    const m: Outgoing = { position: [0n, 0n], text, always: true };
    for (const sub of c.subs) Hub.deliver(sub, m);
  }

  private dispatchAgents(added: Awaited<ReturnType<AgentTail["read"]>>["added"]): void {
    if (this.channels.size === 0 || added.length === 0) return;
    const routes = this.byRoute("agent");
    for (const { row, position } of added) {
      const c = routes.get(row.agentId);
      const m = c && agentMessage(c.resolved, row, position);
      if (c && m) for (const sub of c.subs) Hub.deliver(sub, m);
    }
  }
}
