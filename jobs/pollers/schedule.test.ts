import { describe, expect, it } from "vitest";
import { POLLER_LIMITS } from "../limits.ts";
import { type Candidate, pickAgents } from "./schedule.ts";

// The rounds' choice of whom to poll, run over a simulated clock: 1,000 agents sharing the
// venue's budget at its pace, a few of them watched. What a user sees: the agent whose page is
// open is refreshed first and stays fresh, every other agent is still refreshed (none starves),
// and no window of the budget is overspent (so the venue never answers 429).

const ROUND_MS = 10_000;
const WINDOW_MS = 60_000;
const LIMIT = 900;
const PACE = Math.ceil((LIMIT * ROUND_MS) / WINDOW_MS);

/** Per agent, the oldest its data got in the second half of the run. */
type Sim = { ages: Map<string, number>; maxWindow: number };

/** Runs `rounds` rounds; each picked agent's poll spends its cost and refreshes it at once. */
function simulate(agents: Candidate[], rounds: number, cost: (c: Candidate) => number): Sim {
  const spent: { at: number; weight: number }[] = [];
  const ages = new Map<string, number>();
  const byId = new Map(agents.map((a) => [a.agentId, a]));
  let maxWindow = 0;
  for (let r = 0; r < rounds; r++) {
    const now = r * ROUND_MS;
    const used = spent.filter((s) => s.at > now - WINDOW_MS).reduce((n, s) => n + s.weight, 0);
    const free = LIMIT - used;
    const picked = pickAgents(
      agents.map((a) => ({ ...a, cost: cost(a) })),
      {
        now,
        allowance: Math.min(free, PACE),
        free,
        minIntervalMs: ROUND_MS / 2,
        watchedBoost: POLLER_LIMITS.watchedBoost,
      },
    );
    for (const p of picked) {
      const a = byId.get(p.agentId) as Candidate;
      a.refreshedAt = now;
      spent.push({ at: now, weight: p.cost });
    }
    const inWindow = spent.filter((s) => s.at > now - WINDOW_MS).reduce((n, s) => n + s.weight, 0);
    maxWindow = Math.max(maxWindow, inWindow);
    // Ages are sampled once the first full pass is over (the start is everyone's first read).
    if (r >= rounds / 2)
      for (const a of agents)
        ages.set(a.agentId, Math.max(ages.get(a.agentId) ?? 0, now - (a.refreshedAt ?? 0)));
  }
  return { ages, maxWindow };
}

const population = (n: number, watched: number): Candidate[] =>
  Array.from({ length: n }, (_, i) => ({
    agentId: `agent-${String(i).padStart(4, "0")}`,
    refreshedAt: null,
    watched: i % Math.floor(n / watched) === 0,
    cost: 2,
  }));

const worst = (sim: Sim, pick: (id: string) => boolean) =>
  [...sim.ages].filter(([id]) => pick(id)).reduce((m, [, age]) => Math.max(m, age), 0);

