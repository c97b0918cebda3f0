import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJsonRecord, readOrCreateJson, writeJsonAtomic } from "./json-file.ts";

const dir = () => mkdtempSync(join(tmpdir(), "json-file-"));

describe("writeJsonAtomic / readJsonRecord", () => {
  it("round-trips a record, creating the folder and leaving no temporary file", () => {
    const path = join(dir(), "a", "b.json");
    writeJsonAtomic(path, { n: 1 });
    expect(readFileSync(path, "utf8")).toBe('{"n":1}');
    expect(readJsonRecord(path, "record")).toEqual({ n: 1 });
    expect(readdirSync(join(path, ".."))).toEqual(["b.json"]);
  });

  it("writes pretty JSON with a final newline, and private files as 0600", () => {
    const path = join(dir(), "s", "secret.json");
    writeJsonAtomic(path, { k: "v" }, { pretty: true, private: true });
    expect(readFileSync(path, "utf8")).toBe('{\n  "k": "v"\n}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("answers undefined for no file and throws naming an unreadable one", () => {
    const d = dir();
    expect(readJsonRecord(join(d, "none.json"), "record")).toBeUndefined();
    writeFileSync(join(d, "bad.json"), "{");
    expect(() => readJsonRecord(join(d, "bad.json"), "deployment record")).toThrow(
      /unreadable deployment record .*bad\.json/,
    );
  });
});

describe("readOrCreateJson", () => {
  it("creates the private file once and reads it back after", () => {
    const path = join(dir(), "secrets", "s.json");
    let made = 0;
    const make = () => ({ n: ++made });
    expect(readOrCreateJson(path, make)).toEqual({ n: 1 });
    expect(readOrCreateJson(path, make)).toEqual({ n: 1 });
    expect(made).toBe(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(path, ".."))).toEqual(["s.json"]);
  });
});
