import { z } from "zod";
import { CHANNEL_KINDS } from "./channels.ts";

/** Error codes of `error` messages (docs/websocket.md). */
export type WsErrorCode =
  | "malformed"
  | "unknown_channel"
  | "unknown_id"
  | "bad_cursor"
  | "limit_exceeded"
  | "replay_too_long"
  | "unavailable"
  | "internal_error";

const Channel = z.string().min(1).max(80);
const Id = z.union([z.string().max(80), z.number().int().nonnegative()]).transform(String);

const Subscribe = z.object({
  type: z.literal("subscribe"),
  channel: Channel,
  id: Id.optional(),
  since: z.string().max(96).optional(),
});
const Unsubscribe = z.object({
  type: z.literal("unsubscribe"),
  channel: Channel,
  id: Id.optional(),
});
const Ping = z.object({ type: z.literal("ping") });

export const ClientMessage = z.discriminatedUnion("type", [Subscribe, Unsubscribe, Ping]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/**
 * The kind and id a client named: `{channel: "token", id}` or the joined form a server
 * message carries (`{channel: "token.0x…"}`), so a client may echo a channel name back.
 */
export function splitChannel(channel: string, id: string | undefined) {
  const dot = channel.indexOf(".");
  const [kind, joined] =
    dot < 0 ? [channel, undefined] : [channel.slice(0, dot), channel.slice(dot + 1)];
  const known = (CHANNEL_KINDS as readonly string[]).includes(kind);
  return { kind: known ? (kind as (typeof CHANNEL_KINDS)[number]) : undefined, id: id ?? joined };
}

/** Parses one client frame; a string says what is wrong with it. */
export function parseClientMessage(text: string): ClientMessage | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  const r = ClientMessage.safeParse(json);
  if (r.success) return r.data;
  return r.error.issues.map((i) => `${i.path.join(".") || "(message)"}: ${i.message}`).join("; ");
}
