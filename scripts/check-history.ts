// `npm run lint:history` (part of `npm run lint`): fails on a reference to a numbered work
// session ("session 20", "Session 18's machine", "sessions 17-19") in any tracked file. The docs
// and comments say what is; how it came to be is in `git log`. A user's sign-in session ("a SIWE
// session", "session cookie", "sessions of one wallet") is the product's own word and passes:
// only "session" or "sessions" followed by a number is refused, and not a duration ("a session
// 7 days long").
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** "session 20", "Session 18's", "sessions 17-19", "sessions 17 and 18", "session #3". */
const SESSION_NUMBER =
  /\bsessions?[ \t]+#?\d+(?![\d.,]*[ \t]*(?:ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?|days?|weeks?)\b)/gi;

/** This check and its test hold the phrases they refuse. */
const EXEMPT = new Set(["scripts/check-history.ts", "scripts/check-history.test.ts"]);

export type Finding = { line: number; text: string; match: string };

/** Every "session N" reference in `text`, with its 1-based line. */
export function sessionReferences(text: string): Finding[] {
  const out: Finding[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    for (const m of line.matchAll(SESSION_NUMBER))
      out.push({ line: i + 1, text: line.trim(), match: m[0] });
  }
  return out;
}

/** Tracked files (`git ls-files`), less the exempt ones and anything binary. */
function trackedTextFiles(root: string): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  return listed
    .split("\0")
    .filter((f) => f && !EXEMPT.has(f))
    .map((f) => join(root, f));
}

/** Findings across the tree, as `path:line: text`. */
export function checkTree(root = ROOT): string[] {
  const out: string[] = [];
  for (const file of trackedTextFiles(root)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // listed but absent (deleted in the work tree, or an LFS pointer's target)
    }
    if (text.includes("\0")) continue;
    for (const f of sessionReferences(text))
      out.push(`${relative(root, file)}:${f.line}: "${f.match}" in: ${f.text.slice(0, 160)}`);
  }
  return out;
}

if (process.argv[1] === import.meta.filename) {
  const found = checkTree();
  if (found.length > 0) {
    console.error(
      `lint:history: ${found.length} reference(s) to a numbered work session; say what is (history is in git log):`,
    );
    for (const f of found) console.error(`  ${f}`);
    process.exit(1);
  }
}
