import fc from "fast-check";
import { type OpenApiDocument, operations } from "./model.ts";
import { send } from "./send.ts";
import { valueArb } from "./values.ts";

/** Path parameters that name the agent a request acts on. */
const OWNER_PARAMS = new Set(["agentId", "tokenAddress", "agent"]);

export type CrossAgentResult = { op: string; status: number; changed: string[] }[];

/**
 * OWASP API1 (broken object-level authorization), for every operation an agent key may call:
 * aimed at `owner`'s resources (its id or token in the path, or its agentId in the body) with
 * `intruder`'s valid key and an otherwise valid request. Each must be refused (403) and change
 * no table. Found from the document, so a new agent route is covered without being listed.
 */
export async function crossAgentRequests(o: {
  baseUrl: string;
  owner: { agentId: string; tokenAddress: string };
  intruderKey: string;
  snapshot: () => Promise<Record<string, string>>;
  headers: () => Record<string, string>;
  seed: number;
}): Promise<CrossAgentResult> {
  const doc = (await (await fetch(`${o.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  const out: CrossAgentResult = [];
  for (const op of operations(doc)) {
    if (!op.security.some((s) => s === "agentKey" || s === "agentKeyHeader")) continue;
    const sample = <T>(a: fc.Arbitrary<T>) => fc.sample(a, { seed: o.seed, numRuns: 1 })[0] as T;
    let targetsOwner = false;
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (OWNER_PARAMS.has(name)) {
        targetsOwner = true;
        return name === "agentId" ? o.owner.agentId : o.owner.tokenAddress;
      }
      const p = op.params.find((x) => x.name === name);
      return encodeURIComponent(String(p ? sample(valueArb(p.schema)) : "x"));
    });
    let body: string | undefined;
    if (op.body) {
      const value = sample(valueArb(op.body.schema)) as Record<string, unknown>;
      const props = (op.body.schema.properties ?? {}) as Record<string, unknown>;
      if ("agentId" in props) {
        targetsOwner = true;
        value.agentId = o.owner.agentId;
      }
      body = JSON.stringify(value);
    }
    if (!targetsOwner) continue;
    const before = await o.snapshot();
    const res = await send(o.baseUrl, {
      op: op.id,
      kind: "valid",
      auth: "valid",
      method: op.method.toUpperCase(),
      url: path,
      headers: {
        ...o.headers(),
        authorization: `Bearer ${o.intruderKey}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body,
    });
    const after = await o.snapshot();
    out.push({
      op: op.id,
      status: res?.status ?? 0,
      changed: Object.keys(after).filter((t) => after[t] !== before[t]),
    });
  }
  return out;
}
