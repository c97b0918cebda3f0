import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, testApp } from "../testing/app.ts";
import { startTestDatabase, type TestDatabase } from "../testing/postgres.ts";
import { AGENT_SORTS, explainAgents } from "./agent-query.ts";

// The agent list's sorts (treasury, monthly burn, runway, age, name, ticker, launch time), over
// a real Postgres with the runway columns the NAV job writes seeded directly: every order equals
// the same rows sorted here (nulls last both ways, ties by agentId), pages join up, and every
// sort and direction is an index walk (no Sort node in the plan) on 3,000 agents.

let db: TestDatabase;
let t: TestApp;
const N = 3000;

type Item = {
  agentId: string;
  name: string;
  ticker: string;
  launchedAt: string | null;
  treasuryUsd: string | null;
  monthlyBurnUsd: string | null;
  runwayDays: string | null;
};

beforeAll(async () => {
  db = await startTestDatabase();
  t = await testApp(db);
  // Figures with ties, nulls and decimals that sort differently as text and as numbers.
  await db.sql`insert into app.agents (agent_id, name, ticker, description, image_url, status,
      token_address, launched_at, treasury_usd, monthly_burn_usd, runway_days, runway_block, runway_at)
    -- Names and tickers of lowercase letters and fixed-width digits: every collation orders them alike.
    select 'agent-' || lpad(i::text, 5, '0'), 'n' || lpad((i % 97)::text, 3, '0'),
      't' || lpad((i % 89)::text, 3, '0'), 'd',
      'https://img.example/a.png', 'active', '0x' || lpad(to_hex(i), 40, '0'),
      case when i % 50 = 0 then null else timestamptz '2026-01-01' + (i % 700) * interval '1 minute' end,
      case when i % 7 = 0 then null else ((i * 37) % 1000)::numeric / 8 end,
      case when i % 7 = 0 then null when i % 5 = 0 then 0 else ((i * 13) % 300)::numeric / 4 end,
      case when i % 7 = 0 or i % 5 = 0 then null else (((i * 37) % 1000)::numeric / 8 * 30 / (((i * 13) % 300)::numeric / 4 + 0.25))::numeric(30, 6) end,
      100, now()
    from generate_series(1, ${N}) i`;
  await db.sql`analyze app.agents`;
});
afterAll(() => db?.stop());

const FIELD: Record<(typeof AGENT_SORTS)[number], keyof Item> = {
  launchedAt: "launchedAt",
  age: "launchedAt",
  name: "name",
  ticker: "ticker",
  treasuryUsd: "treasuryUsd",
  monthlyBurnUsd: "monthlyBurnUsd",
  runwayDays: "runwayDays",
};

/** Compares two figures as the list must: numbers as numbers, times as times, else text. */
function compareValues(a: string, b: string, numeric: boolean): number {
  if (numeric) return Number(a) - Number(b);
  if (a.startsWith("20")) return Date.parse(a) - Date.parse(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function expected(all: Item[], sort: (typeof AGENT_SORTS)[number], order: "asc" | "desc") {
  const f = FIELD[sort];
  const numeric = f === "treasuryUsd" || f === "monthlyBurnUsd" || f === "runwayDays";
  const desc = (order === "desc") !== (sort === "age");
  return [...all].sort((x, y) => {
    const [a, b] = [x[f] as string | null, y[f] as string | null];
    if (a === null || b === null) {
      if (a !== b) return a === null ? 1 : -1;
    } else {
      const c = compareValues(a, b, numeric);
      if (c !== 0) return desc ? -c : c;
    }
    return x.agentId < y.agentId ? -1 : 1;
  });
}

describe("GET /v2/agents sorts", () => {
  it.each(AGENT_SORTS.flatMap((s) => (["desc", "asc"] as const).map((o) => [s, o] as const)))(
    "sort=%s order=%s equals the rows sorted here, page after page",
    async (sort, order) => {
      const all: Item[] = [];
      for (let offset = 0; offset < N; offset += 100) {
        const { status, body } = await t.get(
          `/v2/agents?sort=${sort}&order=${order}&limit=100&offset=${offset}`,
        );
        expect(status).toBe(200);
        expect(body.data.total).toBe(N);
        all.push(...body.data.items);
      }
      expect(new Set(all.map((a) => a.agentId)).size).toBe(N);
      const want = expected(all, sort, order).map((a) => a.agentId);
      expect(all.map((a) => a.agentId)).toEqual(want);
    },
  );

  it.each(AGENT_SORTS.flatMap((s) => (["desc", "asc"] as const).map((o) => [s, o] as const)))(
    "sort=%s order=%s walks an index (no Sort in the plan)",
    async (sort, order) => {
      const plan = (
        await explainAgents(db.sql, "absent_views", { sort, order, limit: 20, offset: 40 })
      ).join("\n");
      expect(plan).toMatch(/Index Scan( Backward)? using agents_\w+_idx/);
      expect(plan).not.toMatch(/\bSort\b/);
    },
  );

  it("a figure's decimals come back exact, without trailing zeros", async () => {
    await db.sql`update app.agents set treasury_usd = 1234.500000, monthly_burn_usd = 0.10,
      runway_days = 370350.000000 where agent_id = 'agent-00001'`;
    try {
      const { body } = await t.get("/v2/agents?sort=treasuryUsd&limit=100");
      const a = body.data.items.find((i: Item) => i.agentId === "agent-00001");
      expect(a).toMatchObject({
        treasuryUsd: "1234.5",
        monthlyBurnUsd: "0.1",
        runwayDays: "370350",
        runwayAsOf: { block: "100", time: expect.any(String) },
      });
    } finally {
      await db.sql`update app.agents set treasury_usd = 4.625 where agent_id = 'agent-00001'`;
    }
  });
});
