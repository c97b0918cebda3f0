import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { PAGINATION } from "../limits.ts";
import {
  COMMON_ERRORS,
  dataResponses,
  errorResponse,
  flagQuery,
  oneOf,
  pageLimit,
} from "./schemas.ts";

describe("dataResponses", () => {
  it("is the {ok, data} answer, the route's own statuses and the common errors", () => {
    const Thing = z.object({ n: z.number() });
    const r = dataResponses("The thing", Thing, { 404: errorResponse("No such thing") });
    expect(Object.keys(r)).toEqual(["200", "400", "404", "429", "500", "503"]);
    expect(r[200].description).toBe("The thing");
    const schema = r[200].content["application/json"].schema;
    expect(schema.parse({ ok: true, data: { n: 1 } })).toEqual({ ok: true, data: { n: 1 } });
    expect(r[500]).toBe(COMMON_ERRORS[500]);
  });

  it("without statuses of its own, is the answer and the common errors", () => {
    expect(Object.keys(dataResponses("x", z.string()))).toEqual([
      "200",
      "400",
      "429",
      "500",
      "503",
    ]);
  });
});

describe("flagQuery", () => {
  const q = z.object({ f: flagQuery("a flag") });
  it("reads true and false, and leaves an absent flag undefined", () => {
    expect(q.parse({ f: "true" }).f).toBe(true);
    expect(q.parse({ f: "false" }).f).toBe(false);
    expect(q.parse({}).f).toBeUndefined();
    expect(q.safeParse({ f: "yes" }).success).toBe(false);
  });
});

describe("pageLimit", () => {
  const q = z.object({ limit: pageLimit("things") });
  it("defaults, and refuses (never clamps) a size outside 1..maxLimit", () => {
    expect(q.parse({}).limit).toBe(PAGINATION.defaultLimit);
    expect(q.parse({ limit: "1" }).limit).toBe(1);
    expect(q.safeParse({ limit: "0" }).success).toBe(false);
    expect(q.safeParse({ limit: String(PAGINATION.maxLimit + 1) }).success).toBe(false);
  });
});

describe("oneOf", () => {
  it("takes one of the values and names them all when refusing", () => {
    const sort = oneOf(["new", "volume"]);
    expect(sort.parse("volume")).toBe("volume");
    const r = sort.safeParse("old");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe("must be one of new, volume");
  });
});
