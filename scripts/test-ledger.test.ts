import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  END,
  ledgerRows,
  ledgerTable,
  ledgerTimes,
  provesLine,
  START,
  spliceLedger,
  tierOf,
} from "./test-ledger.ts";

// tier: unit
// The ledger of docs/testing.md: every test file listed with its one line, its tier and its time
// from a vitest JSON report; a hand-written intro around the generated part is kept.

const root = mkdtempSync(join(tmpdir(), "ledger-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, text: string) {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("test ledger", () => {
  it("takes a file's one line from its `what:` comment, its first comment, or its first name", () => {
    expect(provesLine('import x from "y";\n// what: the thing works\nit("a", () => {});')).toBe(
      "the thing works",
    );
    expect(
      provesLine('import x from "y";\n\n// Rounds half to even. More words.\n// Second line.\n'),
    ).toBe("Rounds half to even");
    expect(provesLine('import x from "y";\ndescribe("the parser", () => {});')).toBe("the parser");
  });

  it("names the tier: said, else stack, component or unit by what the file starts", () => {
    expect(tierOf("// tier: long\nawait sharedStack();")).toBe("long");
    expect(tierOf("const { stack } = await sharedStack();")).toBe("stack");
    expect(tierOf("const db = await testPostgres();")).toBe("component");
    expect(tierOf("expect(add(1, 2)).toBe(3);")).toBe("unit");
  });

  it("lists every test file, with its time from the report or none, and shared suites by their describe", () => {
    file("a/one.test.ts", "// One proves a.\nit('x', () => {});\n");
    file("b/two.test.ts", "// Two never ran.\n");
    file("test/s/x.suite.ts", "// A shared suite.\n");
    file("test/shared.test.ts", 'await import("./s/x.suite.ts");\n');
    const rows = ledgerRows(
      {
        testResults: [
          {
            name: join(root, "a/one.test.ts"),
            startTime: 1_000,
            endTime: 3_500,
            status: "passed",
            assertionResults: [{ ancestorTitles: [], title: "x", status: "passed", duration: 5 }],
          },
          {
            name: join(root, "test/shared.test.ts"),
            startTime: 0,
            endTime: 9_000,
            status: "failed",
            assertionResults: [
              {
                ancestorTitles: ["x (test/s/x.suite.ts)"],
                title: "p",
                status: "passed",
                duration: 4_000,
              },
              {
                ancestorTitles: ["x (test/s/x.suite.ts)", "inner"],
                title: "q",
                status: "failed",
                duration: 1_000,
              },
            ],
          },
        ],
      },
      root,
    );
    expect(rows.map((r) => [r.path, r.tier, r.tests, r.failed, r.seconds])).toEqual([
      ["a/one.test.ts", "unit", 1, 0, 2.5],
      ["b/two.test.ts", "unit", undefined, 0, undefined],
      ["test/s/x.suite.ts", "stack", 2, 1, 5],
      ["test/shared.test.ts", "stack", 2, 1, 9],
    ]);
    // A file's own time with its hooks (test/reporters/file-times.ts, under another checkout's
    // root as CI writes it) wins over the report's first-to-last test: a stack booted in a
    // `beforeAll` is part of the file's cost.
    const own = ledgerRows({ testResults: [] }, root, {
      fileTimes: { "/elsewhere/clone/a/one.test.ts": 61.5 },
    });
    expect(own.find((r) => r.path === "a/one.test.ts")?.seconds).toBe(61.5);
    const table = ledgerTable(rows);
    const row = (...cells: string[]) =>
      new RegExp(
        `^\\| ${cells.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(" +\\| ")} +\\|$`,
        "m",
      );
    expect(table).toMatch(row("`a/one.test.ts`", "One proves a", "unit", "1", "2.5"));
    expect(table).toMatch(row("`b/two.test.ts`", "Two never ran", "unit", "-", "-"));
    expect(table).toMatch(
      row("`test/s/x.suite.ts`", "A shared suite", "stack", "2 (1 failed)", "5.0"),
    );
    // Padded as Biome formats Markdown tables: every line of the table equally long.
    const lines = table.split("\n").filter((l) => l.startsWith("|"));
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    // The sequencer reads the times back from the written ledger (files that never ran: none).
    expect(ledgerTimes(spliceLedger("# Tests\n", table))).toEqual(
      new Map([
        ["a/one.test.ts", 2.5],
        ["test/s/x.suite.ts", 5],
        ["test/shared.test.ts", 9],
      ]),
    );
    expect(ledgerTimes(table).size).toBe(0); // no markers: not a ledger
  });

  it("replaces only the part between the markers, and adds them once", () => {
    const first = spliceLedger("# Tests\n\nHand-written intro.\n", "TABLE 1");
    expect(first).toBe(`# Tests\n\nHand-written intro.\n\n${START}\n\nTABLE 1\n\n${END}\n`);
    const second = spliceLedger(`${first}\nA note after.\n`, "TABLE 2");
    expect(second).toBe(
      `# Tests\n\nHand-written intro.\n\n${START}\n\nTABLE 2\n\n${END}\n\nA note after.\n`,
    );
  });
});
