import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config.ts";
import { limitsLine } from "./supervisor.ts";

const dir = mkdtempSync(join(tmpdir(), "limits-"));

describe("the start banner's limits line", () => {
  it("states each limit, and names the variable of one turned off", () => {
    expect(limitsLine(loadConfig({}, dir))).toBe(
      "60/min per IP, 600/min per key, 10/min launches per key, 6000/min web app reads, 120/min pages per visitor",
    );
    const off = loadConfig(
      { RATE_LIMIT_PER_MINUTE: "0", RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "5000" },
      dir,
    );
    expect(limitsLine(off)).toBe(
      "per IP OFF (RATE_LIMIT_PER_MINUTE=0), 5000/min per key, 10/min launches per key, 6000/min web app reads, 120/min pages per visitor",
    );
  });
});
