import { describe, expect, it } from "vitest";
import { INITIAL_RULES, PolicyRules } from "../../lib/policy/model.ts";
import { stewardRules } from "./rules.ts";

const ROUTER = "0x10ED43C718714eb63d5aA57B78B54704E256024E";
const PLATFORM = [
  "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
  "0x5c952063c7fc8610FFDB798152D69F0B9550762b",
];
const TOKEN = "0x1111111111111111111111111111111111111111";
const DENIED = "0x2222222222222222222222222222222222222222";
const SPENDER = "0x3333333333333333333333333333333333333333";

const rules = (input: Partial<PolicyRules>) => PolicyRules.parse({ ...INITIAL_RULES, ...input });
const addresses = (out: ReturnType<typeof stewardRules>) =>
  (out.find((r) => r.type === "approved-addresses")?.config as { addresses: string[] } | undefined)
    ?.addresses;

describe("stewardRules", () => {
  it("gives a wallet with the initial policy only the platform's contracts to send to, and no typed data", () => {
    const out = stewardRules(INITIAL_RULES, { router: ROUTER, platform: PLATFORM });
    expect(out.map((r) => r.type)).toEqual(["approved-addresses"]);
    expect(out[0]?.config).toEqual({
      addresses: PLATFORM.map((a) => a.toLowerCase()),
      mode: "whitelist",
    });
  });

  it("lets Steward sign Hyperliquid's L1 actions only when that venue is allowed", () => {
    const out = stewardRules(rules({ venues: { hyperliquid: { assets: ["BTC"], deny: [] } } }), {
      platform: PLATFORM,
    });
    const typed = out.find((r) => r.type === "typed-data");
    expect(typed?.config).toMatchObject({
      allowedDomainNames: ["Exchange"],
      allowedChainIds: [1337],
    });
  });

  it("names the router and the allowed tokens (not the denied ones) and the approve allowlist, once each, lowercased", () => {
    const out = stewardRules(
      rules({
        venues: { "bsc-dex-v2": { assets: [TOKEN, DENIED], deny: [DENIED] } },
        approveAllowlist: [SPENDER, ROUTER],
      }),
      { router: ROUTER, platform: PLATFORM },
    );
    const list = addresses(out);
    expect(list).toEqual([...PLATFORM, ROUTER, TOKEN, SPENDER].map((a) => a.toLowerCase()));
    expect(list).not.toContain(DENIED);
  });

  it("leaves the recipients to the service when the spot venue allows every token (no finite list)", () => {
    const out = stewardRules(rules({ venues: { "bsc-dex-v2": { assets: ["*"], deny: [] } } }), {
      router: ROUTER,
      platform: PLATFORM,
    });
    expect(out.find((r) => r.type === "approved-addresses")).toBeUndefined();
  });
});
