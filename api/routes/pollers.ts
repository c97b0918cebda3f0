import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Sql } from "../../lib/db/client.ts";
import { POLLERS } from "../../lib/pollers/state.ts";
import { pollerStatus } from "../../lib/pollers/status.ts";
import type { AppEnv } from "../env.ts";
import { COMMON_ERRORS, IsoTime, jsonResponse, okEnvelope } from "../schemas.ts";

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
      }),
    ),
  })
  .openapi("PollersStatus");

const route = createRoute({
  method: "get",
  path: "/v2/pollers/status",
  tags: ["discovery"],
  summary: "How fresh the off-chain sources are: perps venue, Safe queue, social",
  responses: {
    200: jsonResponse("Each poller's last success and lag", okEnvelope(PollersStatus)),
    ...COMMON_ERRORS,
  },
});

/**
 * `GET /v2/pollers/status`, the off-chain sibling of `/v2/indexer/status`. Error texts stay
 * with operators (`launchpad pollers status`): they may name internal endpoints.
 *
 * @example
 * registerPollers(app, { sql });
 */
export function registerPollers(app: OpenAPIHono<AppEnv>, d: { sql: Sql }) {
  app.openapi(route, async (c) => {
    const status = await pollerStatus(d.sql);
    const pollers = status.map(({ failing, ...s }) => ({ ...s, failing: failing.length }));
    return c.json({ ok: true as const, data: { pollers } }, 200);
  });
}
