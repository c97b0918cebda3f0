/**
 * The service's one error base. Every domain error extends it: a stable `code` (what a
 * program branches on), a short `message` (what a person reads), optional `details`, the
 * `cause`, and whether trying again can succeed (`retryable`). The API maps these to the
 * spec's envelopes and statuses in one place (api/errors.ts `toHttpError`).
 *
 * @example
 * class QuotaError extends LaunchpadError<"QUOTA_EXCEEDED"> {}
 * throw new QuotaError("QUOTA_EXCEEDED", { message: "10 launches per minute", retryable: true });
 */
export class LaunchpadError<C extends string = string> extends Error {
  override name = "LaunchpadError";
  readonly code: C;
  readonly details?: unknown;
  readonly retryable: boolean;
  constructor(
    code: C,
    p: { message: string; details?: unknown; cause?: unknown; retryable?: boolean },
  ) {
    super(p.message, p.cause === undefined ? undefined : { cause: p.cause });
    this.code = code;
    if (p.details !== undefined) this.details = p.details;
    this.retryable = p.retryable ?? false;
  }
}

/** One problem with one field of an input: the shape of every `details` list we answer with. */
export type ErrorDetail = { path: string; message: string };

/**
 * Zod issues as details, one per problem, with `(root)` for the input itself.
 *
 * @example
 * const details = issueDetails(result.error.issues); // [{ path: "ticker", message: "..." }]
 */
export function issueDetails(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): ErrorDetail[] {
  return issues.map((i) => ({
    path: i.path.map(String).join(".") || "(root)",
    message: i.message,
  }));
}
