import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { POLLERS } from "../../lib/pollers/state.ts";
import { pollerStatus } from "../../lib/pollers/status.ts";
import type { AppEnv } from "../env.ts";
import { dataResponses, IsoTime } from "../http/schemas.ts";

export const PollersStatus = z
  .object({
    pollers: z.array(
      z.object({
        poller: z.enum(POLLERS),
        targets: z.number().int().openapi({ description: "Accounts, Safes or handles polled" }),
        oldestSuccessAt: IsoTime.nullable().openapi({
          description: "The stalest target's last successful poll (null: one never succeeded)",
        }),
        newestSuccessAt: IsoTime.nullable(),
        lagSeconds: z.number().int().nullable().openapi({
          description: "Seconds since `oldestSuccessAt`: how stale this source may be",
        }),
        failing: z.number().int().openapi({
          description: "Targets whose last poll failed (details: `launchpad pollers status`)",
        }),
        periodSeconds: z
          .object({ median: z.number().nullable(), max: z.number().nullable() })
          .openapi({
            description:
              "Effective period over the targets (seconds between a target's last two successful polls): the schedule's tick, or longer when the venue's rate budget defers polls",
          }),
        budget: z
          .object({
            venue: z.string(),
            limit: z.number().int().openapi({ description: "Weight allowed per window" }),
            windowSeconds: z.number(),
            used: z.number().int().openapi({ description: "Weight spent in the last window" }),
            blockedUntil: IsoTime.nullable().openapi({
              description: "Set while the poller backs off after the venue answered 429",
            }),
            rateLimited: z.number().int().openapi({ description: "429s from the venue, ever" }),
            lastRateLimitedAt: IsoTime.nullable(),
            deferred: z.number().int().openapi({
              description: "Polls put off for want of budget or during a back-off, ever",
            }),
          })
          .nullable()
          .openapi({ description: "The venue's shared rate budget (perps), null for others" }),
        pace: z.array(
          z.object({
            agentId: z.string(),
            target: z.string(),
            lastSuccessAt: IsoTime.nullable(),
            periodSeconds: z.number().nullable().openapi({
              description: "Seconds between its last two successful polls (null: fewer than two)",
            }),
            fullReadAgeSeconds: z.number().nullable().openapi({
              description: "Perps: seconds since its fills and ledger were last read",
            }),
            deferrals: z.number().int().openapi({
              description: "Polls deferred since its last success (rate budget, back-off)",
            }),
          }),
        ),
      }),
    ),
  })
  .openapi("PollersStatus");

const route = createRoute({
  method: "get",
  path: "/v2/pollers/status",
  tags: ["discovery"],
  summary: "How fresh the off-chain sources are: perps venue, Safe queue, social",
  responses: dataResponses(
    "Each poller's last success, lag, effective period per target and rate budget",
    PollersStatus,
  ),
});

/**
 * `GET /v2/pollers/status`, the off-chain sibling of `/v2/indexer/status`. Error texts stay
 * with operators (`launchpad pollers status`): they may name internal endpoints.
 */
export function registerPollers(app: OpenAPIHono<AppEnv>, d: { sql: Sql }) {
  app.openapi(route, async (c) => {
    const status = await pollerStatus(d.sql);
    const pollers = status.map(({ failing, ...s }) => ({ ...s, failing: failing.length }));
    return c.json({ ok: true as const, data: { pollers } }, 200);
  });
}
