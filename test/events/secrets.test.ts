import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../lib/config.ts";
import { resolveWebhookSecrets } from "../../lib/webhooks/inbound/webhook-secrets.ts";
import { runCli } from "../helpers/cli.ts";

// Webhook secrets: required in production (every role refuses to start), generated once into
// the data directory in local mode, configured ones win.

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "webhook-secrets-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const all = {
  STEWARD_WEBHOOK_SECRET: "s".repeat(32),
  CLOUD_WEBHOOK_SECRET: "c".repeat(32),
  CODE_HOST_WEBHOOK_SECRET: "h".repeat(32),
  AGENT_EVENTS_WEBHOOK_SECRET: "a".repeat(32),
};

describe("webhook secrets", () => {
  it("production refuses to start without each one", async () => {
    for (const missing of Object.keys(all)) {
      const env = { ...all, [missing]: "", LAUNCHPAD_ENV: "production", LAUNCHPAD_DATA_DIR: tmp() };
      const r = await runCli(["api"], env);
      expect(r.code, missing).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^launchpad: ${missing}: must be set in production`));
    }
  });

  it("local mode generates unset ones once, shared by every role; configured ones win", () => {
    const dir = tmp();
    const a = resolveWebhookSecrets(loadConfig({ LAUNCHPAD_DATA_DIR: dir }, dir));
    const b = resolveWebhookSecrets(loadConfig({ LAUNCHPAD_DATA_DIR: dir }, dir));
    expect(b).toEqual(a);
    expect(new Set(Object.values(a)).size).toBe(4);
    const c = resolveWebhookSecrets(
      loadConfig(
        { LAUNCHPAD_DATA_DIR: dir, CODE_HOST_WEBHOOK_SECRET: all.CODE_HOST_WEBHOOK_SECRET },
        dir,
      ),
    );
    expect(c).toEqual({ ...a, codeHost: all.CODE_HOST_WEBHOOK_SECRET });
  });
});
