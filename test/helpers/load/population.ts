import { keccak256, toHex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { createAgent } from "../../../lib/agents/keys.ts";
import { addWallet, putPersona } from "../../../lib/agents/records.ts";
import type { Sql } from "../../../lib/db/client.ts";

export type LoadAgent = { agentId: string; apiKey: string; handle: string; perps: `0x${string}` };

const OPERATOR = { kind: "operator", id: "load-harness" } as const;

/**
 * The agent population, written straight to the database with the service's own record
 * functions (what `POST /v2/admin/agents`, `PUT .../persona` and `POST .../wallets` write): a
 * thousand agents through the API would take the run's first minutes for no figure. Each gets
 * a persona with an X handle (an account on the X stand-in), a registered perps wallet (the
 * perps poller's target); a treasury Safe comes with its launch through the API.
 */
export async function seedPopulation(p: {
  sql: Sql;
  count: number;
  seed: number;
  xUrl: string;
  log: (line: string) => void;
}): Promise<LoadAgent[]> {
  const agents: LoadAgent[] = [];
  const started = Date.now();
  const one = async (i: number) => {
    const handle = `load${p.seed % 1000}_${i}`;
    const { agentId, apiKey } = await createAgent(p.sql, { name: `Load agent ${i}` });
    await putPersona(p.sql, agentId, OPERATOR, {
      name: `Load agent ${i}`,
      handle,
      bio: persona(i),
    });
    const perps = privateKeyToAddress(keccak256(toHex(`load:${p.seed}:perps:${i}`)));
    await addWallet(p.sql, agentId, OPERATOR, {
      chain: "hyperliquid",
      address: perps.toLowerCase(),
      role: "perps",
    });
    const r = await fetch(`${p.xUrl}/stand-in/accounts`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: handle, name: `Load agent ${i}`, followers: 10 + i }),
    });
    if (!r.ok) throw new Error(`X stand-in account ${handle}: ${r.status} ${await r.text()}`);
    agents[i] = { agentId, apiKey, handle, perps };
  };
  // A few at a time: the stack is up and its roles share the two cores.
  for (let i = 0; i < p.count; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, p.count - i) }, (_, k) => one(i + k)));
  }
  p.log(`load: ${p.count} agents seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return agents;
}

const TRAITS = ["market notes", "perps signals", "memes", "treasury reports", "research"];
const persona = (i: number) => `An agent that posts ${TRAITS[i % TRAITS.length]}.`;
