import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";

export type BodyLimitOptions = { maxBytes: number };

/**
 * Refuses a request body over `maxBytes` with 413 `payload_too_large`, at the moment the body
 * is read rather than when the request arrives: credentials travel in headers, so a protected
 * route refuses a wrong key with 401 before it looks at the body, whatever its size. The body
 * is streamed through a counter (never buffered past the limit); a declared Content-Length over
 * the limit fails on the first read without waiting for the bytes. `bodyTooLarge` is set on
 * the context so the renderer answers 413 even where a parser wrapped the error.
 *
 * @example
 * app.use(bodyLimit({ maxBytes: API_LIMITS.maxBodyBytes }));
 */
export function bodyLimit(o: BodyLimitOptions): MiddlewareHandler<AppEnv> {
  return async function bodyLimitMiddleware(c, next) {
    // GET and HEAD carry no body; asking for one would build a whole fetch Request per read.
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = Number(raw.headers.get("content-length") ?? Number.NaN);
    const refuse = () => {
      c.set("bodyTooLarge", true);
      return new HttpError("payload_too_large", {
        message: `request body exceeds ${o.maxBytes} bytes`,
      });
    };
    const source = raw.body.getReader();
    let size = 0;
    // highWaterMark 0: nothing is pulled (and nothing refused) until someone reads.
    const limited = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (declared > o.maxBytes) {
            await source.cancel().catch(() => {});
            return controller.error(refuse());
          }
          const { done, value } = await source.read();
          if (done) return controller.close();
          size += value.byteLength;
          if (size > o.maxBytes) {
            await source.cancel().catch(() => {});
            return controller.error(refuse());
          }
          controller.enqueue(value);
        },
        cancel: (reason) => source.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    c.req.raw = new Request(raw, { body: limited, duplex: "half" } as RequestInit);
    await next();
  };
}
