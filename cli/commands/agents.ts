import { Command } from "commander";
import { createAgent, revokeKeys, rotateKey, UnknownAgentError } from "../../lib/agents/keys.ts";
import { featureAgentByRef, MissingRecordError } from "../../lib/agents/records.ts";
import type { Sql } from "../../lib/db/client.ts";
import { withDatabase } from "../with-database.ts";

async function withDb<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  try {
    return await withDatabase(fn);
  } catch (error) {
    if (error instanceof UnknownAgentError || error instanceof MissingRecordError) {
      process.stderr.write(`launchpad: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

function expiry(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`--expires-at ${value} is not a date`);
  return d;
}

type IssuedKey = { agentId: string; apiKey: string; expiresAt: Date | null };

function printKey(k: IssuedKey, json?: boolean) {
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ agentId: k.agentId, apiKey: k.apiKey, scope: "launch:*", expiresAt: k.expiresAt?.toISOString() ?? null })}\n`,
    );
    return;
  }
  process.stdout.write(`agentId  ${k.agentId}\napiKey   ${k.apiKey}\n`);
  process.stdout.write("The key is shown once: store it now (only its hash is kept).\n");
}

/** Issues a key (a new agent's or a rotated one) with `--expires-at` and prints it once. */
async function issueKey(
  o: { expiresAt?: string; json?: boolean },
  issue: (sql: Sql, expiresAt: Date | undefined) => Promise<IssuedKey>,
) {
  const expiresAt = expiry(o.expiresAt);
  printKey(await withDb((sql) => issue(sql, expiresAt)), o.json);
}

/** `launchpad agents create --name <n> [--json] [--expires-at <iso>]`. */
export function agentsCommand(): Command {
  const agents = new Command("agents").description("register agents (operators)");
  agents
    .command("create")
    .description("register an agent and print its agentId and API key (shown once)")
    .requiredOption("--name <name>", "the agent's name (1-32 characters)")
    .option("--expires-at <date>", "key expiry (ISO 8601)")
    .option("--json", "print JSON")
    .action(async (o: { name: string; expiresAt?: string; json?: boolean }) => {
      if (o.name.length < 1 || o.name.length > 32)
        throw new Error("--name must be 1-32 characters");
      await issueKey(o, (sql, expiresAt) => createAgent(sql, { name: o.name, expiresAt }));
    });
  agents
    .command("feature")
    .description("make an agent the featured one (the previous one is unfeatured)")
    .argument("<id>", "agentId or token address")
    .action(async (id: string) => {
      const { changed } = await withDb((sql) =>
        featureAgentByRef(sql, id, { kind: "operator", id: "cli" }),
      );
      process.stdout.write(changed ? `featured ${id}\n` : `${id} is already featured\n`);
    });
  return agents;
}

/** `launchpad keys rotate|revoke --agent <id>`. */
export function keysCommand(): Command {
  const keys = new Command("keys").description("rotate or revoke agent API keys (operators)");
  keys
    .command("rotate")
    .description("issue a new key for the agent; every older key stops working at once")
    .requiredOption("--agent <id>", "agentId")
    .option("--expires-at <date>", "key expiry (ISO 8601)")
    .option("--json", "print JSON")
    .action(async (o: { agent: string; expiresAt?: string; json?: boolean }) => {
      await issueKey(o, (sql, expiresAt) => rotateKey(sql, { agentId: o.agent, expiresAt }));
    });
  keys
    .command("revoke")
    .description("revoke every key of the agent")
    .requiredOption("--agent <id>", "agentId")
    .action(async (o: { agent: string }) => {
      const n = await withDb((sql) => revokeKeys(sql, { agentId: o.agent }));
      process.stdout.write(`revoked ${n} key${n === 1 ? "" : "s"} of ${o.agent}\n`);
    });
  return keys;
}
