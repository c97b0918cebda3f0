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
await import("../cli/main.ts");
