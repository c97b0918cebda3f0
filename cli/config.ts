import { type Config, loadConfig } from "../lib/config.ts";

/**
 * The configuration a service role runs with. On the devnet the CLI reads the deployment record
 * (devnet/config.ts) and hands its addresses to this process and its children as environment
 * variables; on BSC nothing under devnet/ is loaded.
 */
export async function loadServiceConfig(): Promise<Config> {
  const config = loadConfig();
  if (!config.devnet) return config;
  const { devnetEnv } = await import("../devnet/config.ts");
  Object.assign(process.env, devnetEnv(config));
  return loadConfig();
}
