import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkTree, sessionReferences } from "./check-history.ts";

// tier: unit
// The history check of `npm run lint`: a numbered work session in a tracked file is refused, a
// user's sign-in session is not.

const found = (text: string) => sessionReferences(text).map((f) => f.match);

describe("the session-number check", () => {
  it("catches a numbered session, in any case and form", () => {
    expect(found("the fresh-clone CI runs of session 20 took 653 s")).toEqual(["session 20"]);
    expect(found("Session 18's machine took 2.2 times the CPU-seconds")).toEqual(["Session 18"]);
    expect(found("the suite took 13-14 minutes on sessions 17-19")).toEqual(["sessions 17"]);
    expect(found("in sessions 17 and 18")).toEqual(["sessions 17"]);
    expect(found("**Third pass (session 15).**")).toEqual(["session 15"]);
    expect(found("until session 19 a pass ran every 500 ms")).toEqual(["session 19"]);
    expect(found("// measured in session #3")).toEqual(["session #3"]);
  });

  it("passes sign-in sessions", () => {
    expect(found("a SIWE session sets the principal")).toEqual([]);
    expect(found("the session cookie is HttpOnly")).toEqual([]);
    expect(found("every session of one wallet shares it")).toEqual([]);
    expect(found("sessions: until expiry (7 days), revoked ones too")).toEqual([]);
    expect(found('session: "24x7" as const')).toEqual([]);
    expect(found("a session 7 days long, a nonce session 10 min")).toEqual([]);
  });

  it("names the file and line of each finding across a git tree, skipping binaries", () => {
    const root = mkdtempSync(join(tmpdir(), "history-"));
    try {
      execFileSync("git", ["init", "-q"], { cwd: root });
      writeFileSync(join(root, "a.md"), "# A\n\nThe figure of session 20.\n");
      writeFileSync(join(root, "b.ts"), "// a SIWE session cookie\n");
      writeFileSync(join(root, "c.bin"), "session 20\0binary");
      execFileSync("git", ["add", "."], { cwd: root });
      expect(checkTree(root)).toEqual(['a.md:3: "session 20" in: The figure of session 20.']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
