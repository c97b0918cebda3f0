/** Source of every feed event the perps poller writes (docs/events.md); the perps reads filter on it. */
export const PERPS_SOURCE = "hl-listener";

/**
 * The Postgres channel notified (payload: the agent id) by each transaction that changes what
 * an agent's perps reads show: the perps poller's poll of its account, a wallet registered or
 * removed. The API's perps answers are cached until it; the WebSocket bridge tells the agent's
 * subscribers (a `perps` message).
 */
export const PERPS_CHANGED_CHANNEL = "perps_changed";

/**
 * The Postgres channel notified (payload: the agent id) by each social poll of an agent, in its
 * transaction: the API's social answers (stats, follower series) are cached until it.
 */
export const SOCIAL_CHANGED_CHANNEL = "social_changed";
