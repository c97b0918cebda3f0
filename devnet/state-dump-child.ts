// `node devnet/state-dump-child.ts dump <rpcUrl> <path> [timeoutMs]`: one state dump, and
// `node devnet/state-dump-child.ts adopt <path>`: adopts anvil's exit dump (state-file.ts).
// Both parse anvil's dump (tens to hundreds of MB of JSON); in the long-lived supervisor that
// left its memory growing by about 130 MB an hour and at 350 MB after a restart of anvil. A
// process that exits returns all of it. Prints its result as JSON.
import { adoptExitDump, dumpStateSized } from "./state-file.ts";

const [mode, ...args] = process.argv.slice(2);
if (mode === "dump" && args[0] && args[1]) {
  const sizes = await dumpStateSized(args[0], args[1], args[2] ? Number(args[2]) : undefined);
  process.stdout.write(JSON.stringify(sizes));
} else if (mode === "adopt" && args[0]) {
  const head = await adoptExitDump(args[0]);
  process.stdout.write(JSON.stringify({ head: head ?? null }));
} else {
  process.stderr.write(
    "usage: state-dump-child.ts dump <rpcUrl> <path> [timeoutMs] | adopt <path>\n",
  );
  process.exit(2);
}
