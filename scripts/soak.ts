// `npm run soak [-- --minutes 120 --trade-ms 2000 --launch-minutes 5 --reads-per-s 5 --log f]`
// Runs the whole stack (`launchpad start`, 1-second blocks) in a temp data dir under steady
// load — curve trades, a service-token launch every few minutes, API reads — and prints every
// minute: the devnet state file's size, the memory of anvil, Postgres and each role, the
// indexer's lag and the reads' p99. At the end, the slope per hour of each figure (did
// anything grow without bound?), role restarts, and the state file against its stated limit.
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Address, type LocalAccount, parseEther } from "viem";
import { readDeploymentRecord } from "../devnet/record.ts";
import { buyCall, sellCall, transferCall } from "../devnet/storyline/calls.ts";
import { runStoryline } from "../devnet/storyline/run.ts";
import { createServiceTokens } from "../devnet/storyline/tokens.ts";
import { storyWorld } from "../devnet/storyline/world.ts";
import { isolatedEnv, startStack } from "../test/helpers/cli.ts";
import { fitSlope, percentile, rssKb, type SoakSample, soakTable } from "./soak-report.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    "trade-ms": { type: "string", default: "2000" },
    "launch-minutes": { type: "string", default: "5" },
    "reads-per-s": { type: "string", default: "5" },
    "sample-s": { type: "string", default: "60" },
    keep: { type: "boolean", default: false },
    /** Write the stack's whole output here at the end (what a restarted role printed). */
    log: { type: "string" },
  },
});
const MINUTES = Number(values.minutes);
const TRADE_MS = Number(values["trade-ms"]);
const LAUNCH_MS = Number(values["launch-minutes"]) * 60_000;
const READ_MS = 1000 / Number(values["reads-per-s"]);
const SAMPLE_MS = Number(values["sample-s"]) * 1000;
/**
 * Stated in advance: the state file stays under this. What it holds grows with transactions
 * (each kept with its receipt) and with anvil's system-contract ring buffers (EIP-2935/4788,
 * 8191 blocks), not with the number of empty blocks.
 */
const STATE_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

// The soak's reads and status polls come from one address, far past the anonymous 60/min: with
// the limit on, most answers were 429s and the read and lag figures measured the limiter.
const env = {
  ...(await isolatedEnv()),
  DEVNET_BLOCK_TIME: "1",
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "0",
};
const dataDir = env.LAUNCHPAD_DATA_DIR;
const statePath = join(dataDir, "devnet", "state.json");
process.stdout.write(`soak: ${MINUTES} min, data dir ${dataDir}\n`);
const stack = await startStack(env);
// Ctrl-C (or a kill) of the soak stops the stack it started, not only the soak.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stack.stop("SIGINT").finally(() => process.exit(130)));
}
const api = stack.apiUrl;
const rpcUrl = `http://127.0.0.1:${env.DEVNET_PORT}`;
const record = readDeploymentRecord(dataDir);
if (!record) throw new Error("no deployment record");
const contracts = record.contracts;

// Setup: the storyline's tokens, trades, a graduation and deposit launches.
const story = await runStoryline({
  rpcUrl,
  record,
  seed: 1,
  tokens: 3,
  trades: 20,
  traders: 4,
  dexSwaps: 2,
  parallel: true,
  safeTreasury: false,
  unregistered: false,
});
const curveTokens = story.tokens.filter((t) => t !== story.graduatedToken);
const world = storyWorld({ rpcUrl, record, seed: 2, pollingInterval: 250 });
const traders = [0, 1, 2, 3].map((i) => world.account(`soak-trader${i}`));
for (const t of traders)
  await world.test.setBalance({ address: t.address, value: parseEther("1000000") });

let stopping = false;
const counts = { trades: 0, refused: 0, launches: 0, readErrors: 0 };
let readLatencies: number[] = [];
const lagSamples: number[] = [];

