import { HTTPException } from "hono/http-exception";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql } from "../lib/db/client.ts";
import { toHttpError } from "./errors.ts";
import { startTestDatabase, type TestDatabase } from "./testing/postgres.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

describe("toHttpError", () => {
  it("a NUL character Postgres refuses is the client's 400, not a 500", async () => {
    const error = await db.sql`select ${"a\u0000b"}::text as t`.catch((e: unknown) => e);
    expect(toHttpError(error).status).toBe(400);
    expect(toHttpError(error).code).toBe("validation_failed");
    expect(toHttpError(error, "launch").code).toBe("INVALID_REQUEST");
    // Any other database failure stays an internal error.
    const other = await db.sql`select * from app.no_such_table`.catch((e: unknown) => e);
    expect(toHttpError(other).status).toBe(500);
  });

  it("the database down or in a lock conflict is a 503 with Retry-After, in both envelopes", async () => {
    const down = createSql("postgres://u:p@127.0.0.1:9/none", { max: 1 });
    const refused = await down`select 1`.catch((e: unknown) => e);
    await down.end({ timeout: 1 });
    const deadlock = Object.assign(new Error("deadlock detected"), {
      name: "PostgresError",
      code: "40P01",
    });
    const shutdown = Object.assign(new Error("terminating connection"), {
      name: "PostgresError",
      code: "57P01",
    });
    for (const e of [refused, deadlock, shutdown]) {
      const h = toHttpError(e);
      expect({ status: h.status, code: h.code, retryAfter: h.headers?.["Retry-After"] }).toEqual({
        status: 503,
        code: "unavailable",
        retryAfter: "2",
      });
      expect(toHttpError(e, "launch").code).toBe("ORCHESTRATOR_UNAVAIL");
    }
  });

  it("Hono's bare refusals keep their status in the envelope", () => {
    const media = toHttpError(new HTTPException(415, { message: "Unsupported Media Type" }));
    expect(media.code).toBe("unsupported_media_type");
    expect(media.message).toContain("Content-Type: application/json");
    expect(toHttpError(new HTTPException(400, { message: "Malformed JSON" })).status).toBe(400);
    expect(toHttpError(new HTTPException(413)).status).toBe(413);
  });
});
