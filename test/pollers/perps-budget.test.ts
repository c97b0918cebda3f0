import { OpenAPIHono } from "@hono/zod-openapi";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../../api/env.ts";
import { registerPollers } from "../../api/ops/pollers.ts";
import type { Metered } from "../../devnet/stand-ins/hyperliquid/weight.ts";
import { POLLER_LIMITS } from "../../jobs/limits.ts";
import { fillEvents, ledgerEvents } from "../../jobs/pollers/perps-events.ts";
import { pollerStatus } from "../../lib/pollers/status.ts";
import type { Fill, LedgerUpdate } from "../../services/hyperliquid/protocol.ts";
import { runCli } from "../helpers/cli.ts";
import { pollerWorld, until } from "./world.ts";

// Many agents on one venue IP: 40 perps accounts polled by two worker processes against the
// venue stand-in at the venue's own limit (1200 weight a minute; time runs 10 times as fast,
// the minute with it). Unpaced, 40 agents ask for about 2080 weight a minute (2 a tick each,
// 40 a sweep, more on every change: only fills are charged per item, as the venue's docs say),
// well past the limit even when a busy machine slows the ticks; the shared budget keeps them under it, deferring polls,
// and still every fill reaches the feed once.

const AGENTS = 40;
const SCALE = 0.1;
let w: Awaited<ReturnType<typeof pollerWorld>>;
const users = Array.from({ length: AGENTS }, () =>
  privateKeyToAccount(generatePrivateKey()).address.toLowerCase(),
);
const agent = (i: number) => `many-${String(i).padStart(2, "0")}`;

async function expected(i: number) {
  const user = users[i] as string;
  const s = (await w.control("GET", `/state?user=${user}`)) as {
    account: { fills: Fill[]; ledger: LedgerUpdate[] };
  };
  return [
    ...ledgerEvents(agent(i), user, s.account.ledger),
    ...fillEvents(agent(i), user, s.account.fills),
  ]
    .map((e) => `${e.eventType} ${e.sourceEventId}`)
    .sort();
}
const stored = async (i: number) =>
  (await w.events(agent(i))).map((e) => `${e.event_type} ${e.source_event_id}`).sort();

/** Every agent's feed equals what the venue's history gives (each entry once). */
async function allCaughtUp(): Promise<boolean> {
  for (let i = 0; i < AGENTS; i++) {
    if ((await stored(i)).join() !== (await expected(i)).join()) return false;
  }
  return true;
}

/** The most weight the venue saw in any window of `ms` (not only in its own windows). */
function peak(log: Metered[], ms: number): number {
  let best = 0;
  let sum = 0;
  let from = 0;
  for (const m of log) {
    sum += m.weight;
    while ((log[from] as Metered).at <= m.at - ms) sum -= (log[from++] as Metered).weight;
    best = Math.max(best, sum);
  }
  return best;
}

beforeAll(async () => {
  w = await pollerWorld({ scale: SCALE });
  for (const [i, u] of users.entries()) {
    await w.addAgent(agent(i), u);
    await w.control("POST", "/deposit", { user: u, usdc: "1000" });
  }
});
afterAll(async () => {
  await w?.stop();
});

