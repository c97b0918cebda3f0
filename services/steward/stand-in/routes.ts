import { randomUUID } from "node:crypto";
import type { Hono } from "hono";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import type { Intent } from "../../../lib/policy/intent.ts";
import { PERPS_VENUE, PolicyRules, type PolicyVersion } from "../../../lib/policy/model.ts";
import { decodePerpsAction, type PerpsAction } from "../../../lib/policy/perps.ts";
import type { Emit } from "./outbox.ts";
import { decide, ledgerEntry } from "./policy.ts";
import { type PerpsVenue, venueState } from "./snapshot.ts";
import type { StewardStore } from "./store.ts";

const Actor = z.strictObject({
  kind: z.enum(["agent", "operator"]),
  id: z.string().min(1).max(200),
});
const PerpsBody = z.strictObject({
  action: z.looseObject({ type: z.string().max(50) }),
  nonce: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

export type PolicyRoutesDeps = {
  store: StewardStore;
  lock: <T>(key: string, fn: () => Promise<T>) => Promise<T>;
  now: () => Date;
  perps?: PerpsVenue;
  afterPolicyRead?: (walletId: string) => Promise<void>;
  emit: Emit;
};

const bad = (error: string, more: Record<string, unknown> = {}) => ({ ok: false, error, ...more });
const ok = (data: unknown) => ({ ok: true, data });

class UnknownVenue extends Error {}

/** An order on a venue the signer does not know, as the venue evaluator will see it. */
function unknownVenueOrder(venue: string, action: Record<string, unknown>): Intent {
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 50) : "?");
  return {
    kind: "trade",
    venue: venue.slice(0, 50),
    asset: text(action.asset),
    side: action.side === "short" ? "short" : "long",
    action: "open",
    notionalUsd: 0n,
    leverage: 1,
    summary: { venue: venue.slice(0, 50), type: text(action.type), asset: text(action.asset) },
  };
}

const issues = (e: z.ZodError) =>
  e.issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));

/**
 * The service's own policy document at the stand-in (read, versions, save: each save a new
 * immutable version that becomes the active one) and perps action signing. A real Steward has
 * none of these paths (docs/upstreams.md); they answer in its envelope and auth all the same.
 *
 * @example
 * registerPolicyRoutes(app, { store, lock, now, perps, onDecision });
 */
