#!/usr/bin/env node
// The CLI is TypeScript run by Node's own type stripping (Node >= 22.18). `npm run` and `npx`
// put the project's Node 24 (the `node` devDependency) first on PATH.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `launchpad needs Node >= 22.18 (this is ${process.versions.node}); run it through npm or npx, which use the project's Node 24.`,
  );
  process.exit(1);
}
// Every role is a Node process that loads the same few hundred modules: V8's compile cache (in
// the OS temp directory, keyed by each file's content, so an edited file is compiled afresh)
// spares a stack's ten processes most of that work on every start after the first.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import("node:module");
enableCompileCache?.();
await import("../cli/main.ts");
