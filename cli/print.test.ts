import { afterEach, describe, expect, it, vi } from "vitest";
import { printJson, printRows } from "./print.ts";

const written = () => {
  const spy = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  return () => spy.mock.calls.map((c) => String(c[0])).join("");
};
afterEach(() => vi.restoreAllMocks());

describe("printRows", () => {
  it("prints a line a row, or the empty text", () => {
    let out = written();
    printRows([{ n: 1 }, { n: 2 }], { none: "none", line: (r) => `#${r.n}` });
    expect(out()).toBe("#1\n#2\n");
    vi.restoreAllMocks();
    out = written();
    printRows([], { none: "no rows", line: () => "x" });
    expect(out()).toBe("no rows\n");
  });

  it("prints the list as indented JSON with json set", () => {
    const out = written();
    printRows([{ n: 1 }], { json: true, none: "none", line: () => "x" });
    expect(out()).toBe('[\n  {\n    "n": 1\n  }\n]\n');
  });

  it("printJson ends with a newline", () => {
    const out = written();
    printJson({ a: 1 });
    expect(out()).toBe('{\n  "a": 1\n}\n');
  });
});
