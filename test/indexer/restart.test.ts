import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PublicClient } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { readDeploymentRecord } from "../../devnet/record.ts";
import { runStoryline } from "../../devnet/storyline/run.ts";
import { processRuns } from "../../lib/local/pidfile.ts";
import { isolatedEnv, type Stack, startStack, waitFor } from "../helpers/cli.ts";
import { chainClient, launchEnv, nextIp, stackSql } from "../helpers/launch.ts";
import { tradeBurst } from "../helpers/scenario-burst.ts";
import { checkIndex } from "../helpers/scenario-check.ts";

// tier: long
// `launchpad start`, activity past both chains' finality depth (BSC 30 blocks, Arbitrum 240),
// then a stop and a start: after Ctrl-C, after SIGKILL of every process of the stack (Postgres
// and anvil included: a machine's crash), and across the devnet's own restart of anvil in a
// burst of thousands of empty blocks. Each time the index moves again and equals the chain.
// One stack for the three: each boot costs a minute. About ten minutes in all (sequencer: first).

type ChainStatus = { chainId: number; indexedBlock: string; headBlock: string | null };

let stack: Stack | undefined;
afterAll(async () => stack?.cleanup());

describe("a stop and start carries on", () => {
  it("resumes after SIGINT, after SIGKILL, and across anvil's restart in a burst", async () => {
    const env = launchEnv(await isolatedEnv(), {
      LOG_LEVEL: "warn",
      // The devnet restarts anvil from its state file once a dump sheds this much (16 MB in
      // use): ~1,100 empty blocks since anvil started reach it (1.66 KB each as JSON, the last
      // 512 kept), which the burst does and the earlier phases (on either chain) do not.
      LAUNCHPAD_TEST_ANVIL_SHED_BYTES: "1000000",
    });
    const dataDir = env.LAUNCHPAD_DATA_DIR as string;
    const bsc = `http://127.0.0.1:${env.DEVNET_PORT}`;
    const arb = `http://127.0.0.1:${env.ARBITRUM_DEVNET_PORT}`;
    /** One JSON-RPC call; sent again while the devnet restarts anvil (a refused connection). */
    const rpc = async (url: string, method: string, params: unknown[] = []) => {
      const send = () =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
      let res: Response | undefined;
      for (let attempt = 0; !res; attempt++) {
        res = await send().catch(async (error: unknown) => {
          if (attempt >= 40) throw error;
          await new Promise((r) => setTimeout(r, 250));
          return undefined;
        });
      }
      const body = (await res.json()) as { result?: unknown; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result;
    };
    const head = async (url: string) => Number(await rpc(url, "eth_blockNumber"));
    const mine = (url: string, blocks: number) =>
      rpc(url, "anvil_mine", [`0x${blocks.toString(16)}`]);
    const indexed = async (s: Stack) => {
      // Its own client IP per call (TRUST_PROXY): a poll a second must not meet the per-IP limit.
      const res = await fetch(`${s.apiUrl}/v2/indexer/status`, {
        headers: { "x-forwarded-for": nextIp() },
      });
      if (!res.ok) throw new Error(`indexer status: ${res.status} ${await res.text()}`);
      const { data } = (await res.json()) as { data: { chains: ChainStatus[] } };
      const at = (id: number) => Number(data.chains.find((c) => c.chainId === id)?.indexedBlock);
      return { bsc: at(56), arb: at(42161) };
    };
    const heads = async () => ({ bsc: await head(bsc), arb: await head(arb) });
    /**
     * Both chains indexed up to `want`, failing only when the index stops moving for 150 s: past
     * the supervisor's watchdog, which restarts an indexer that stood still for 60 s while the
     * head moved (cli/watchdog.ts), and the role's restart. What recovered it is printed.
     */
    const keepsMoving = async (s: Stack, want: { bsc: number; arb: number }) => {
      // The status can be a moment away after a start (the API up before the index's views).
      let last = await waitFor("the index's status", () => indexed(s));
      let movedAt = Date.now();
      while (last.bsc < want.bsc || last.arb < want.arb) {
        await new Promise((r) => setTimeout(r, 1_000));
        const at = await indexed(s).catch(() => last);
        if (at.bsc > last.bsc || at.arb > last.arb) movedAt = Date.now();
        else if (Date.now() - movedAt > 150_000) {
          const tail = s.output().split("\n").slice(-120).join("\n");
          throw new Error(
            `the index stopped at ${JSON.stringify(at)} for 150 s, short of ${JSON.stringify(want)}; the stack said:\n${tail}`,
          );
        }
        last = at;
      }
    };
    /** Blocks past BSC's finality depth (Ponder finalizes at twice it). */
    const pastBscFinality = () => mine(bsc, 120);
    const exact = async () => {
      const sql = stackSql(dataDir);
      try {
        const client = chainClient(env) as PublicClient;
        const record = readDeploymentRecord(dataDir);
        if (!record) throw new Error("no deployment record");
        return await checkIndex({ sql: sql as never, schema: "onchain", client, record });
      } finally {
        await sql.end();
      }
    };
    /** The state files hold both heads (a hard kill loses what the last dump missed). */
    const dumped = (want: { bsc: number; arb: number }) =>
      waitFor("a state dump past the activity", async () => {
        const best = (f: string) =>
          Number(JSON.parse(readFileSync(join(dataDir, "devnet", f), "utf8")).best_block_number);
        return best("state.json") >= want.bsc && best("arbitrum/state.json") >= want.arb
          ? true
          : undefined;
      });
    /** Every process of the stack, Postgres and anvil (own process groups) included. */
    const killAll = async (s: Stack) => {
      const pids = s.tree();
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {} // already gone
      }
      await waitFor("every process of the stack gone", async () =>
        pids.some(processRuns) ? undefined : true,
      );
    };
    /** Stops the stack with `signal`, starts it again; the index must move within 30 s. */
    const restart = async (signal: NodeJS.Signals) => {
      const s = stack as Stack;
      const before = await waitFor("the index's status", () => indexed(s));
      if (signal === "SIGKILL") await killAll(s);
      else await s.stop(signal);
      stack = await startStack(env);
      const upAt = Date.now();
      const s2 = stack as Stack;
      const say = (error: Error) => {
        const tail = s2.output().split("\n").slice(-80).join("\n");
        throw new Error(
          `${error.message} (from ${JSON.stringify(before)}); the stack said:\n${tail}`,
        );
      };
      // BSC, where the service's data lives, moves within 30 s of the start. Arbitrum's index
      // first steps back: Ponder 0.17 reverts to the finalized block on a start (240 blocks
      // behind on Arbitrum, fixed by chain id) and replays the rest live, block by block.
      const moved = await waitFor(
        `BSC's index to move after ${signal}`,
        async () => {
          const at = await indexed(s2);
          return at.bsc > before.bsc ? at : undefined;
        },
        30_000,
      ).catch(say);
      const bscMs = Date.now() - upAt;
      const arb = await waitFor(
        `Arbitrum's index past where it was after ${signal}`,
        async () => {
          const at = await indexed(s2);
          return at.arb > before.arb ? at : undefined;
        },
        180_000,
      ).catch(say);
      process.stdout.write(
        `after ${signal}: BSC's index moved ${bscMs} ms after the start, Arbitrum's past ${before.arb} after ${Date.now() - upAt} ms\n`,
      );
      await keepsMoving(s2, await heads());
      return { before, moved: { bsc: moved.bsc, arb: arb.arb } };
    };

    let phaseAt = Date.now();
    /** Where the minutes go: each phase's seconds, printed. */
    const phase = (name: string) => {
      process.stdout.write(`phase: ${name} ${((Date.now() - phaseAt) / 1000).toFixed(1)} s\n`);
      phaseAt = Date.now();
    };
    stack = await startStack(env);
    const record = readDeploymentRecord(dataDir);
    if (!record) throw new Error("no deployment record");
    phase("boot");
    // Arbitrum past its finality depth too, once (the second stop still reverts it 240 blocks to
    // the finalized one this moves). Ponder takes these blocks at ~12 a second (two calls each,
    // within its 20 requests a second per node): mined first, they are indexed while the
    // storyline runs on BSC.
    await mine(arb, 600);
    const story = await runStoryline({
      rpcUrl: bsc,
      record,
      seed: 33,
      tokens: 2,
      trades: 8,
      traders: 2,
      dexSwaps: 2,
      parallel: false,
      safeTreasury: false,
      unregistered: false,
    });
    phase("storyline");
    await pastBscFinality();
    await keepsMoving(stack, await heads());

    // (a) Ctrl-C: the supervisor stops every role, anvil dumps.
    phase("past finality, indexed");
    const a = await restart("SIGINT");
    expect(a.moved.bsc).toBeGreaterThan(a.before.bsc);
    expect(await exact()).toEqual([]);

    // (b) A crash of everything, after a dump holds the new activity (a hard kill loses at most
    // the last dump interval; docs/devnet-state.md).
    phase("SIGINT restart, checked");
    await tradeBurst({
      rpcUrl: bsc,
      record,
      seed: 34,
      curveTokens: story.tokens.slice(1),
      count: 4,
    });
    await pastBscFinality();
    await dumped(await heads());
    await keepsMoving(stack, await heads());
    phase("trades, past finality, dumped, indexed");
    const b = await restart("SIGKILL");
    expect(b.moved.arb).toBeGreaterThan(b.before.arb);
    expect(await exact()).toEqual([]);

    // (c) Thousands of empty blocks in a burst; the devnet restarts anvil under it (a call cut
    // by the restart is refused and sent again, as a client would); the index catches up.
    // At least 1,200 blocks (more than the 512 a restored chain keeps), and on until the devnet
    // has restarted anvil under the burst (its dump-size trigger, lowered above, fires after
    // ~1,100 empty blocks; 6,000 at most).
    phase("SIGKILL restart, checked");
    const start = await head(bsc);
    const anvilRestarts = () =>
      (stack as Stack).output().match(/restarted anvil from the state file/g)?.length ?? 0;
    const restarted = () => anvilRestarts() > 0;
    // A refused call means anvil is restarting: the next one waits until the devnet says it is
    // back, its clock set past the head. One sent in the moment between the new anvil's RPC
    // coming up and that would mine blocks at the wall clock, behind the burst's time.
    const backFromRestart = async (seen: number) => {
      for (const until = Date.now() + 30_000; anvilRestarts() === seen && Date.now() < until; )
        await new Promise((r) => setTimeout(r, 100));
    };
    // Past 1,200 the trigger waits for the next periodic dump (every 10 s): blocks come slowly
    // then, calls still in flight when anvil restarts, not thousands more for Ponder to replay.
    for (let at = start; at - start < 1_200 || (!restarted() && at - start < 6_000); ) {
      const seen = anvilRestarts();
      const burst = at - start < 1_200;
      try {
        await mine(bsc, burst ? 250 : 10);
        at = await head(bsc);
        if (!burst) await new Promise((r) => setTimeout(r, 250));
      } catch {
        await backFromRestart(seen);
      }
    }
    expect(restarted()).toBe(true);
    // Ponder replays the burst live, block by block: within 90 s on an idle machine (measured
    // twice with 5,000 blocks), two to five times that beside other stack tests on 2 cores.
    // What fails here is a stall (it never caught up before: docs/devnet-state.md), not the
    // pace: the wait ends only when the index stops moving for 150 s.
    phase("burst mined");
    const burstAt = Date.now();
    const target = await heads();
    await keepsMoving(stack as Stack, target);
    // Ponder behind the burst asks for blocks the restored chain dropped; the indexer role
    // restarts it past them (docs/devnet-state.md): how often, for the figures.
    const restarts = (stack as Stack).output().match(/which the chain no longer has/g)?.length ?? 0;
    const watchdog = (stack as Stack).output().match(/; restarting the indexer/g)?.length ?? 0;
    process.stdout.write(
      `after a burst of ${target.bsc - start} blocks across an anvil restart: caught up in ${Date.now() - burstAt} ms (ponder restarted past a dropped block ${restarts} times, the indexer role by the watchdog ${watchdog} times)\n`,
    );
    expect(await exact()).toEqual([]);

    phase("burst indexed, checked");
    expect(await (stack as Stack).stop()).toBe(0);
  }, 1_500_000);
});
