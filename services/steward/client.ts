import { z } from "zod";
import { upstreamJson } from "../http.ts";
import {
  StewardAnswers as A,
  type ReplacePolicyBody,
  type SendTransactionBody,
  type SignPerpsBody,
} from "./protocol.ts";

export type StewardClientParameters = { url: string; apiKey: string; timeoutMs: number };

/**
 * Typed client of the steward signer: the same code talks to the real service and to the
 * local stand-in (`services/steward/stand-in/server.ts`); only `url` differs. Every method throws
 * `UpstreamError` (service "steward") on failure.
 *
 * @example
 * const steward = createStewardClient({ url, apiKey, timeoutMs: 10_000 });
 * const wallet = await steward.provisionWallet({ agentId });
 */
export function createStewardClient(p: StewardClientParameters) {
  const call = <S extends z.ZodType>(
    schema: S,
    method: "GET" | "POST" | "PUT",
    path: string,
    json?: unknown,
  ) =>
    upstreamJson({
      service: "steward",
      url: `${p.url}${path}`,
      method,
      json,
      headers: { authorization: `Bearer ${p.apiKey}` },
      timeoutMs: p.timeoutMs,
      schema,
    });
  return {
    /** Idempotent per agent: a second call returns the wallet the first one made. */
    provisionWallet: (a: { agentId: string }) => call(A.Wallet, "POST", "/v1/wallets", a),
    getWallet: (walletId: string) => call(A.Wallet, "GET", `/v1/wallets/${walletId}`),
    /** Runs the policy chain, signs and broadcasts; the same idempotencyKey gives the same hash. */
    sendTransaction: (walletId: string, tx: SendTransactionBody) =>
      call(A.SendTransactionResult, "POST", `/v1/wallets/${walletId}/transactions`, tx),
    /** EIP-191 personal_sign of a UTF-8 message. */
    signMessage: (walletId: string, message: string) =>
      call(A.SignMessageResult, "POST", `/v1/wallets/${walletId}/sign-message`, { message }),
    /** The active policy version. */
    getPolicy: (walletId: string) => call(A.PolicyVersion, "GET", `/v1/wallets/${walletId}/policy`),
    /** Every version, newest first. */
    listPolicyVersions: (walletId: string) =>
      call(
        z.looseObject({ versions: z.array(A.PolicyVersion) }),
        "GET",
        `/v1/wallets/${walletId}/policy/versions`,
      ),
    /** Saves a new policy version; signing calls already running keep the version they began with. */
    replacePolicy: (walletId: string, body: ReplacePolicyBody) =>
      call(A.PolicyVersion, "PUT", `/v1/wallets/${walletId}/policy`, body),
    /**
     * Runs the policy chain on a venue action (the perps venue's L1 action) and returns the
     * signed `/exchange` body; an action for a venue the signer does not know is refused.
     */
    signVenueAction: (walletId: string, venue: string, body: SignPerpsBody) =>
      call(
        A.SignPerpsResult,
        "POST",
        `/v1/wallets/${walletId}/venues/${encodeURIComponent(venue)}/sign`,
        body,
      ),
  };
}

export type StewardClient = ReturnType<typeof createStewardClient>;
