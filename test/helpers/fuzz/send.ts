import { Agent, request } from "node:http";
import type { FuzzCase } from "./cases.ts";

export type FuzzResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
};

/** Longest a fuzz request may take: a slow answer is a finding, not a hang. */
export const FUZZ_REQUEST_TIMEOUT_MS = 30_000;

// No keep-alive: a socket the server closed while idle must not turn into a false finding.
const agent = new Agent({ keepAlive: false, maxSockets: 4 });

/**
 * Sends a case over a raw HTTP/1.1 request (node:http: the path goes out as written, with no
 * URL normalisation, so `..` and `%00` reach the server). Resolves `undefined` when Node itself
 * refuses to send it (a header value with a control character): nothing reached the server.
 */
export function send(base: string, c: FuzzCase): Promise<FuzzResponse | undefined> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    let req: ReturnType<typeof request>;
    try {
      req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: c.method,
          path: c.url,
          headers: {
            ...c.headers,
            ...(c.body !== undefined ? { "content-length": Buffer.byteLength(c.body) } : {}),
          },
          timeout: FUZZ_REQUEST_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (d: Buffer) => chunks.push(d));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          res.on("error", reject);
        },
      );
    } catch (error) {
      // ERR_INVALID_CHAR / ERR_UNESCAPED_CHARACTERS: the client would not send this request.
      if ((error as NodeJS.ErrnoException).code?.startsWith("ERR_")) return resolve(undefined);
      return reject(error);
    }
    req.on("timeout", () => req.destroy(new Error(`no answer in ${FUZZ_REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", (error) => {
      // The server answered and closed before reading our body (a refused oversized body):
      // the answer, if any, already resolved the promise.
      reject(new Error(`${c.method} ${c.url.slice(0, 120)}: ${error.message}`));
    });
    if (c.body !== undefined) req.end(c.body);
    else req.end();
  });
}

/** Closes the kept-alive sockets (end of a run). */
export function closeSockets(): void {
  agent.destroy();
}
