import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../lib/local/net.ts";
import { isolatedEnv, runCli } from "./helpers/cli.ts";

// Each malformed setting stops `launchpad start` before it starts anything, with one line
// naming the variable and a non-zero exit.
describe("launchpad start with a bad configuration", () => {
  let occupied: Server;
  let busyPort: number;
  beforeAll(async () => {
    busyPort = await freePort();
    occupied = createServer();
    await new Promise<void>((r) => occupied.listen(busyPort, "127.0.0.1", r));
  });
  afterAll(() => occupied.close());

  const cases: [string, () => Record<string, string>, RegExp][] = [
    [
      "a malformed address",
      () => ({ TOKEN_MANAGER_ADDRESS: "0x1234" }),
      /^launchpad: TOKEN_MANAGER_ADDRESS: must be a 20-byte hex address/,
    ],
    ["a malformed port", () => ({ PORT: "eighty" }), /^launchpad: PORT: must be a port number/],
    [
      "an API port in use",
      () => ({ PORT: String(busyPort) }),
      // The holder is named: here the test process itself.
      new RegExp(
        `^launchpad: PORT: 127\\.0\\.0\\.1:\\d+ is already in use \\(LISTEN by pid ${process.pid}: `,
      ),
    ],
    [
      "an indexer port in use",
      () => ({ PONDER_PORT: String(busyPort) }),
      /^launchpad: PONDER_PORT: .* is already in use/,
    ],
    [
      "a devnet port in use",
      () => ({ DEVNET_PORT: String(busyPort) }),
      /^launchpad: DEVNET_PORT: .* is already in use/,
    ],
    [
      "an unreachable DATABASE_URL",
      () => ({ DATABASE_URL: `postgres://x:y@127.0.0.1:${busyPort}/db` }),
      /^launchpad: DATABASE_URL: cannot connect/,
    ],
    // Token terms four.meme's create API would refuse at every launch.
    [
      "a tax rate four.meme does not offer",
      () => ({ TOKEN_TAX_FEE_RATE: "2" }),
      /^launchpad: TOKEN_TAX_FEE_RATE: feeRate must be one of 1, 3, 5, 10/,
    ],
    [
      "tax shares that do not sum to 100",
      () => ({ TOKEN_TAX_RECIPIENT_RATE: "90" }),
      /^launchpad: TOKEN_TAX_RECIPIENT_RATE: .*must equal 100/,
    ],
    [
      "a dividend threshold not of the form d x 10^n",
      () => ({ TOKEN_TAX_MIN_SHARING: "150000" }),
      /^launchpad: TOKEN_TAX_MIN_SHARING: minSharing must be d x 10\^n/,
    ],
    [
      "a Steward URL without its tenant id",
      () => ({
        STEWARD_URL: "https://steward.example",
        STEWARD_API_KEY: "stw_0123456789abcdef",
        STEWARD_WEBHOOK_SECRET: "whsec_0123456789abcdef",
      }),
      /^launchpad: STEWARD_TENANT_ID: must be set with STEWARD_URL/,
    ],
    [
      "a Steward URL without its tenant key",
      () => ({
        STEWARD_URL: "https://steward.example",
        STEWARD_TENANT_ID: "launchpad",
        STEWARD_WEBHOOK_SECRET: "whsec_0123456789abcdef",
      }),
      /^launchpad: STEWARD_API_KEY: must be set with STEWARD_URL/,
    ],
    [
      "an RPC URL that is not http",
      () => ({ BSC_RPC_URL: "ftp://node.example" }),
      /^launchpad: BSC_RPC_URL: /,
    ],
  ];

  it.each(cases)("%s", async (_name, vars, message) => {
    const env = { ...(await isolatedEnv()), ...vars() };
    const result = await runCli(["start"], env);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});

// Production: a role that writes or announces the API's URL refuses to start without the public
// one (a worker would write http://127.0.0.1:3001/... into an agent's on-chain identity for good).
describe("a production role without PUBLIC_BASE_URL", () => {
  const production = async () => ({
    ...(await isolatedEnv()),
    LAUNCHPAD_ENV: "production",
    STEWARD_WEBHOOK_SECRET: "whsec_0123456789abcdef",
    CLOUD_WEBHOOK_SECRET: "whsec_0123456789abcdef",
    CODE_HOST_WEBHOOK_SECRET: "whsec_0123456789abcdef",
    AGENT_EVENTS_WEBHOOK_SECRET: "whsec_0123456789abcdef",
  });

  it.each(["start", "api", "worker", "web"])("launchpad %s refuses in one line", async (role) => {
    const result = await runCli([role], await production());
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^launchpad: PUBLIC_BASE_URL: must be set in production: /);
  });

  it.each(["api", "worker"])(
    "launchpad %s refuses without SECRETS_KEY, which every API and worker must share",
    async (role) => {
      const env = { ...(await production()), PUBLIC_BASE_URL: "https://api.example.com" };
      const result = await runCli([role], env);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toMatch(
        /^launchpad: SECRETS_KEY: must be set in production, the same on every API and worker/,
      );
    },
  );

  it("the indexer, which announces no URL, does not ask for it", async () => {
    const busy = await freePort();
    const env = { ...(await production()), DATABASE_URL: `postgres://x:y@127.0.0.1:${busy}/db` };
    const result = await runCli(["indexer"], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toContain("PUBLIC_BASE_URL");
  });
});

describe("launchpad --help", () => {
  it("lists every role, and each command has its own help", async () => {
    const top = await runCli(["--help"], {});
    expect(top.code).toBe(0);
    for (const cmd of ["start", "api", "worker", "indexer", "devnet", "web"])
      expect(top.stdout).toContain(cmd);
    const devnet = await runCli(["devnet", "--help"], {});
    expect(devnet.stdout).toMatch(/info/);
    expect(devnet.stdout).toMatch(/seed/);
  });
});
