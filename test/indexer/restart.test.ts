import type { PublicClient } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { readDeploymentRecord } from "../../devnet/record.ts";
import { runStoryline } from "../../devnet/storyline/run.ts";
import { isolatedEnv, type Stack, startStack, waitFor } from "../helpers/cli.ts";
import { chainClient, launchEnv, stackSql } from "../helpers/launch.ts";
import { checkIndex } from "../helpers/scenario-check.ts";

// `launchpad start`, activity past both chains' finality depth (BSC 30 blocks, Arbitrum 240),
// then Ctrl-C and a start: the index moves again and equals the chain.

type ChainStatus = { chainId: number; indexedBlock: string; headBlock: string | null };

let stack: Stack | undefined;
afterAll(async () => stack?.cleanup());

describe("a stop and start carries on", () => {
  it("resumes after SIGINT: the index moves and equals the chain", async () => {
    const env = launchEnv(await isolatedEnv(), {
      LOG_LEVEL: "warn",
    });
    const dataDir = env.LAUNCHPAD_DATA_DIR as string;
    const bsc = `http://127.0.0.1:${env.DEVNET_PORT}`;
    const arb = `http://127.0.0.1:${env.ARBITRUM_DEVNET_PORT}`;
    const rpc = async (url: string, method: string, params: unknown[] = []) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await res.json()) as { result?: unknown; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result;
    };
    const head = async (url: string) => Number(await rpc(url, "eth_blockNumber"));
    const mine = (url: string, blocks: number) =>
      rpc(url, "anvil_mine", [`0x${blocks.toString(16)}`]);
    const indexed = async (s: Stack) => {
      const res = await fetch(`${s.apiUrl}/v2/indexer/status`);
      const { data } = (await res.json()) as { data: { chains: ChainStatus[] } };
      const at = (id: number) => Number(data.chains.find((c) => c.chainId === id)?.indexedBlock);
      return { bsc: at(56), arb: at(42161) };
    };
    /** Both chains indexed up to at least the given blocks. */
    const reaches = (s: Stack, want: { bsc: number; arb: number }, timeoutMs: number) =>
      waitFor(
        `the index at ${JSON.stringify(want)}`,
        async () => {
          const at = await indexed(s);
          return at.bsc >= want.bsc && at.arb >= want.arb ? at : undefined;
        },
        timeoutMs,
      );
    const heads = async () => ({ bsc: await head(bsc), arb: await head(arb) });
    /** Blocks past the finality depth of both chains (Ponder finalizes at twice it). */
    const pastFinality = async () => {
      await mine(bsc, 120);
      await mine(arb, 600);
    };
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
    /** Stops the stack with `signal`, starts it again; the index must move within 30 s. */
    const restart = async (signal: NodeJS.Signals) => {
      const s = stack as Stack;
      const before = await indexed(s);
      await s.stop(signal);
      stack = await startStack(env);
      const moved = await waitFor(
        `the index to move after ${signal}`,
        async () => {
          const at = await indexed(stack as Stack);
          return at.bsc > before.bsc && at.arb > before.arb ? at : undefined;
        },
        30_000,
      );
      await reaches(stack, await heads(), 60_000);
      return { before, moved };
    };

    stack = await startStack(env);
    const record = readDeploymentRecord(dataDir);
    if (!record) throw new Error("no deployment record");
    await runStoryline({
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
    await pastFinality();
    await reaches(stack, await heads(), 120_000);

    // (a) Ctrl-C: the supervisor stops every role, anvil dumps.
    const a = await restart("SIGINT");
    expect(a.moved.bsc).toBeGreaterThan(a.before.bsc);
    expect(await exact()).toEqual([]);

    expect(await (stack as Stack).stop()).toBe(0);
  }, 900_000);
});
