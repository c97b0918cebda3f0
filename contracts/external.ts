import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Abi, type Hex, keccak256 } from "viem";

const require = createRequire(import.meta.url);

/** npm build artifacts the devnet deploys unchanged. */
export const EXTERNAL_ARTIFACT_PATHS = {
  UniswapV2Factory: "@uniswap/v2-core/build/UniswapV2Factory.json",
  UniswapV2Pair: "@uniswap/v2-core/build/UniswapV2Pair.json",
  WETH9: "@uniswap/v2-periphery/build/WETH9.json",
  UniswapV2Router02: "@uniswap/v2-periphery/build/UniswapV2Router02.json",
  SafeL2: "@safe-global/safe-contracts/build/artifacts/contracts/SafeL2.sol/SafeL2.json",
  SafeProxyFactory:
    "@safe-global/safe-contracts/build/artifacts/contracts/proxies/SafeProxyFactory.sol/SafeProxyFactory.json",
  CompatibilityFallbackHandler:
    "@safe-global/safe-contracts/build/artifacts/contracts/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json",
  MultiSendCallOnly:
    "@safe-global/safe-contracts/build/artifacts/contracts/libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json",
} as const;

export type ExternalContractName = keyof typeof EXTERNAL_ARTIFACT_PATHS;

export type ExternalArtifact = { abi: Abi; bytecode: Hex };

/**
 * Reads one npm build artifact (waffle or hardhat format) and normalises its bytecode to 0x hex.
 *
 * @example
 * const { abi, bytecode } = loadExternalArtifact("UniswapV2Factory");
 */
export function loadExternalArtifact(name: ExternalContractName): ExternalArtifact {
  const path = EXTERNAL_ARTIFACT_PATHS[name];
  const json = JSON.parse(readFileSync(require.resolve(path), "utf8")) as {
    abi: Abi;
    bytecode?: string;
    evm?: { bytecode?: { object?: string } };
  };
  const raw = json.bytecode ?? json.evm?.bytecode?.object;
  if (!raw) throw new Error(`artifact ${path} has no bytecode`);
  return { abi: json.abi, bytecode: (raw.startsWith("0x") ? raw : `0x${raw}`) as Hex };
}

/**
 * keccak256 of the UniswapV2Pair creation code, checked against the hash the router's
 * `pairFor` hardcodes (a mismatch would make every router call target a wrong pair address).
 *
 * @example
 * const hash = pairInitCodeHash(); // 0x96e8ac42...
 */
export function pairInitCodeHash(): Hex {
  const hash = keccak256(loadExternalArtifact("UniswapV2Pair").bytecode);
  const router = loadExternalArtifact("UniswapV2Router02").bytecode.toLowerCase();
  if (!router.includes(hash.slice(2))) {
    throw new Error("UniswapV2Router02 does not embed the v2-core UniswapV2Pair init code hash", {
      cause: new Error(`expected ${hash} inside the router bytecode`),
    });
  }
  return hash;
}
