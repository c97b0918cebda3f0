import {
  type Account,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseEventLogs,
  toHex,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregatorV3Abi } from "../../abis/AggregatorV3.ts";
import { bnbUsdFeedAbi } from "../../abis/BnbUsdFeed.ts";
import { identityRegistryAbi } from "../../abis/IdentityRegistry.ts";
import { identityRegistryDevnetAbi } from "../../abis/IdentityRegistryDevnet.ts";
import { safeL2Abi } from "../../abis/SafeL2.ts";
import { safeProxyFactoryAbi } from "../../abis/SafeProxyFactory.ts";
import { devnetAccounts } from "../../devnet/accounts.ts";
import { MULTICALL3_ADDRESS } from "../../lib/chain.ts";
import { startTestChain, type TestChain } from "./helpers.ts";

const roles = devnetAccounts();
let t: TestChain;
let registry: Address;

beforeAll(async () => {
  t = await startTestChain();
  registry = t.record.contracts.identityRegistry;
});
afterAll(async () => {
  await t?.stop();
});

describe("ERC-8004 IdentityRegistry", () => {
  async function register(owner: Account, uri?: string) {
    const w = t.wallet(owner);
    const hash =
      uri === undefined
        ? await w.writeContract({
            address: registry,
            abi: identityRegistryAbi,
            functionName: "register",
          })
        : await w.writeContract({
            address: registry,
            abi: identityRegistryAbi,
            functionName: "register",
            args: [uri],
          });
    const receipt = await t.mined(hash);
    const [ev] = parseEventLogs({
      abi: identityRegistryAbi,
      logs: receipt.logs,
      eventName: "Registered",
    });
    if (!ev) throw new Error("no Registered");
    return { agentId: ev.args.agentId, receipt };
  }

  const walletOf = (agentId: bigint) =>
    t.publicClient.readContract({
      address: registry,
      abi: identityRegistryAbi,
      functionName: "getAgentWallet",
      args: [agentId],
    });

  async function walletSignature(p: {
    agentId: bigint;
    newWallet: Account;
    owner: Address;
    deadline: bigint;
  }) {
    if (!p.newWallet.signTypedData) throw new Error("local account expected");
    return p.newWallet.signTypedData({
      domain: {
        name: "ERC8004IdentityRegistry",
        version: "1",
        chainId: t.record.chainId,
        verifyingContract: registry,
      },
      types: {
        AgentWalletSet: [
          { name: "agentId", type: "uint256" },
          { name: "newWallet", type: "address" },
          { name: "owner", type: "address" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "AgentWalletSet",
      message: {
        agentId: p.agentId,
        newWallet: p.newWallet.address,
        owner: p.owner,
        deadline: p.deadline,
      },
    });
  }

  const now = async () => (await t.publicClient.getBlock()).timestamp;

  it("register() mints, sets agentWallet to the owner and emits Transfer, MetadataSet, Registered", async () => {
    const owner = await t.fundedAccount("1");
    const { agentId, receipt } = await register(owner);
    const logs = parseEventLogs({ abi: identityRegistryAbi, logs: receipt.logs });
    const names = logs.map((l) => l.eventName).filter((n) => n !== "MetadataUpdate");
    expect(names).toEqual(["Transfer", "MetadataSet", "Registered"]);
    const set = logs.find((l) => l.eventName === "MetadataSet");
    expect(set?.eventName === "MetadataSet" && set.args.metadataKey).toBe("agentWallet");
    expect(set?.eventName === "MetadataSet" && set.args.metadataValue).toBe(
      owner.address.toLowerCase(),
    );
    expect(
      await t.publicClient.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "ownerOf",
        args: [agentId],
      }),
    ).toBe(owner.address);
    expect(await walletOf(agentId)).toBe(owner.address);
    // Ids count up from the last one.
    const second = await register(owner, "ipfs://agent-2");
    expect(second.agentId).toBe(agentId + 1n);
    expect(
      await t.publicClient.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "tokenURI",
        args: [second.agentId],
      }),
    ).toBe("ipfs://agent-2");
  });

  it("register(uri, metadata[]) stores metadata; the agentWallet key is reserved everywhere", async () => {
    const owner = await t.fundedAccount("1");
    const w = t.wallet(owner);
    const receipt = await t.mined(
      await w.writeContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "register",
        args: [
          "https://agent.example/registration.json",
          [{ metadataKey: "treasury", metadataValue: "0x1234" }],
        ],
      }),
    );
    const [ev] = parseEventLogs({
      abi: identityRegistryAbi,
      logs: receipt.logs,
      eventName: "Registered",
    });
    const agentId = ev?.args.agentId ?? -1n;
    expect(ev?.args.agentURI).toBe("https://agent.example/registration.json");
    expect(ev?.args.owner).toBe(owner.address);
    const metadataEvents = parseEventLogs({
      abi: identityRegistryAbi,
      logs: receipt.logs,
      eventName: "MetadataSet",
    });
    expect(metadataEvents.map((e) => e.args.metadataKey)).toEqual(["agentWallet", "treasury"]);
    expect(
      await t.publicClient.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "getMetadata",
        args: [agentId, "treasury"],
      }),
    ).toBe("0x1234");
    await t.mined(
      await w.writeContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "setMetadata",
        args: [agentId, "treasury", "0xabcd"],
      }),
    );
    expect(
      await t.publicClient.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "getMetadata",
        args: [agentId, "treasury"],
      }),
    ).toBe("0xabcd");
    await expect(
      w.writeContract({
        address: registry,
        abi: identityRegistryDevnetAbi,
        functionName: "setMetadata",
        args: [agentId, "agentWallet", "0x00"],
      }),
    ).rejects.toThrow(/ReservedKey/);
    await expect(
      w.writeContract({
        address: registry,
        abi: identityRegistryDevnetAbi,
        functionName: "register",
        args: ["x", [{ metadataKey: "agentWallet", metadataValue: "0x00" }]],
      }),
    ).rejects.toThrow(/ReservedKey/);
    const stranger = await t.fundedAccount("1");
    await expect(
      t.wallet(stranger).writeContract({
        address: registry,
        abi: identityRegistryDevnetAbi,
        functionName: "setMetadata",
        args: [agentId, "treasury", "0x"],
      }),
    ).rejects.toThrow(/NotAuthorized/);
  });

  it("setAgentURI updates the token URI and emits URIUpdated; only the owner may", async () => {
    const owner = await t.fundedAccount("1");
    const { agentId } = await register(owner);
    const receipt = await t.mined(
      await t.wallet(owner).writeContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "setAgentURI",
        args: [agentId, "ipfs://new"],
      }),
    );
    const [ev] = parseEventLogs({
      abi: identityRegistryAbi,
      logs: receipt.logs,
      eventName: "URIUpdated",
    });
    expect(ev?.args).toEqual({ agentId, newURI: "ipfs://new", updatedBy: owner.address });
    expect(
      await t.publicClient.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "tokenURI",
        args: [agentId],
      }),
    ).toBe("ipfs://new");
    const stranger = await t.fundedAccount("1");
    await expect(
      t.wallet(stranger).writeContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "setAgentURI",
        args: [agentId, "x"],
      }),
    ).rejects.toThrow();
  });

  it("setAgentWallet needs the new wallet's EIP-712 signature and a near deadline; unset and transfer clear it", async () => {
    const owner = await t.fundedAccount("1");
    const newWallet = await t.fundedAccount("1");
    const impostor = await t.fundedAccount("1");
    const { agentId } = await register(owner);
    const w = t.wallet(owner);
    const deadline = (await now()) + 120n;
    const good = await walletSignature({ agentId, newWallet, owner: owner.address, deadline });
    const set = (wallet: Address, d: bigint, sig: Hex) =>
      w.writeContract({
        address: registry,
        abi: identityRegistryDevnetAbi,
        functionName: "setAgentWallet",
        args: [agentId, wallet, d, sig],
      });
    // Signed by someone else than the new wallet.
    const bad = await walletSignature({
      agentId,
      newWallet: impostor,
      owner: owner.address,
      deadline,
    });
    await expect(set(newWallet.address, deadline, bad)).rejects.toThrow(/InvalidWalletSignature/);
    // Signature bound to the deadline.
    await expect(set(newWallet.address, deadline + 1n, good)).rejects.toThrow(
      /InvalidWalletSignature/,
    );
    const far = (await now()) + 3600n;
    await expect(
      set(
        newWallet.address,
        far,
        await walletSignature({ agentId, newWallet, owner: owner.address, deadline: far }),
      ),
    ).rejects.toThrow(/DeadlineTooFar/);
    const past = (await now()) - 1n;
    await expect(
      set(
        newWallet.address,
        past,
        await walletSignature({ agentId, newWallet, owner: owner.address, deadline: past }),
      ),
    ).rejects.toThrow(/DeadlineExpired/);
    const receipt = await t.mined(await set(newWallet.address, deadline, good));
    const [ev] = parseEventLogs({
      abi: identityRegistryAbi,
      logs: receipt.logs,
      eventName: "MetadataSet",
    });
    expect(ev?.args.metadataValue).toBe(newWallet.address.toLowerCase());
    expect(await walletOf(agentId)).toBe(newWallet.address);

    await t.mined(
      await w.writeContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "unsetAgentWallet",
        args: [agentId],
      }),
    );
    expect(await walletOf(agentId)).toBe(zeroAddress);

    // Set again, then transfer the agent: the wallet is cleared for the new owner.
    const d2 = (await now()) + 120n;
    await t.mined(
      await set(
        newWallet.address,
        d2,
        await walletSignature({ agentId, newWallet, owner: owner.address, deadline: d2 }),
      ),
    );
    const buyer = await t.fundedAccount("1");
    const tr = await t.mined(
      await w.writeContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "transferFrom",
        args: [owner.address, buyer.address, agentId],
      }),
    );
    const cleared = parseEventLogs({
      abi: identityRegistryAbi,
      logs: tr.logs,
      eventName: "MetadataSet",
    });
    expect(cleared.map((e) => [e.args.metadataKey, e.args.metadataValue])).toEqual([
      ["agentWallet", "0x"],
    ]);
    expect(await walletOf(agentId)).toBe(zeroAddress);
    // The old owner's signature flow no longer authorises anything.
    await expect(set(newWallet.address, d2, good)).rejects.toThrow(/NotAuthorized/);
  });

  it("exposes the EIP-712 domain and version", async () => {
    const domain = await t.publicClient.readContract({
      address: registry,
      abi: identityRegistryAbi,
      functionName: "eip712Domain",
    });
    expect(domain[1]).toBe("ERC8004IdentityRegistry");
    expect(domain[2]).toBe("1");
    expect(domain[3]).toBe(BigInt(t.record.chainId));
    expect(getAddress(domain[4])).toBe(getAddress(registry));
    expect(
      await t.publicClient.readContract({
        address: registry,
        abi: identityRegistryAbi,
        functionName: "getVersion",
      }),
    ).toBe("2.0.0");
  });
});

