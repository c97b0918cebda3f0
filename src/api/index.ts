import { Hono } from "hono";

// Ponder requires this module. Its built-in /health, /ready, /status and /metrics are what
// operators use; the service's public API is `api/` (Hono) reading the published views.
const app = new Hono();

export default app;