export function registerPolicyRoutes(app: Hono, d: PolicyRoutesDeps) {
  app.get("/v1/wallets/:id/policy", (c) => {
    const policy = d.store.policy(c.req.param("id"));
    return policy ? c.json(ok(policy)) : c.json(bad("Agent not found"), 404);
  });

  app.get("/v1/wallets/:id/policy/versions", (c) => {
    const versions = d.store.versions(c.req.param("id"));
    return versions
      ? c.json(ok({ versions: [...versions].reverse() }))
      : c.json(bad("Agent not found"), 404);
  });

  app.put("/v1/wallets/:id/policy", async (c) => {
    const id = c.req.param("id");
    const current = d.store.policy(id);
    if (!current) return c.json(bad("Agent not found"), 404);
    const body = await c.req.json<{ rules?: unknown; actor?: unknown }>().catch(() => undefined);
    const rules = PolicyRules.safeParse(body?.rules);
    const actor = Actor.safeParse(body?.actor);
    if (!rules.success || !actor.success) {
      return c.json(
        bad("invalid_policy", {
          issues: [
            ...(rules.success
              ? []
              : issues(rules.error).map((i) => ({ ...i, path: `rules.${i.path}` }))),
            ...(actor.success
              ? []
              : issues(actor.error).map((i) => ({ ...i, path: `actor.${i.path}` }))),
          ],
        }),
        400,
      );
    }
    // No await between reading the current version and appending: versions never collide.
    const versions = d.store.versions(id) ?? [];
    const next: PolicyVersion = {
      policyId: randomUUID(),
      version: (versions.at(-1)?.version ?? 0) + 1,
      rules: rules.data,
      createdAt: d.now().toISOString(),
      createdBy: actor.data,
    };
    d.store.addPolicy(id, next);
    return c.json(ok(next));
  });

  app.post("/v1/wallets/:id/venues/:venue/sign", async (c) => {
    const w = d.store.wallet(c.req.param("id"));
    if (!w) return c.json(bad("Agent not found"), 404);
    const venueName = c.req.param("venue");
    const perps = venueName === PERPS_VENUE ? d.perps : undefined;
    if (venueName === PERPS_VENUE && !perps) {
      return c.json(bad("perps_venue_not_configured"), 503);
    }
    const json = (await c.req.json().catch(() => undefined)) as
      | { action: Record<string, unknown> }
      | undefined;
    const body = PerpsBody.safeParse(json);
    if (!body.success) return c.json(bad("invalid_action", { issues: issues(body.error) }), 400);
    // The action as sent: its key order is part of the hash the venue checks.
    const action = (json as { action: Record<string, unknown> }).action;
    const policy = d.store.policy(w.walletId);
    if (!policy) return c.json(bad("Agent not found"), 404);
    await d.afterPolicyRead?.(w.walletId);
    return d.lock(`wallet:${w.walletId}`, async () => {
      if (d.store.nonceUsed(w.walletId, body.data.nonce)) {
        return c.json(bad("this nonce was signed already"), 409);
      }
      const at = d.now();
      let intent: Intent;
      let venue: Awaited<ReturnType<typeof venueState>> | undefined;
      try {
        // A venue the signer does not know: an order there is judged (and refused) as one.
        if (!perps) throw new UnknownVenue();
        const [meta, state] = await Promise.all([perps.meta(), venueState(perps, w.address)]);
        venue = state;
        intent = decodePerpsAction(action as PerpsAction, {
          universe: meta.universe,
          marks: state.marks,
          positions: state.positions,
          leverage: d.store.leverage(w.walletId),
        });
      } catch (error) {
        intent =
          error instanceof UnknownVenue
            ? unknownVenueOrder(venueName, action)
            : {
                kind: "unknown",
                manual: false,
                code: "state_unavailable",
                reason: `the venue could not be read: ${(error as Error).message.split("\n")[0]}`,
                summary: { type: body.data.action.type },
              };
      }
      const decision = await decide({
        policy,
        intent,
        now: at,
        wallet: w.address,
        ledger: d.store.ledger(w.walletId),
        perps,
        preread: { venue },
      });
      const txId = randomUUID();
      if (decision.denial) {
        const info = { txId, results: decision.denial.results, decision: decision.denial.decision };
        const manual = decision.denial.decision.manual;
        const ev = d.emit(w.walletId, manual ? "tx.pending" : "policy.violation", {
          ...info,
          policy: decision.data,
        });
        d.store.record(w.walletId, { webhooks: ev.outgoing, nonce: body.data.nonce });
        ev.deliver();
        return manual
          ? c.json(
              bad("Transaction requires manual approval", {
                data: { ...info, status: "pending_approval" },
              }),
              202,
            )
          : c.json(bad("Transaction rejected by policy", { data: info }), 403);
      }
      if (!perps) throw new Error("unreachable: an unknown venue is always refused");
      const account = privateKeyToAccount(d.store.unseal(w));
      const exchange = await perps.sign(account, action, body.data.nonce);
      const ev = d.emit(w.walletId, "tx.signed", {
        txId,
        policy: { ...decision.data, nonce: body.data.nonce },
      });
      d.store.record(w.walletId, {
        entry: ledgerEntry(decision, `nonce:${body.data.nonce}`),
        leverage: intent.kind === "leverage" ? [intent.asset, intent.leverage] : undefined,
        nonce: body.data.nonce,
        webhooks: ev.outgoing,
      });
      ev.deliver();
      return c.json(ok({ exchange, policyId: policy.policyId, version: policy.version }));
    });
  });
}