describe("Safe 1.4.1", () => {
  it("deploys a SafeL2 proxy through the factory with the requested owners and threshold", async () => {
    const [a, b, c] = [
      await t.fundedAccount("1"),
      await t.fundedAccount("1"),
      await t.fundedAccount("1"),
    ];
    const owners = [a.address, b.address, c.address];
    const { safeL2Singleton, safeProxyFactory, safeFallbackHandler } = t.record.contracts;
    const initializer = encodeFunctionData({
      abi: safeL2Abi,
      functionName: "setup",
      args: [owners, 2n, zeroAddress, "0x", safeFallbackHandler, zeroAddress, 0n, zeroAddress],
    });
    const receipt = await t.mined(
      await t.wallet(a).writeContract({
        address: safeProxyFactory,
        abi: safeProxyFactoryAbi,
        functionName: "createProxyWithNonce",
        args: [safeL2Singleton, initializer, 42n],
      }),
    );
    const [created] = parseEventLogs({
      abi: safeProxyFactoryAbi,
      logs: receipt.logs,
      eventName: "ProxyCreation",
    });
    const safe = created?.args.proxy ?? zeroAddress;
    expect(getAddress(created?.args.singleton ?? zeroAddress)).toBe(getAddress(safeL2Singleton));
    const [setup] = parseEventLogs({ abi: safeL2Abi, logs: receipt.logs, eventName: "SafeSetup" });
    expect(setup?.args.owners).toEqual(owners);
    expect(setup?.args.threshold).toBe(2n);
    expect(
      await t.publicClient.readContract({
        address: safe,
        abi: safeL2Abi,
        functionName: "getOwners",
      }),
    ).toEqual(owners);
    expect(
      await t.publicClient.readContract({
        address: safe,
        abi: safeL2Abi,
        functionName: "getThreshold",
      }),
    ).toBe(2n);
    expect(
      await t.publicClient.readContract({ address: safe, abi: safeL2Abi, functionName: "VERSION" }),
    ).toBe("1.4.1");
    for (const name of ["multiSendCallOnly", "safeFallbackHandler"] as const) {
      expect(await t.publicClient.getCode({ address: t.record.contracts[name] })).toMatch(
        /^0x[0-9a-f]{100,}/,
      );
    }
  });
});

