import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";

const dataDir = mkdtempSync(join(tmpdir(), "launchpad-renamed-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// A unit file or script written before four.meme's stand-in was `four-meme` keeps running until
// the next release: the old command and variable still work, each with one warning at start.
it("`launchpad launchpad-api` with LAUNCHPAD_API_PORT runs `four-meme`, warning of both names", async () => {
  const { code, stderr } = await runCli(["launchpad-api"], {
    LAUNCHPAD_DATA_DIR: dataDir,
    LAUNCHPAD_API_PORT: "4012",
  });
  // No devnet record in an empty data dir: the stand-in stops there, after reading its configuration.
  expect(code).toBe(1);
  expect(stderr).toContain(
    "launchpad: the command launchpad-api is renamed four-meme; the old name goes in the next release",
  );
  expect(stderr).toContain(
    "launchpad: LAUNCHPAD_API_PORT is renamed FOUR_MEME_API_PORT; the old name goes in the next release",
  );
  expect(stderr).toContain("no devnet deployment record");
  expect(stderr.match(/is renamed FOUR_MEME_API_PORT/g)).toHaveLength(1);
});
