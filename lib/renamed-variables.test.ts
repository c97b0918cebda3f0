import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const empty = mkdtempSync(join(tmpdir(), "launchpad-renamed-"));

describe("renamed variables", () => {
  it("the old name still works, with a warning naming the new one", () => {
    const warnings: string[] = [];
    const c = loadConfig(
      { LAUNCHPAD_API_URL: "https://four.meme/meme-api", LAUNCHPAD_API_PORT: "4012" },
      empty,
      (message) => warnings.push(message),
    );
    expect(c.FOUR_MEME_API_URL).toBe("https://four.meme/meme-api");
    expect(c.FOUR_MEME_API_PORT).toBe(4012);
    expect(warnings).toEqual([
      "LAUNCHPAD_API_URL is renamed FOUR_MEME_API_URL; the old name goes in the next release",
      "LAUNCHPAD_API_PORT is renamed FOUR_MEME_API_PORT; the old name goes in the next release",
    ]);
  });

  it("the new name wins where both are set; the old one still warns", () => {
    const warnings: string[] = [];
    const c = loadConfig({ FOUR_MEME_API_PORT: "5012", LAUNCHPAD_API_PORT: "4012" }, empty, (m) =>
      warnings.push(m),
    );
    expect(c.FOUR_MEME_API_PORT).toBe(5012);
    expect(warnings).toHaveLength(1);
  });

  it("the new names alone: no warning", () => {
    const warnings: string[] = [];
    loadConfig({ FOUR_MEME_API_PORT: "5012" }, empty, (m) => warnings.push(m));
    expect(warnings).toEqual([]);
  });
});
