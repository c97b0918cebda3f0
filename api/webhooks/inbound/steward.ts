import type { MiddlewareHandler } from "hono";
import type { Sql } from "../../../lib/db/client.ts";
import { verifyWebhookSignature } from "../../../lib/webhooks/inbound/signature.ts";
import { STEWARD_HEADERS, verifyStewardDelivery } from "../../../services/steward/webhooks.ts";
import type { AppEnv } from "../../env.ts";
import { HttpError } from "../../errors.ts";
import { parseJson } from "../../http/json-body.ts";

/**
 * Steward's event types and the spec's event each becomes, per receiving path (docs/events.md
 * has this table). A type not listed is acknowledged (200, `ignored`) and stored nowhere.
 */
export const STEWARD_EVENT_MAP = {
  "steward/policy": {
    "tx.signed": "policy.applied",
    "tx.approved": "policy.applied",
    "tx.pending": "policy.needs_manual",
    "policy.violation": "policy.denied",
    "tx.denied": "policy.denied",
  },
  "steward/sign": {
    "transaction.broadcasted": "transaction.sent",
  },
} as const satisfies Record<string, Record<string, string>>;
export type StewardPath = keyof typeof STEWARD_EVENT_MAP;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number) =>
  typeof v === "string" && v.length > 0 ? v.slice(0, max) : undefined;

/**
 * The steward paths' signature check: Steward's own delivery (`X-Steward-Signature: v2=…`
 * with its delivery id, event and sent-at headers; 5 minute tolerance) is verified and
 * rewritten into the spec's body (its delivery id as `sourceEventId`, so a replay stores
 * nothing; Steward's agent id matched to ours); any other request must carry the spec's
 * `X-Webhook-Signature`. Either way nothing is parsed before the signature passed.
 *
 * @example
 * app.use("/v2/webhooks/steward/policy", stewardWebhookSignature(sql, "steward/policy", secret));
 */
export function stewardWebhookSignature(
  sql: Sql,
  path: StewardPath,
  secret: string,
): MiddlewareHandler<AppEnv> {
  return async function stewardSignatureMiddleware(c, next) {
    const raw = await c.req.text();
    if (!c.req.header(STEWARD_HEADERS.signature)) {
      const verdict = verifyWebhookSignature({
        secret,
        body: raw,
        header: c.req.header("x-webhook-signature"),
      });
      if (!verdict.ok) throw new HttpError("not_authenticated", { message: verdict.message });
      c.set("webhookBody", raw);
      return next();
    }
    const v = verifyStewardDelivery({ secret, body: raw, header: (n) => c.req.header(n) });
    if (!v.ok) throw new HttpError("not_authenticated", { message: v.message });
    const event = parseJson(raw);
    if (!isRecord(event) || event.type !== v.eventType) {
      throw invalid("type", "must equal X-Steward-Event");
    }
    const type = (STEWARD_EVENT_MAP[path] as Record<string, string>)[v.eventType];
    if (!type) {
      return c.json({
        ok: true as const,
        data: { received: true, duplicate: false, ignored: true },
      });
    }
    const agentId = str(event.agentId, 200);
    if (!agentId) throw invalid("agentId", "required");
    const body = {
      sourceEventId: v.deliveryId,
      eventType: type,
      occurredAt: event.timestamp,
      agentId: await serviceAgentId(sql, agentId),
      data: specData(type, isRecord(event.data) ? event.data : {}),
    };
    c.set("webhookBody", JSON.stringify(body));
    return next();
  };
}

/** Steward's agent id (`agt_…`) as the service's, from the wallet the launch stored. */
async function serviceAgentId(sql: Sql, stewardId: string): Promise<string> {
  const [row] = await sql<{ agent_id: string }[]>`
    select agent_id from app.launch_sagas where wallet_id = ${stewardId}
    union all
    select agent_id from app.launch_wallets where wallet_id = ${stewardId}
    limit 1`;
  return row?.agent_id ?? stewardId;
}

/**
 * The spec's `data` from Steward's: the failed rule of `results` as evaluator and reason; the
 * service's own decision when the signer sent one (`data.policy`, the stand-in) wins.
 */
function specData(type: string, d: Json): Json {
  const results = Array.isArray(d.results) ? d.results.filter(isRecord) : [];
  const failed = results.find((r) => r.passed === false);
  const hash = str(d.txHash, 66);
  if (type === "transaction.sent") {
    return { txHash: hash, to: str(d.to, 42), value: str(d.value, 80) };
  }
  const fromResults: Json = failed
    ? {
        evaluator: str(failed.type, 200),
        code: `steward_${String(failed.type ?? "policy").replaceAll("-", "_")}`.slice(0, 100),
        reason: str(failed.reason, 2000),
      }
    : {};
  const own = isRecord(d.policy) ? d.policy : {};
  const out: Json = { ...fromResults, ...own, stewardTxId: str(d.txId, 200) };
  if (hash) out.txHash = hash;
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

const invalid = (path: string, message: string) =>
  new HttpError("validation_failed", {
    message: `${path}: ${message}`,
    details: [{ path, message }],
  });
