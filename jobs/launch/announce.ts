import type { Config } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { insertAgentEvents } from "../../lib/events/store.ts";
import type { Logger } from "../../lib/logger.ts";
import { createXClient, type XClient } from "../../services/x/client.ts";
import { resolveX } from "../../services/x/config.ts";
import { X_USERNAME } from "../../services/x/protocol.ts";
import type { SagaRow } from "./row.ts";

/** The service account that posts launch announcements, and where agent pages live. */
export type Announcer = { x: XClient; token: string; webUrl: string };

/** The `agent_events` source of announcements; with `launch:<agentId>` its idempotency key. */
export const ANNOUNCE_SOURCE = "launch-announcer";

/**
 * The announcer of a configuration: X (or its stand-in) and the service account's token;
 * undefined when X or the token is not configured (then launches are not announced).
 *
 * @example
 * const announcer = announcerFromConfig(config);
 */
export function announcerFromConfig(config: Config): Announcer | undefined {
  const x = resolveX(config);
  if (!x?.postToken) return undefined;
  return {
    x: createXClient({ apiUrl: x.apiUrl, timeoutMs: config.UPSTREAM_TIMEOUT_MS }),
    token: x.postToken,
    webUrl: config.WEB_URL.replace(/\/$/, ""),
  };
}

/**
 * Posts the joint announcement of a launched agent with its patron (`patronX` of the
 * request; a signed-in patron is named by their current handle) and records `tweet.posted`.
 * Best effort: every failure is logged and swallowed, a launch never fails for it. Runs once
 * per saga success; a post already recorded is not repeated.
 *
 * @example
 * await announceLaunch(ctx, announcer, saga);
 */
export async function announceLaunch(ctx: { sql: Sql; log: Logger }, a: Announcer, saga: SagaRow) {
  const log = ctx.log.child({ agentId: saga.agent_id });
  try {
    const handle = saga.request.patronX?.trim().replace(/^@/, "");
    if (!handle) return;
    if (!X_USERNAME.test(handle)) {
      log.warn({ handle }, "patronX is not an X handle; no announcement");
      return;
    }
    const sourceEventId = `launch:${saga.agent_id}`;
    const [done] = await ctx.sql`select 1 from app.agent_events
      where source = ${ANNOUNCE_SOURCE} and source_event_id = ${sourceEventId}`;
    if (done) return;
    const [patron] = await ctx.sql<{ x_handle: string; x_id: string }[]>`
      select x_handle, x_id from app.patrons where lower(x_handle) = lower(${handle})
      order by updated_at desc limit 1`;
    const r = saga.request;
    const page = `${a.webUrl}/agent/${saga.token_address}`;
    const text = `${r.name} ($${r.ticker}) just launched its own token, backed by @${patron?.x_handle ?? handle}. ${page}`;
    const post = await a.x.post(a.token, text.slice(0, 280));
    await insertAgentEvents({
      sql: ctx.sql,
      events: [
        {
          agentId: saga.agent_id,
          eventType: "tweet.posted",
          category: "market",
          source: ANNOUNCE_SOURCE,
          sourceEventId,
          occurredAt: new Date(),
          data: {
            tweetId: post.id,
            text: post.text,
            kind: "launch_announcement",
            patronHandle: patron?.x_handle ?? handle,
            patronXId: patron?.x_id ?? null,
            patronSignedIn: Boolean(patron),
            tokenAddress: saga.token_address,
          },
        },
      ],
    });
    log.info({ tweetId: post.id }, "launch announced");
  } catch (error) {
    log.warn({ err: error }, "launch announcement failed; the launch stands");
  }
}