describe("pickAgents", () => {
  it("keeps watched agents fresh, refreshes every other agent, and stays within the budget", () => {
    const agents = population(1_000, 10);
    const watched = new Set(agents.filter((a) => a.watched).map((a) => a.agentId));
    const sim = simulate(agents, 360, () => 2); // an hour of rounds
    const watchedWorst = worst(sim, (id) => watched.has(id));
    const unwatchedWorst = worst(sim, (id) => !watched.has(id));
    // Every agent was refreshed in the second half hour, and within a fair share of the budget:
    // 1,000 polls of 2 at 150 a round take 14 rounds; allow twice that.
    expect(unwatchedWorst).toBeLessThanOrEqual(2 * Math.ceil((1_000 * 2) / PACE) * ROUND_MS);
    // A watched agent is polled every round or two.
    expect(watchedWorst).toBeLessThanOrEqual(2 * ROUND_MS);
    expect(watchedWorst).toBeLessThan(unwatchedWorst / 5);
    expect(sim.maxWindow).toBeLessThanOrEqual(LIMIT);
  });

  it("starves no one when every agent is watched or the budget is short", () => {
    const agents = population(1_000, 1_000);
    const sim = simulate(agents, 360, () => 2);
    expect(sim.ages.size).toBe(1_000);
    expect(worst(sim, () => true)).toBeLessThanOrEqual(2 * Math.ceil(2_000 / PACE) * ROUND_MS);
  });

  it("gets a new agent read where data is hours old (X's slow tiers): it ages like the rest", () => {
    const ROUND = 300_000;
    // 20 agents read in turn, one a round: each agent's data is up to 20 rounds old.
    const agents: Candidate[] = Array.from({ length: 20 }, (_, i) => ({
      agentId: `known-${String(i).padStart(2, "0")}`,
      refreshedAt: -i * ROUND,
      watched: false,
      cost: 1,
    }));
    agents.push({ agentId: "new", refreshedAt: null, since: 0, watched: false, cost: 1 });
    let readAt: number | undefined;
    for (let r = 1; r <= 40 && readAt === undefined; r++) {
      const now = r * ROUND;
      const [p] = pickAgents(agents, {
        now,
        allowance: 1,
        free: 1,
        minIntervalMs: ROUND / 2,
        watchedBoost: 30,
      });
      const a = agents.find((x) => x.agentId === p?.agentId) as Candidate;
      a.refreshedAt = now;
      if (a.agentId === "new") readAt = r;
    }
    // Within one turn of the 21 agents, not never.
    expect(readAt).toBeDefined();
    expect(readAt).toBeLessThanOrEqual(21);
  });

  it("lets an expensive poll (a sweep) keep its place at the head until it fits", () => {
    const now = 100_000;
    const cands: Candidate[] = [
      { agentId: "sweep", refreshedAt: 0, watched: false, cost: 42 },
      { agentId: "cheap-1", refreshedAt: 10_000, watched: false, cost: 2 },
      { agentId: "cheap-2", refreshedAt: 20_000, watched: false, cost: 2 },
    ];
    const o = { now, minIntervalMs: 5_000, watchedBoost: 30 };
    // The round's allowance does not cover it and the window has no more: nobody overtakes it.
    expect(pickAgents(cands, { ...o, allowance: 30, free: 30 })).toEqual([]);
    // The window has it free: it goes alone, though costlier than a round's allowance.
    expect(pickAgents(cands, { ...o, allowance: 30, free: 50 }).map((c) => c.agentId)).toEqual([
      "sweep",
    ]);
    expect(pickAgents(cands, { ...o, allowance: 46, free: 50 }).map((c) => c.agentId)).toEqual([
      "sweep",
      "cheap-1",
      "cheap-2",
    ]);
  });

  it("reads a watched agent, then a never-polled one, before stale ones; not one just polled", () => {
    const cands: Candidate[] = [
      { agentId: "stale", refreshedAt: 0, watched: false, cost: 2 },
      { agentId: "new", refreshedAt: null, watched: false, cost: 2 },
      { agentId: "watched", refreshedAt: 85_000, watched: true, cost: 2 },
      { agentId: "recent", refreshedAt: 99_000, watched: true, cost: 2 },
    ];
    const picked = pickAgents(cands, {
      now: 100_000,
      allowance: 100,
      free: 100,
      minIntervalMs: 5_000,
      watchedBoost: 30,
    });
    expect(picked.map((c) => c.agentId)).toEqual(["watched", "new", "stale"]);
  });

  it("paces the Safe poller's 1,000 treasuries at 4 a second: watched each round, none starved", () => {
    // 30 s rounds of 120 one-request polls (4 a second), over two simulated hours.
    const round = POLLER_LIMITS.safe.everyMs;
    const pace = (POLLER_LIMITS.safe.requestsPerSecond * round) / 1_000;
    const agents = population(1_000, 10).map((a) => ({ ...a, cost: 1 }));
    const ages = new Map<string, number>();
    let most = 0;
    for (let r = 0; r < 240; r++) {
      const now = r * round;
      const picked = pickAgents(agents, {
        now,
        allowance: pace,
        free: pace,
        minIntervalMs: round / 2,
        watchedBoost: POLLER_LIMITS.watchedBoost,
      });
      most = Math.max(most, picked.length);
      for (const p of picked) p.refreshedAt = now;
      if (r >= 120)
        for (const a of agents)
          ages.set(a.agentId, Math.max(ages.get(a.agentId) ?? 0, now - (a.refreshedAt ?? 0)));
    }
    expect(most).toBeLessThanOrEqual(pace);
    const worstOf = (watched: boolean) =>
      Math.max(...agents.filter((a) => a.watched === watched).map((a) => ages.get(a.agentId) ?? 0));
    expect(ages.size).toBe(1_000);
    // 1,000 polls at 120 a round take 9 rounds (about 4.5 minutes); allow twice that.
    expect(worstOf(false)).toBeLessThanOrEqual(2 * Math.ceil(1_000 / pace) * round);
    expect(worstOf(true)).toBeLessThanOrEqual(round);
  });
});
