import { describe, expect, it } from "vitest";
import { toTokenRecord } from "./token-record.ts";

// The reference price of priceChange24h at the edges the stack test cannot place cheaply:
// a token younger than 24 hours, and one whose only reference is its creation price.

const NOW = 1_800_000_000;
const row = (o: Record<string, string | number | null>) => ({
  address: "0x00000000000000000000000000000000000000aa",
  name: "A",
  symbol: "A",
  creator: "0x00000000000000000000000000000000000000bb",
  treasury: "0x00000000000000000000000000000000000000cc",
  agent_id: null,
  app_agent_id: null,
  agent_image: null,
  agent_description: null,
  launch_metadata: null,
  status: "curve",
  pair: "0x00000000000000000000000000000000000000dd",
  total_supply: "1000000000000000000000000000",
  last_price: "3000",
  market_cap_bnb: "3000000000",
  holder_count: 1,
  total_volume_bnb: "0",
  trade_count: 0,
  last_trade_at: null,
  volume24h: "0",
  volume24h_usd: "0",
  trades24h: 0,
  buys24h: 0,
  sells24h: 0,
  traders24h: 0,
  high24h: null,
  low24h: null,
  liquidity_bnb: null,
  funds: "0",
  max_raising: "18000000000000000000",
  created_at: NOW - 86_400,
  graduated_at: null,
  initial_price: "2000",
  ref_spot: null,
  bnb_usd_rate: "600000000000000000000",
  ...o,
});
const opts = { now: NOW, fallbackMaxRaising: 1n, webUrl: "https://web.example" };

describe("priceChange24h", () => {
  it("is null for a token created less than 24 hours ago", () => {
    expect(toTokenRecord(row({ created_at: NOW - 86_399 }), opts).priceChange24h).toBeNull();
  });

  it("compares with the creation price when no trade came before the window", () => {
    expect(toTokenRecord(row({}), opts).priceChange24h).toBe(50);
  });

  it("compares with the last spot before the window, truncated to 2 decimals", () => {
    expect(toTokenRecord(row({ ref_spot: "2999", last_price: "1" }), opts).priceChange24h).toBe(
      -99.96,
    );
  });

  it("a never-created token has none", () => {
    expect(toTokenRecord(row({ created_at: null }), opts).priceChange24h).toBeNull();
  });
});

describe("USD figures and launch metadata", () => {
  it("are exact decimals at the latest rate; JSON launch metadata gives image and description", () => {
    const r = toTokenRecord(
      row({ launch_metadata: JSON.stringify({ image: "ipfs://x", description: "d" }) }),
      opts,
    );
    expect(r).toMatchObject({
      priceUsd: "0.0000000000018",
      marketCapUsd: "0.0000018",
      image: "ipfs://x",
      description: "d",
    });
    expect(toTokenRecord(row({ bnb_usd_rate: null }), opts).priceUsd).toBeNull();
  });
});
