import type { Address, HDAccount } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { DEVNET_MNEMONIC } from "./anvil.ts";

/** Address indexes of the service's roles on the devnet mnemonic. */
export const DEVNET_ROLE_INDEX = {
  /** Deploys every contract; owns the devnet's stand-ins of outside contracts. */
  deployer: 0,
  /** Funds agent wallets. */
  relayer: 1,
  /** four.meme's key (the stand-in's): signs createToken args. */
  launchpadSigner: 2,
  /**
   * Receives the protocol's trading and launch fees and the platform share of token taxes, and
   * owns the service's contracts after their deployment hands them over (a Safe on BSC).
   */
  platform: 3,
  /** Pushes BNB/USD answers to the feed. */
  feedUpdater: 4,
} as const;

export type DevnetRole = keyof typeof DEVNET_ROLE_INDEX;

/** Indexes reserved for external clients and tests; the service, deploy and seed never use them. */
export const DEVNET_EXTERNAL_INDEXES = [5, 6, 7, 8, 9] as const;

export type DevnetAccounts = Record<DevnetRole, HDAccount> & {
  /** Accounts 5..9, for external clients and tests only. */
  external: HDAccount[];
};

/**
 * Derives the devnet's role accounts from anvil's standard mnemonic.
 *
 * @example
 * const { deployer, launchpadSigner } = devnetAccounts();
 * await wallet.sendTransaction({ account: deployer, to, value });
 */
export function devnetAccounts(mnemonic: string = DEVNET_MNEMONIC): DevnetAccounts {
  const roles = Object.fromEntries(
    Object.entries(DEVNET_ROLE_INDEX).map(([role, addressIndex]) => [
      role,
      mnemonicToAccount(mnemonic, { addressIndex }),
    ]),
  ) as Record<DevnetRole, HDAccount>;
  const external = DEVNET_EXTERNAL_INDEXES.map((addressIndex) =>
    mnemonicToAccount(mnemonic, { addressIndex }),
  );
  return { ...roles, external };
}

/** Lowercase addresses of the roles and external accounts (the shape of the deployment record). */
export function devnetAccountAddresses(
  accounts: DevnetAccounts = devnetAccounts(),
): Record<DevnetRole, Address> & { external: Address[] } {
  const lower = (a: Address) => a.toLowerCase() as Address;
  return {
    deployer: lower(accounts.deployer.address),
    relayer: lower(accounts.relayer.address),
    launchpadSigner: lower(accounts.launchpadSigner.address),
    platform: lower(accounts.platform.address),
    feedUpdater: lower(accounts.feedUpdater.address),
    external: accounts.external.map((a) => lower(a.address)),
  };
}
