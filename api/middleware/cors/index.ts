import type { MiddlewareHandler } from "hono";
import { cors as preflightCors } from "hono/cors";
import type { AppEnv } from "../../env.ts";

export type CorsOptions = {
  /** The one origin granted (the web app's). */
  origin: string;
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  credentials: boolean;
  /** How long a browser may keep a preflight's answer, in seconds. */
  maxAge: number;
};

/**
 * CORS for the web app's origin. A preflight (`OPTIONS`) is answered by Hono's `cors`; every
 * other answer gets its grant after the handler, on the final response's own headers. Hono's
 * `cors` sets them on `c.res` before the handler runs, so Hono rebuilds each answer around the
 * first one and @hono/node-server then sends it as a stream (a copy of the body and ~15% of a
 * read's CPU); here the handler's response goes out as it was made.
 *
 * @example
 * app.use(cors({ origin: "http://localhost:3000", allowMethods: ["GET"], allowHeaders: [], exposeHeaders: ["ETag"], credentials: true, maxAge: 600 }));
 */
export function cors(o: CorsOptions): MiddlewareHandler<AppEnv> {
  const preflight = preflightCors(o);
  const expose = o.exposeHeaders.join(",");
  return async function corsMiddleware(c, next) {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    const h = c.res.headers;
    if (c.req.header("origin") === o.origin) {
      h.set("Access-Control-Allow-Origin", o.origin);
      if (o.credentials) h.set("Access-Control-Allow-Credentials", "true");
      if (expose) h.set("Access-Control-Expose-Headers", expose);
    }
    // The grant depends on the request's Origin: a shared cache must key on it.
    h.append("Vary", "Origin");
  };
}
