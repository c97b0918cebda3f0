import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../../lib/local/net.ts";
import { cleanEnv, ROOT } from "../../../test/helpers/cli.ts";

// `launchpad x` (the role `npm start` runs) keeps its accounts and posts in
// `<data dir>/x/state.json`: stopped, or SIGKILLed right after a post, and started again on
// the same data, it serves the same followers and timeline, `since_id` paging goes on, and new
// ids stay above every id handed out before.

const BEARER = "app-bearer-token-state";
const POST_TOKEN = "service-post-token-state";
let dataDir: string;
let env: Record<string, string>;
let url: string;
let role: { child: ChildProcess; exited: Promise<number | null> } | undefined;

async function startRole() {
  const child = spawn(process.execPath, [join(ROOT, "bin", "launchpad.js"), "x"], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) =>
    child.on("exit", (code, signal) => r(signal ? -1 : code)),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`${url}/stand-in/requests`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`launchpad x did not start\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  role = { child, exited };
}
async function stopRole(signal: NodeJS.Signals) {
  role?.child.kill(signal);
  await role?.exited;
  role = undefined;
}

const call = async (method: string, path: string, body?: unknown, token = BEARER) => {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.status).toBeLessThan(300);
  // biome-ignore lint/suspicious/noExplicitAny: X's JSON answers, read field by field below
  return (await r.json()) as any;
};
const post = async (text: string) =>
  (await call("POST", "/stand-in/accounts/agent_p/posts", { text })).data.id as string;
const timeline = async (userId: string, sinceId?: string) =>
  (
    (await call(
      "GET",
      `/2/users/${userId}/tweets?max_results=5${sinceId ? `&since_id=${sinceId}` : ""}`,
    )) as { data?: { id: string; text: string }[] }
  ).data?.map((p) => p.text) ?? [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "launchpad-x-state-"));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  env = {
    LAUNCHPAD_DATA_DIR: dataDir,
    X_PORT: String(port),
    X_BEARER_TOKEN: BEARER,
    X_POST_TOKEN: POST_TOKEN,
  };
  await startRole();
});
afterAll(async () => {
  await stopRole("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

it("a restarted X stand-in keeps accounts, followers, posts and since_id paging", async () => {
  const user = (await call("PUT", "/stand-in/accounts", { username: "agent_p", followers: 77 }))
    .data as { id: string };
  const one = await post("one");
  const two = await post("two");
  const announced = (await call("POST", "/2/tweets", { text: "announce" }, POST_TOKEN)).data.id;
  const statePath = join(dataDir, "x", "state.json");
  expect(existsSync(statePath)).toBe(true);
  expect(existsSync(`${statePath}.tmp`)).toBe(false);

  // A clean stop, then the role again on the same data.
  await stopRole("SIGTERM");
  await startRole();
  const again = await call("GET", "/2/users/by/username/agent_p?user.fields=public_metrics");
  expect(again.data).toMatchObject({
    id: user.id,
    username: "agent_p",
    public_metrics: { followers_count: 77, tweet_count: 2 },
  });
  expect(await timeline(user.id)).toEqual(["two", "one"]);
  expect(await timeline(user.id, one)).toEqual(["two"]);
  expect(await timeline(user.id, two)).toEqual([]);
  const tweets = (await call("GET", "/stand-in/tweets")).data as { id: string }[];
  expect(tweets.map((t) => t.id)).toEqual([announced]);

  // A new post after the restart is above every earlier id: the poller's since_id finds it.
  const three = await post("three");
  for (const earlier of [one, two, announced])
    expect(BigInt(three)).toBeGreaterThan(BigInt(earlier));
  expect(await timeline(user.id, two)).toEqual(["three"]);

  // SIGKILLed right after a post was acknowledged: the post was on disk before the answer.
  await call("PUT", "/stand-in/accounts", { username: "agent_p", followers: 80 });
  const four = await post("four");
  await stopRole("SIGKILL");
  await startRole();
  expect(await timeline(user.id, three)).toEqual(["four"]);
  expect((await timeline(user.id)).length).toBe(4);
  const after = await call("GET", "/2/users/by/username/agent_p?user.fields=public_metrics");
  expect(after.data.public_metrics).toMatchObject({ followers_count: 80, tweet_count: 4 });
  const saved = JSON.parse(readFileSync(statePath, "utf8")) as { next: string };
  expect(BigInt(saved.next)).toBeGreaterThan(BigInt(four));
}, 120_000);
