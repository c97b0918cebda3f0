// `node devnet/state-dump-child.ts <rpcUrl> <path>`: one state dump (state-file.ts), run in a
// process of its own by the devnet's periodic dumps. Parsing anvil's dump (tens of MB of JSON)
// in the long-lived supervisor left its memory growing by about 130 MB an hour; a process that
// exits returns all of it. Prints `{ bytes, rawBytes }` as JSON.
import { dumpStateSized } from "./state-file.ts";

const [rpcUrl, path, timeoutMs] = process.argv.slice(2);
if (!rpcUrl || !path) {
  process.stderr.write("usage: state-dump-child.ts <rpcUrl> <path> [timeoutMs]\n");
  process.exit(2);
}
const sizes = await dumpStateSized(rpcUrl, path, timeoutMs ? Number(timeoutMs) : undefined);
process.stdout.write(JSON.stringify(sizes));