describe("perps poller with many agents", () => {
  it("stays within the venue's rate limit across two workers, and every fill reaches the feed once", async () => {
    const workers = [w.spawnWorker(), w.spawnWorker()];
    try {
      // Fills on every account while both workers poll: an open, then a close.
      for (const step of [{ side: "B", sz: "0.002" }, { close: true }]) {
        for (const u of users) {
          if ("close" in step) await w.control("POST", "/close", { user: u, coin: "BTC" });
          else await w.control("POST", "/fill", { user: u, coin: "BTC", ...step });
        }
        await until("every feed to catch up", allCaughtUp, 120_000).catch((e) => {
          throw new Error(`${String(e)}\n${workers.map((x) => x.output()).join("\n")}`);
        });
      }
      // Then quiet accounts: each one's fills and ledger are still read again by its sweep,
      // though the budget cannot take every sweep on time (cheap ticks 360 + sweeps 1260 a
      // window, against 900): sweeps stretch, none starves.
      const quiet = Date.now();
      await until(
        "every account swept again",
        async () => {
          const [r] = await w.db.sql<{ behind: number }[]>`
            select count(*)::int as behind from app.poller_state
            where poller = 'perps' and (cursor->>'fullAt')::bigint <= ${quiet}`;
          return r?.behind === 0;
        },
        120_000,
      );
      const weight = (await w.control("GET", "/weight")) as {
        limit: number;
        windowMs: number;
        rateLimited: number;
        log: Metered[];
      };
      expect(weight).toMatchObject({ limit: 1_200, windowMs: 60_000 * SCALE });
      // Not one 429, and no window of the venue's length (wherever it starts) over its limit.
      expect(weight.rateLimited).toBe(0);
      expect(weight.log.every((m) => m.status === 200)).toBe(true);
      const most = peak(weight.log, weight.windowMs);
      const byType: Record<string, number> = {};
      for (const m of weight.log) byType[m.type] = (byType[m.type] ?? 0) + 1;
      const span = (weight.log.at(-1)?.at ?? 0) - (weight.log[0]?.at ?? 0);
      const total = weight.log.reduce((a, m) => a + m.weight, 0);
      process.stdout.write(
        `requests ${JSON.stringify(byType)}; ${total} weight in ${span} ms (budget ${Math.round((900 * span) / weight.windowMs)})\n`,
      );
      process.stdout.write(
        `venue weight: peak ${most} in any ${weight.windowMs} ms (venue limit ${weight.limit}, budget ${POLLER_LIMITS.perps.weightBudgetPerMinute}), ${weight.log.length} requests\n`,
      );
      expect(most).toBeLessThanOrEqual(weight.limit);
      // The budget bound: polls were deferred (so the test ran past it), never failed.
      const perps = (await pollerStatus(w.db.sql)).find((s) => s.poller === "perps");
      expect(perps?.budget).toMatchObject({
        limit: POLLER_LIMITS.perps.weightBudgetPerMinute,
        windowSeconds: 60 * SCALE,
        rateLimited: 0,
      });
      expect(perps?.budget?.deferred).toBeGreaterThan(0);
      expect(perps?.failing).toEqual([]);
      // Operators see every agent's effective period.
      expect(perps?.pace).toHaveLength(AGENTS);
      for (const p of perps?.pace ?? []) expect(p.periodSeconds).not.toBeNull();
      // The same for operators: the CLI per agent, the public route per poller and target.
      const cli = await runCli(["pollers", "status"], w.env());
      expect(cli.code).toBe(0);
      expect(cli.stdout).toContain("hyperliquid rate budget: ");
      expect(cli.stdout).toMatch(
        new RegExp(`perps: ${AGENTS} target\\(s\\).*, period [\\d.]+ s \\(slowest [\\d.]+ s\\)`),
      );
      for (let i = 0; i < AGENTS; i++)
        expect(cli.stdout).toMatch(new RegExp(`${agent(i)} ${users[i]}: period [\\d.]+ s`));
      const app = new OpenAPIHono<AppEnv>();
      registerPollers(app, { sql: w.db.sql });
      const route = (await (await app.request("/v2/pollers/status")).json()) as {
        data: { pollers: { poller: string; budget: unknown; pace: unknown[] }[] };
      };
      const perpsRoute = route.data.pollers.find((x) => x.poller === "perps");
      expect(perpsRoute?.budget).toMatchObject({ limit: 900, rateLimited: 0 });
      expect(perpsRoute?.pace).toHaveLength(AGENTS);
      process.stdout.write(
        `effective period: median ${perps?.periodSeconds.median} s, slowest ${perps?.periodSeconds.max} s (tick ${(POLLER_LIMITS.perps.everyMs * SCALE) / 1000} s); ${perps?.budget?.deferred} polls deferred\n`,
      );
    } finally {
      for (const x of workers) x.child.kill("SIGTERM");
      await Promise.all(workers.map((x) => x.exited));
    }
  }, 240_000);
});