async function tradeLoop(trader: LocalAccount, offsetMs: number) {
  await sleep(offsetMs);
  const c = contracts;
  const friend = world.account("soak-friend").address;
  for (let k = 0; !stopping; k++) {
    const started = Date.now();
    const token = curveTokens[k % curveTokens.length] as Address;
    try {
      if (k % 5 === 3) {
        const held = await world.balanceOf(token, trader.address);
        await world.send(trader, sellCall(c, token, (held / 3n / 10n ** 9n) * 10n ** 9n));
      } else if (k % 5 === 4) {
        const held = await world.balanceOf(token, trader.address);
        await world.send(trader, transferCall(token, friend, (held / 10n / 10n ** 9n) * 10n ** 9n));
      } else {
        await world.send(trader, buyCall(c, token, parseEther("0.001")));
      }
      counts.trades++;
    } catch {
      counts.refused++;
    }
    await sleep(Math.max(0, TRADE_MS * traders.length - (Date.now() - started)));
  }
}

async function launchLoop() {
  for (let i = 0; !stopping; i++) {
    await sleep(LAUNCH_MS);
    if (stopping) return;
    const creator = world.account(`soak-creator${i}`);
    await world.test.setBalance({ address: creator.address, value: parseEther("10") });
    try {
      const [token] = await createServiceTokens(world, {
        creators: [{ account: creator, register: true }],
        seed: 100 + i,
        safeTreasury: false,
        parallel: false,
        name: () => ({ name: `Soak ${i}`, symbol: `SOAK${i}` }),
      });
      if (token) curveTokens.push(token);
      counts.launches++;
    } catch (error) {
      process.stdout.write(`launch ${i} failed: ${String(error)}\n`);
    }
  }
}

