import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { TypedDataDefinition } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Emit } from "./outbox.ts";
import { refuse } from "./refusal.ts";
import { evaluateRules, TYPED_DATA_REQUIRED } from "./rules.ts";
import type { StewardStore } from "./store.ts";

const bad = (error: string) => ({ ok: false as const, error });
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `POST /vault/:agentId/sign-typed-data {domain, types, primaryType, value}` as Steward answers
 * it: its validation messages, 403 without an enabled `typed-data` rule, 403 `{txId, results}`
 * when a rule refuses, else `{signature, txId}`.
 *
 * @example
 * app.post("/:agentId/sign-typed-data", typedDataRoute(deps));
 */
export function typedDataRoute(d: { emit: Emit; store: StewardStore }) {
  return async (c: Context) => {
    const w = d.store.wallet(c.req.param("agentId") ?? "");
    if (!w) return c.json(bad("Agent not found"), 404);
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!isObject(body)) return c.json(bad("Invalid JSON in request body"), 400);
    if (!isObject(body.domain))
      return c.json(bad("'domain' is required and must be an object"), 400);
    if (!isObject(body.types)) return c.json(bad("'types' is required and must be an object"), 400);
    if (typeof body.primaryType !== "string" || !body.primaryType.trim())
      return c.json(bad("'primaryType' is required"), 400);
    if (!isObject(body.value)) return c.json(bad("'value' is required and must be an object"), 400);
    const rules = d.store.rules(w.walletId);
    if (!rules.some((r) => r.enabled && r.type === "typed-data")) {
      return c.json(bad(TYPED_DATA_REQUIRED), 403);
    }
    const { results, refused } = evaluateRules(rules, {
      kind: "typed-data",
      domain: body.domain,
      primaryType: body.primaryType,
    });
    const txId = randomUUID();
    if (refused) return refuse(d, c, w.walletId, txId, results);
    try {
      const typed = {
        domain: body.domain,
        types: body.types,
        primaryType: body.primaryType,
        message: body.value,
      } as unknown as TypedDataDefinition;
      const signature = await privateKeyToAccount(d.store.unseal(w)).signTypedData(typed);
      return c.json({ ok: true, data: { signature, txId } });
    } catch (error) {
      // Types that do not describe the message: viem cannot encode it.
      return c.json(bad(`Invalid typed data: ${(error as Error).message.split("\n")[0]}`), 400);
    }
  };
}
