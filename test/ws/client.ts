import WebSocket from "ws";

/** A server message of the bridge. */
// biome-ignore lint/suspicious/noExplicitAny: tests read deep into `data` and assert on it
export type WsMessage = { type: string; channel: string | null; data: any; cursor: string | null };

/**
 * A real `ws` client that records every message and its close, for assertions.
 *
 * @example
 * const c = await WsClient.open("ws://127.0.0.1:3001/ws");
 * c.send({ type: "subscribe", channel: "factory" });
 * await c.waitFor((m) => m.type === "subscribed");
 */
export class WsClient {
  readonly messages: WsMessage[] = [];
  closed: { code: number; reason: string } | undefined;
  readonly ws: WebSocket;
  private readonly closing: Promise<{ code: number; reason: string }>;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (d) => this.messages.push(JSON.parse(d.toString()) as WsMessage));
    this.closing = new Promise((r) =>
      ws.on("close", (code, reason) => {
        this.closed = { code, reason: reason.toString() };
        r(this.closed);
      }),
    );
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const c = new WsClient(ws);
      ws.once("open", () => resolve(c));
      ws.once("error", reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** Messages of `type` (on `channel`, if given). */
  of(type: string, channel?: string): WsMessage[] {
    return this.messages.filter((m) => m.type === type && (!channel || m.channel === channel));
  }

  /** Resolves with the first message matching `pred`, waiting for it if needed. */
  async waitFor(pred: (m: WsMessage) => boolean, what = "a message", timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = this.messages.find(pred);
      if (m) return m;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${what}; got ${JSON.stringify(this.messages.slice(-5))}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Waits until `count()` reaches `n`. */
  async waitCount(count: () => number, n: number, what: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (count() < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} ${what}, got ${count()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Sends and waits for the next message (the answer). */
  async request(message: unknown, timeoutMs = 10_000): Promise<WsMessage> {
    const before = this.messages.length;
    this.send(message);
    await this.waitFor(() => this.messages.length > before, "an answer", timeoutMs);
    return this.messages[before] as WsMessage;
  }

  waitClose(timeoutMs = 20_000): Promise<{ code: number; reason: string }> {
    return Promise.race([
      this.closing,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("socket did not close")), timeoutMs),
      ),
    ]);
  }

  close(): void {
    this.ws.terminate();
  }
}