async function readLoop() {
  const paths = () => {
    const t = curveTokens[Math.floor(Math.random() * curveTokens.length)];
    return ["/tokens", `/tokens/${t}`, `/tokens/${t}/trades`, "/v2/agents", "/v2/indexer/status"];
  };
  for (let k = 0; !stopping; k++) {
    const list = paths();
    const path = list[k % list.length] as string;
    const started = performance.now();
    try {
      const res = await fetch(`${api}${path}`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      // Any answer but 200 is an error here: a 429 or a 5xx would make the latency meaningless.
      if (res.status !== 200) counts.readErrors++;
    } catch {
      counts.readErrors++;
    }
    readLatencies.push(performance.now() - started);
    await sleep(READ_MS);
  }
}

async function lagLoop() {
  while (!stopping) {
    const lag = await indexerLag();
    if (lag !== undefined) lagSamples.push(lag);
    await sleep(1_000);
  }
}

async function indexerLag(): Promise<number | undefined> {
  try {
    const res = await fetch(`${api}/v2/indexer/status`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { data?: { chains?: { lag: number | null }[] } };
    return body.data?.chains?.[0]?.lag ?? undefined;
  } catch {
    return undefined;
  }
}

/** RSS (KiB) of anvil, Postgres (all its processes) and each role, from the supervisor's tree. */
function memory(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of stack.tree()) {
    let cmd: string[];
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {
      continue;
    }
    const name = cmd.some((a) => a.endsWith("/anvil"))
      ? "anvil"
      : cmd.some((a) => a.includes("postgres"))
        ? "postgres"
        : cmd.some((a) => a.endsWith("ponder.js"))
          ? "ponder"
          : cmd.some((a) => a.endsWith("launchpad.js"))
            ? cmd[cmd.length - 1] === "start"
              ? "supervisor"
              : (cmd[cmd.length - 1] ?? "?")
            : undefined;
    if (!name) continue;
    out[name] = (out[name] ?? 0) + rssKb(pid);
  }
  return out;
}

const samples: SoakSample[] = [];
const started = Date.now();
const loops = [
  ...traders.map((t, i) => tradeLoop(t, (i * TRADE_MS) % (TRADE_MS * traders.length))),
  launchLoop(),
  readLoop(),
  lagLoop(),
];
process.stdout.write("soak: load running\n");
let lagFrom = 0;
while (Date.now() - started < MINUTES * 60_000) {
  await sleep(Math.min(SAMPLE_MS, started + MINUTES * 60_000 - Date.now()));
  const head = await world.client.getBlockNumber().catch(() => undefined);
  const lagWindow = lagSamples.slice(lagFrom);
  lagFrom = lagSamples.length;
  const sample: SoakSample = {
    minute: (Date.now() - started) / 60_000,
    block: head === undefined ? null : Number(head),
    stateBytes: safeSize(statePath),
    rssKb: memory(),
    lagP99: lagWindow.length ? percentile(lagWindow, 0.99) : null,
    readP99Ms: readLatencies.length ? percentile(readLatencies, 0.99) : null,
    trades: counts.trades,
  };
  readLatencies = [];
  samples.push(sample);
  process.stdout.write(`${soakTable([sample], samples.length === 1)}\n`);
}
stopping = true;
await Promise.race([Promise.all(loops), sleep(15_000)]);

// Each role restart, named: "<role> exited (...); restarting" or the watchdog's restart.
const restartLines = stack
  .output()
  .split("\n")
  .filter((l) => /restarting/.test(l));
const restarts = restartLines.length;
const watchdog = (stack.output().match(/watchdog/g) ?? []).length;
// Not a role restart: the devnet sheds anvil's old blocks and traces by design.
const anvilRestartLines = stack
  .output()
  .split("\n")
  .filter((l) => /restarted anvil from the state file/.test(l));
const anvilRestarts = anvilRestartLines.length;
const skip = Math.min(2, Math.max(0, samples.length - 3)); // the first minutes set things up
const tail = samples.slice(skip);
const slopes: Record<string, number | null> = {
  "state MB/h": fitSlope(tail.map((s) => [s.minute / 60, s.stateBytes / 1e6])),
  "lag p99 blocks/h": fitSlope(tail.map((s) => [s.minute / 60, s.lagP99 ?? 0])),
  "read p99 ms/h": fitSlope(tail.map((s) => [s.minute / 60, s.readP99Ms ?? 0])),
};
for (const name of Object.keys(tail.at(-1)?.rssKb ?? {})) {
  slopes[`${name} MB/h`] = fitSlope(tail.map((s) => [s.minute / 60, (s.rssKb[name] ?? 0) / 1024]));
}
const lastState = samples.at(-1)?.stateBytes ?? 0;
process.stdout.write(
  `\nslopes per hour (from minute ${tail[0]?.minute.toFixed(1)}):\n${Object.entries(slopes)
    .map(([k, v]) => `  ${k.padEnd(22)} ${v === null ? "-" : v.toFixed(2)}`)
    .join("\n")}\n` +
    `indexer lag p99 over the run: ${lagSamples.length ? percentile(lagSamples, 0.99) : "-"} blocks (${lagSamples.length} samples, max ${Math.max(0, ...lagSamples)})\n` +
    `trades ${counts.trades} (refused ${counts.refused}), launches ${counts.launches}, read errors ${counts.readErrors}\n` +
    `role restarts ${restarts}, watchdog lines ${watchdog}, anvil restarts to shed history ${anvilRestarts}\n` +
    [...restartLines, ...anvilRestartLines].map((l) => `  ${l.trim()}\n`).join("") +
    `state file ${(lastState / 1e6).toFixed(2)} MB, limit ${(STATE_FILE_LIMIT_BYTES / 1e6).toFixed(0)} MB: ${lastState <= STATE_FILE_LIMIT_BYTES ? "under" : "OVER"}\n`,
);
await stack.stop("SIGINT");
if (values.log) writeFileSync(values.log, stack.output());
if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
process.exit(0);

function safeSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
