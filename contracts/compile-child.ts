// `node contracts/compile-child.ts <sources.json> <out.json>`: compiles the Solidity sources in
// <sources.json> (path -> text) with solc-js and writes the artifacts to <out.json>. Run by
// compile.ts in a process of its own, so that solc's heap goes when it exits (`compile` there).
import { readFileSync, writeFileSync } from "node:fs";
import { compileSources } from "./compile.ts";

const [input, out] = process.argv.slice(2);
if (!input || !out) {
  process.stderr.write("usage: compile-child.ts <sources.json> <out.json>\n");
  process.exit(2);
}
try {
  const sources = JSON.parse(readFileSync(input, "utf8")) as Record<string, string>;
  writeFileSync(out, JSON.stringify(await compileSources(sources)));
} catch (error) {
  const cause =
    error instanceof Error && error.cause instanceof Error ? `\n${error.cause.message}` : "";
  process.stderr.write(`${String(error)}${cause}\n`);
  process.exit(1);
}
