import { readFileSync } from "node:fs";
import { createPublicClient, http } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedEnv, type Stack, startStack, waitFor } from "../helpers/cli.ts";

// The whole stack (`launchpad start`, 1-second blocks): Ponder frozen by SIGSTOP while anvil
// keeps mining. The indexer role still reports, its index does not move while the head does,
// so the supervisor's watchdog restarts the role, says so, and the new Ponder catches up.

/** The watchdog's stall window in this test (test mode only; 60 s in production): a restarted
 * role must report within it, which takes ~10 s under load, so not much shorter. */
const STALL_MS = 30_000;

let stack: Stack | undefined;
let frozen: number | undefined;
afterAll(async () => {
  if (frozen) signal(frozen, "SIGKILL");
  await stack?.cleanup();
});

function signal(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {} // already gone
}

function isPonder(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .some((a) => a.endsWith("ponder.js"));
  } catch {
    return false;
  }
}

type ChainStatus = { indexedBlock: string; lag: number | null };

describe("the supervisor's indexer watchdog", () => {
  it("restarts an indexer stuck behind a moving head, says so, and the index catches up", async () => {
    const env = {
      ...(await isolatedEnv()),
      LAUNCHPAD_ENV: "test",
      LAUNCHPAD_TEST_WATCHDOG_MS: String(STALL_MS),
      LOG_LEVEL: "warn",
    };
    stack = await startStack(env);
    const s = stack;
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${env.DEVNET_PORT}`) });
    const indexed = async () => {
      const res = await fetch(`${s.apiUrl}/v2/indexer/status`);
      const body = (await res.json()) as { data: { chains: ChainStatus[] } };
      const c = body.data.chains[0];
      return c ? Number(c.indexedBlock) : undefined;
    };
    const atHead = async (block: bigint) => {
      const at = await indexed().catch(() => undefined);
      return at !== undefined && at >= Number(block) ? at : undefined;
    };
    const started = await chain.getBlockNumber();
    await waitFor("the index at the head", async () => atHead(started), 120_000);

    frozen = s.tree().find(isPonder);
    if (!frozen) throw new Error("no ponder process");
    signal(frozen, "SIGSTOP");
    const frozenAt = await indexed();

    const line = await waitFor(
      "the watchdog's restart",
      async () => /\[launchpad\] watchdog: (.*); restarting the indexer/.exec(s.output())?.[1],
      120_000,
    );
    expect(line).toMatch(/stuck at block \d+ .*the head moved/);
    // The frozen Ponder is gone (its role's process group was ended), a new one indexes.
    await waitFor(
      "the frozen ponder gone",
      async () => (s.tree().includes(frozen as number) ? undefined : true),
      60_000,
    );
    const head = await chain.getBlockNumber();
    expect(Number(head)).toBeGreaterThan(frozenAt ?? 0);
    await waitFor("the index back at the head", async () => atHead(head), 180_000).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}; the stack said:\n${s.output().slice(-4_000)}`);
      },
    );
    expect(s.tree().some(isPonder)).toBe(true);
    frozen = undefined;
  }, 420_000);
});
