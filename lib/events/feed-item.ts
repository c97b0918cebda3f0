import { renderEvent } from "./render.ts";
import type { AgentEventRow } from "./store.ts";

/** An event as `GET /v2/agents/:id/events` serves it; also the WebSocket `agent` channel's and
 * an outbound delivery's `data`. */
export type FeedItem = {
  id: string;
  eventType: string;
  category: string;
  source: string;
  sourceEventId: string;
  occurredAt: string;
  ingestedAt: string;
  correlationId: string | null;
  visibility: string;
  data: Record<string, unknown>;
  text: string;
};

/**
 * The feed item of an event row, with its line from the central renderer: the one shape every
 * reader of `agent_events` hands on.
 *
 * @example
 * feedItem(row).text; // "Merged PR #42 in acme/agent: Add a cache"
 */
export function feedItem(e: AgentEventRow): FeedItem {
  return {
    id: String(e.id),
    eventType: e.eventType,
    category: e.category,
    source: e.source,
    sourceEventId: e.sourceEventId,
    occurredAt: new Date(e.occurredAt).toISOString(),
    ingestedAt: new Date(e.ingestedAt).toISOString(),
    correlationId: e.correlationId,
    visibility: e.visibility,
    data: e.data,
    text: renderEvent(e.eventType, e.data),
  };
}