describe("BNB/USD feed", () => {
  it("answers latestRoundData and lets only the updater (or owner) push rounds", async () => {
    const feed = t.record.contracts.bnbUsdFeed;
    const read = <F extends "decimals" | "description" | "version" | "latestRoundData">(
      functionName: F,
    ) => t.publicClient.readContract({ address: feed, abi: aggregatorV3Abi, functionName });
    expect(await read("decimals")).toBe(8);
    expect(await read("description")).toBe("BNB / USD");
    expect(await read("version")).toBe(4n);
    const [roundId, answer] = await read("latestRoundData");
    expect(answer).toBe(BigInt(t.record.params.initialBnbUsd));
    const receipt = await t.mined(
      await t.wallet(roles.feedUpdater).writeContract({
        address: feed,
        abi: bnbUsdFeedAbi,
        functionName: "updateAnswer",
        args: [612_34000000n],
      }),
    );
    const [ev] = parseEventLogs({
      abi: aggregatorV3Abi,
      logs: receipt.logs,
      eventName: "AnswerUpdated",
    });
    expect(ev?.args.current).toBe(612_34000000n);
    expect(ev?.args.roundId).toBe(roundId + 1n);
    expect(
      parseEventLogs({ abi: aggregatorV3Abi, logs: receipt.logs, eventName: "NewRound" }),
    ).toHaveLength(1);
    const latest = await read("latestRoundData");
    expect(latest[0]).toBe(roundId + 1n);
    expect(latest[1]).toBe(612_34000000n);
    expect(latest[3]).toBe(
      (await t.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp,
    );
    const old = await t.publicClient.readContract({
      address: feed,
      abi: aggregatorV3Abi,
      functionName: "getRoundData",
      args: [roundId],
    });
    expect(old[1]).toBe(answer);
    const stranger = await t.fundedAccount("1");
    await expect(
      t.wallet(stranger).writeContract({
        address: feed,
        abi: bnbUsdFeedAbi,
        functionName: "updateAnswer",
        args: [1n],
      }),
    ).rejects.toThrow(/NotAuthorized/);
  });
});

describe("Multicall3", () => {
  it("is installed at the canonical address and batches calls", async () => {
    expect(t.record.contracts.multicall3).toBe(MULTICALL3_ADDRESS);
    const platform = t.record.accounts.platform;
    const results = await t.publicClient.multicall({
      multicallAddress: MULTICALL3_ADDRESS,
      allowFailure: true,
      contracts: [
        { address: t.record.contracts.bnbUsdFeed, abi: aggregatorV3Abi, functionName: "decimals" },
        {
          address: t.record.contracts.identityRegistry,
          abi: identityRegistryAbi,
          functionName: "ownerOf",
          args: [10n ** 9n],
        },
      ],
    });
    expect(results[0]).toEqual({ status: "success", result: 8 });
    expect(results[1]?.status).toBe("failure");
    const balance = await t.publicClient.readContract({
      address: MULTICALL3_ADDRESS,
      abi: [
        {
          type: "function",
          name: "getEthBalance",
          stateMutability: "view",
          inputs: [{ name: "a", type: "address" }],
          outputs: [{ type: "uint256" }],
        },
      ] as const,
      functionName: "getEthBalance",
      args: [platform],
    });
    expect(balance).toBe(await t.publicClient.getBalance({ address: platform }));
    expect(toHex(await t.publicClient.getChainId())).toBe(toHex(t.record.chainId));
  });
});
