import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { compileStandardJson, loadBuild, readSources } from "../compile.ts";
import { DEFAULT_SALT, serviceSet } from "./service-set.ts";
import { standardJsonInput, verificationInput } from "./verify-input.ts";

const require = createRequire(import.meta.url);

// A block explorer verifies a contract by compiling the standard JSON input it is given and
// comparing the bytecode with the chain's. This does the same with solc-js: the input
// `launchpad deploy` writes must give the deployed bytecode byte for byte, metadata hash included.
describe("verification input", () => {
  it("compiles to the very bytecode the deployment sends", async () => {
    const build = await loadBuild();
    const input = standardJsonInput();
    expect(Object.keys(input.sources)).toEqual(
      expect.arrayContaining([
        ...Object.keys(readSources()),
        "@openzeppelin/contracts/access/Ownable.sol",
      ]),
    );
    const solc = require("solc") as { compile(input: string, callbacks: object): string };
    // No import callback: the input must be complete on its own, as an explorer receives it.
    const again = compileStandardJson(solc, input, readSources());
    for (const name of ["TokenDeployer", "LaunchFactory", "ServiceRegistry"]) {
      expect(again[name]?.bytecode, name).toBe(build.contracts[name]?.bytecode);
    }

    const set = serviceSet(build.contracts, {
      deployer: "0x00000000000000000000000000000000000000aa",
      salt: DEFAULT_SALT,
      router: "0x10ed43c718714eb63d5aa57b78b54704e256024e",
      pairInitCodeHash: "0x00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5",
      safeProxyFactory: "0x4e1dcf7ad4e460cfd30791ccc4f9c8a4f820ec67",
      safeSingleton: "0x29fcb43b46531bca003ddc8fcb67ffe91900c762",
      safeFallbackHandler: "0xfd0732dc9e303f09fcef3a7388ad10a83459ec99",
    });
    const v = verificationInput(set.launchFactory, build.solcLongVersion, input);
    expect(v.contractName).toBe("LaunchFactory.sol:LaunchFactory");
    // The init code the deployment sends is the bytecode followed by exactly these arguments.
    expect(set.launchFactory.initCode).toBe(
      `${build.contracts.LaunchFactory?.bytecode}${v.constructorArguments}`,
    );
  }, 120_000);
});
