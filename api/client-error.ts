import type { Socket } from "node:net";
import { ERROR_STATUS, type ErrorBody } from "./errors.ts";

/** Node's parser errors that reach a client before the app does, as envelope codes. */
const PARSER_ERRORS: Record<string, { code: keyof typeof ERROR_STATUS; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: "headers_too_large",
    message: "the request line and headers exceed 16 KB",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: "request_timeout",
    message: "the request did not arrive in time",
  },
  ERR_HTTP_HEADERS_TIMEOUT: {
    code: "request_timeout",
    message: "the request headers did not arrive in time",
  },
};

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/**
 * The answer to a request Node's HTTP parser refused before the app saw it (headers over the
 * limit, a malformed request line, a request too slow to arrive): the same error envelope as
 * every other answer instead of Node's bare status line, then the connection is closed.
 * Install with `server.on("clientError", answerClientError)`.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or a socket already answered: nothing to say to anyone.
  if (
    error.code === "ECONNRESET" ||
    !socket.writable ||
    (socket as { _httpMessage?: unknown })._httpMessage
  ) {
    socket.destroy();
    return;
  }
  const known = PARSER_ERRORS[error.code ?? ""] ?? {
    code: "validation_failed" as const,
    message: "the request is not valid HTTP/1.1",
  };
  const status = ERROR_STATUS[known.code];
  const body: ErrorBody = { ok: false, error: known.code, message: known.message };
  const text = JSON.stringify(body);
  socket.end(
    [
      `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(text)}`,
      "X-Content-Type-Options: nosniff",
      "Cache-Control: no-store",
      "Connection: close",
      "",
      text,
    ].join("\r\n"),
  );
}
