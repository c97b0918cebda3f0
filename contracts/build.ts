// `npm run contracts:build`: compiles contracts/src afresh and writes the build shipped in the
// repository (contracts/build.json), which every start uses instead of running solc. Run it after
// changing a contract (with contracts/gen-abis.ts); contracts/compile.test.ts fails until then.
import { SHIPPED_BUILD, writeShippedBuild } from "./compile.ts";

await writeShippedBuild();
console.log("shipped build written to", SHIPPED_BUILD);
