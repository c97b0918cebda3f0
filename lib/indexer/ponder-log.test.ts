import { expect, it } from "vitest";
import { errorCause } from "../log-throttle.ts";
import { ponderErrorInLog } from "./ponder.ts";

it("reads the error of a Ponder warning so the role's throttle counts it by cause", () => {
  // The shape Ponder 0.17 writes with --log-format json when its database is away.
  const line = JSON.stringify({
    level: 40,
    time: 1_764_000_000_000,
    msg: "Failed database query",
    query: "migrate_sync",
    retry_count: 3,
    error: { type: "Error", message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" },
  });
  const failed = ponderErrorInLog(line);
  expect(failed?.msg).toBe("Failed database query");
  expect(errorCause(failed?.error)).toBe("database unreachable (ECONNREFUSED)");
  expect(ponderErrorInLog(JSON.stringify({ level: 30, msg: "Started live indexing" }))).toBe(
    undefined,
  );
  expect(ponderErrorInLog("plain text")).toBe(undefined);
});
