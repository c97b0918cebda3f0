import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";

export type ReplayServer = { url: string; close: () => Promise<void> };

/**
 * A local HTTP server that plays a recorded service: `answer` picks the fixture for each request.
 * Our clients are pointed at it to prove they read the real answers.
 */
export async function replayServer(answer: RequestListener): Promise<ReplayServer> {
  const server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
