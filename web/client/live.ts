// A WebSocket client of the API's bridge (AGENT.md "WebSocket"): subscribes to channels, keeps
// the last cursor of each, and on a reconnect resumes with `since` so nothing is missed or
// doubled. Backoff 1 s, 2 s, 4 s … up to 30 s, as AGENT.md asks.

export type ServerMessage = {
  type: string;
  channel: string | null;
  data: unknown;
  cursor?: string;
};
type Handler = (m: ServerMessage) => void;
type Sub = { channel: string; id?: string; handler: Handler; cursor?: string };

const BACKOFF_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

/** Opens the socket now and keeps it open; `subscribe` may be called at any time. */
export function live(url: string, onState?: (connected: boolean) => void) {
  const subs = new Map<string, Sub>();
  let socket: WebSocket | null = null;
  let delay = BACKOFF_MS;

  const send = (s: Sub) => {
    if (socket?.readyState !== WebSocket.OPEN) return;
    socket.send(
      JSON.stringify({
        type: "subscribe",
        channel: s.channel,
        ...(s.id ? { id: s.id } : {}),
        ...(s.cursor ? { since: s.cursor } : {}),
      }),
    );
  };

  const connect = () => {
    socket = new WebSocket(url);
    socket.onopen = () => {
      delay = BACKOFF_MS;
      onState?.(true);
      for (const s of subs.values()) send(s);
    };
    socket.onmessage = (ev) => {
      let m: ServerMessage;
      try {
        m = JSON.parse(String(ev.data)) as ServerMessage;
      } catch {
        return;
      }
      if (!m.channel) return;
      const s = subs.get(m.channel);
      if (!s) return;
      if (m.cursor) s.cursor = m.cursor;
      if (m.type === "error" && (m.data as { code?: string })?.code === "replay_too_long") {
        // Too much was missed: start again from the present (the page shows a reload hint).
        s.cursor = undefined;
        send(s);
      }
      s.handler(m);
    };
    socket.onclose = () => {
      onState?.(false);
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, BACKOFF_MAX_MS);
    };
  };
  connect();

  return {
    /** Messages of `channel.id` reach `handler`; the key is the joined name the server sends. */
    subscribe(channel: string, id: string | undefined, handler: Handler) {
      const key = id ? `${channel}.${id.toLowerCase()}` : channel;
      const s: Sub = { channel, id, handler };
      subs.set(key, s);
      send(s);
    },
  };
}

/** Refreshes every `<time data-relative>` on the page (relative times age). */
export function tickRelativeTimes(format: (iso: string) => string): void {
  setInterval(() => {
    for (const el of document.querySelectorAll<HTMLTimeElement>("time[data-relative]")) {
      el.textContent = format(el.dateTime);
    }
  }, 10_000);
}

/** The JSON the server put in `<script id="page-data">`. */
export function pageData<T>(): T {
  return JSON.parse(document.getElementById("page-data")?.textContent ?? "{}") as T;
}

/**
 * `fn` run one at a time: a call while it runs asks for one more run after it, however many
 * calls come meanwhile (a panel redrawn from REST after pushes that arrive in bursts).
 *
 * @example
 * const refresh = coalesced(async () => { panel.outerHTML = render(await read()); });
 */
export function coalesced(fn: () => Promise<void>): () => void {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = fn()
      .catch(() => {})
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}
