import { LaunchpadError } from "../../lib/errors.ts";
import { ImageCheckError } from "../../lib/image/check.ts";
import { UpstreamError } from "../../services/http.ts";
import { stewardChainRefusal, stewardRefusal } from "../../services/steward/client.ts";

/** The launch endpoint codes a failed saga can end with (api/AGENT.md "Errors"). */
export type SagaErrorCode = "LAUNCHPAD_ERROR" | "ORCHESTRATOR_UNAVAIL";

/**
 * A step failure with the code the launch request answers with. Both codes are retryable for
 * the client (api/AGENT.md: retry after 1 s, 2 s, 4 s); a new request starts a new attempt.
 */
export class SagaError extends LaunchpadError<SagaErrorCode> {
  override name = "SagaError";
  constructor(code: SagaErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, { message, cause: options?.cause, retryable: true });
  }
}

/**
 * Maps any step failure to a launch error: four.meme's create API (and createToken itself)
 * failing is 502 LAUNCHPAD_ERROR; the signer, the chain or our own infrastructure is 503.
 */
export function classify(error: unknown, step: string): SagaError {
  if (error instanceof SagaError) return error;
  const chain = stewardChainRefusal(error);
  if (chain) {
    // The chain refused the wallet's transaction at the signer (nothing was sent): not the
    // signer being down, so not 503.
    return new SagaError(
      "LAUNCHPAD_ERROR",
      `${step}: signer_chain_refused: the chain refused the launch wallet's transaction (${chain.message})${chain.txId ? `, Steward transaction ${chain.txId}` : ""}; nothing was sent`,
      { cause: error },
    );
  }
  if (error instanceof UpstreamError && error.service === "steward") {
    return new SagaError("ORCHESTRATOR_UNAVAIL", `${step}: ${signerFailure(error)}`, {
      cause: error,
    });
  }
  if (error instanceof UpstreamError) {
    const code = error.service === "launchpad" ? "LAUNCHPAD_ERROR" : "ORCHESTRATOR_UNAVAIL";
    return new SagaError(
      code,
      `${step}: ${error.message}${error.details ? ` (${error.details.slice(0, 200)})` : ""}`,
      { cause: error },
    );
  }
  if (error instanceof ImageCheckError) {
    return new SagaError("LAUNCHPAD_ERROR", `${step}: image upload failed: ${error.message}`, {
      cause: error,
    });
  }
  const message = (error as Error)?.message?.split("\n")[0] ?? String(error);
  return new SagaError("ORCHESTRATOR_UNAVAIL", `${step}: ${message}`, { cause: error });
}

/**
 * What went wrong at the signer, in words an operator acts on (docs/launch.md lists them). The
 * tenant key is never part of it: Steward's answers do not echo it and no header is kept.
 */
function signerFailure(e: UpstreamError): string {
  const refusal = stewardRefusal(e);
  if (refusal?.manual) {
    return `signer_pending_approval: Steward holds transaction ${refusal.txId} for a person's approval; a retry resumes it`;
  }
  if (refusal) {
    const why = refusal.results.find((r) => !r.passed)?.reason ?? "";
    return `signer_policy_refused: Steward's policy refused transaction ${refusal.txId}${why ? ` (${why.slice(0, 200)})` : ""}`;
  }
  if (e.kind === "rejected" && (e.status === 401 || e.status === 403)) {
    return `signer_auth_refused: Steward refused the tenant credentials (${e.status}); check STEWARD_API_KEY and STEWARD_TENANT_ID`;
  }
  if (e.kind === "bad_response") {
    return `signer_bad_response: Steward's answer was malformed (${e.details?.slice(0, 200) ?? e.message})`;
  }
  return `signer_${e.kind}: ${e.message}${e.details ? ` (${e.details.slice(0, 200)})` : ""}`;
}
