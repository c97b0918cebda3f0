import { z } from "@hono/zod-openapi";
import { KNOWN_TYPES } from "../../lib/events/catalog.ts";
import { EVENT_CATEGORIES, EVENT_VISIBILITIES } from "../../lib/events/store.ts";
import { CursorQuery, IsoTime, oneOf } from "../http/schemas.ts";

export const AgentEventItem = z
  .object({
    id: z.string().openapi({ description: "Ingestion id (decimal string)" }),
    eventType: z.string().openapi({
      example: "pr.merged",
      description: `Known: ${KNOWN_TYPES.join(", ")}; others render generically`,
    }),
    category: z.enum(EVENT_CATEGORIES),
    source: z.string().openapi({ example: "code-host" }),
    sourceEventId: z.string(),
    occurredAt: IsoTime,
    ingestedAt: IsoTime,
    correlationId: z.string().nullable(),
    visibility: z.enum(EVENT_VISIBILITIES),
    data: z.record(z.string(), z.unknown()),
    text: z.string().openapi({ example: "Merged PR #42 in acme/agent: Add a cache" }),
  })
  .openapi("AgentEvent");

const TypeList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(","))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .max(100)
          .regex(/^[a-z][a-z0-9_.]*$/, "is not an event type"),
      )
      .max(50),
  )
  .openapi({
    type: "string",
    description: "One event type, several comma-separated, or the parameter repeated",
    example: "pr.merged,commit.pushed",
  });

export const FeedQuery = CursorQuery.extend({
  eventType: TypeList.optional(),
  source: z.string().min(1).max(64).optional().openapi({ example: "evm-indexer:bsc" }),
  category: oneOf(EVENT_CATEGORIES).optional(),
  visibility: oneOf(EVENT_VISIBILITIES)
    .default("public")
    .openapi({ description: "public (default), hidden, or internal (operator token only)" }),
});

export const TradesQuery = FeedQuery.omit({ category: true });

const Counts = z.record(z.string(), z.number().int().nonnegative());
export const EventStats = z
  .object({
    total: z.number().int().nonnegative(),
    byEventType: Counts,
    bySource: Counts,
    byCategory: Counts,
    visibility: z
      .array(z.enum(EVENT_VISIBILITIES))
      .openapi({ description: "The visibilities counted" }),
  })
  .openapi("AgentEventStats");
