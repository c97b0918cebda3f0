import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../api/testing/postgres.ts";
import { createXStandIn } from "../../devnet/stand-ins/x/server.ts";
import { type PollerSpec, pollerSpecs } from "../../jobs/pollers/worker.ts";
import { loadConfig } from "../../lib/config.ts";
import { X_PATHS } from "../../services/x/protocol.ts";
import { pollersEnv } from "./world.ts";

// what: The social poller never asks X for a persona handle X refuses (over 15 characters): one stored before the API checked it is left out of every round with one log line, and a poll job for it asks X nothing; a valid handle beside it is polled

const BEARER = "app-bearer-token-handles";
const LONG = "agent_long_handle_0123"; // 22 characters: the API took up to 32
let db: TestDatabase;
let server: ReturnType<typeof serve>;
let social: PollerSpec;
/** Usernames the poller asked X for. */
const asked: string[] = [];
const logged: { msg: string; agentId?: string; handle?: string }[] = [];

beforeAll(async () => {
  db = await startTestDatabase();
  const standIn = createXStandIn({
    clientId: "cid",
    clientSecret: "csecret-123",
    appToken: BEARER,
    log: pino({ level: "silent" }),
  });
  const xUrl = await new Promise<string>((r) => {
    server = serve(
      {
        fetch: (req) => {
          const path = new URL(req.url).pathname;
          if (path.startsWith(`${X_PATHS.userByUsername}/`))
            asked.push(decodeURIComponent(path.split("/").at(-1) as string));
          return standIn.fetch(req);
        },
        hostname: "127.0.0.1",
        port: 0,
      },
      (i: AddressInfo) => r(`http://127.0.0.1:${i.port}`),
    );
  });
  await fetch(`${xUrl}/stand-in/accounts`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "agent_ok", followers: 7 }),
  });
  for (const [agentId, handle] of [
    ["agent-ok", "agent_ok"],
    ["agent-long", LONG],
  ] as const) {
    await db.sql`insert into app.agents (agent_id, name) values (${agentId}, ${agentId})`;
    await db.sql`insert into app.agent_personas (agent_id, name, handle)
      values (${agentId}, ${agentId}, ${handle})`;
  }
  const env = pollersEnv({
    dataDir: mkdtempSync(join(tmpdir(), "launchpad-social-handle-")),
    databaseUrl: db.url,
    scale: "1",
    extra: {
      X_OAUTH_URL: xUrl,
      X_API_URL: xUrl,
      X_CLIENT_ID: "cid",
      X_CLIENT_SECRET: "csecret-123",
      X_BEARER_TOKEN: BEARER,
    },
  });
  const log = pino({ level: "info" }, { write: (line: string) => logged.push(JSON.parse(line)) });
  // The social poller as the worker schedules it: whom each round polls, and one agent's poll.
  const specs = pollerSpecs({
    boss: undefined as never,
    sql: db.sql,
    config: loadConfig(env, env.LAUNCHPAD_DATA_DIR as string),
    log,
  });
  social = specs.find((s) => s.name === "social") as PollerSpec;
}, 60_000);

afterAll(async () => {
  server?.close();
  await db?.stop();
});

it("leaves a stored handle X refuses out of every round, says so once, and never asks X for it", async () => {
  for (let round = 0; round < 3; round++) expect(await social.agents()).toEqual(["agent-ok"]);
  const told = logged.filter((l) => l.agentId === "agent-long");
  expect(told).toHaveLength(1);
  expect(told[0]).toMatchObject({ handle: LONG });
  expect(told[0]?.msg).toContain("1-15 letters, digits or _");

  // A job sent for it before (an older worker's round) asks X nothing and records no failure.
  await social.poll("agent-long");
  await social.poll("agent-ok");
  expect(asked).toEqual(["agent_ok"]);
  const state =
    await db.sql`select agent_id, failures from app.poller_state where poller = 'social'`;
  expect(state).toEqual([{ agent_id: "agent-ok", failures: 0 }]);
});
