import { describe, expect, it } from "vitest";
import {
  bnb,
  compact,
  escapeHtml,
  percent,
  priceBnb,
  relativeTime,
  small,
  tiny,
  unitsToDecimal,
  usd,
} from "./format.ts";

describe("formatting for people", () => {
  it("turns wei into exact decimals", () => {
    expect(unitsToDecimal("1500000000000000000")).toBe("1.5");
    expect(unitsToDecimal("1")).toBe("0.000000000000000001");
    expect(unitsToDecimal("0")).toBe("0");
    expect(unitsToDecimal("-2000000")).toBe("-0.000000000002");
    expect(unitsToDecimal("123456", 6)).toBe("0.123456");
  });

  it("rounds BNB, USD and volumes to what a person reads", () => {
    expect(bnb("1234567000000000000000")).toBe("1.23K BNB");
    expect(bnb("250000000000000000")).toBe("0.25 BNB");
    expect(usd("1234.5")).toBe("$1,234.50");
    expect(usd("3200000")).toBe("$3.2M");
    expect(usd("0.000012345")).toBe("$0.00001234");
    expect(compact(987)).toBe("987");
    expect(small(0.000123456)).toBe("0.0001235");
    expect(percent(12.3)).toBe("+12.30%");
    expect(percent(-0.5)).toBe("-0.50%");
    expect(percent(null)).toBe("–");
  });

  it("counts the zeros of tiny prices", () => {
    expect(tiny(0.000000006592)).toBe("0.0₈6592");
    expect(tiny(0.00000000001)).toBe("0.0₁₀1");
    expect(priceBnb("6592000000")).toBe("0.0₈6592 BNB");
    expect(priceBnb("1500000000000000000")).toBe("1.5 BNB");
  });

  it("says how long ago", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(relativeTime("2026-01-01T11:59:58Z", now)).toBe("just now");
    expect(relativeTime("2026-01-01T11:59:30Z", now)).toBe("30 s ago");
    expect(relativeTime("2026-01-01T11:57:00Z", now)).toBe("3 min ago");
    expect(relativeTime("2026-01-01T09:00:00Z", now)).toBe("3 h ago");
    expect(relativeTime("2025-12-29T12:00:00Z", now)).toBe("3 d ago");
    expect(relativeTime("2026-01-01T15:00:00Z", now)).toBe("in 3 h");
  });

  it("escapes what the islands put in HTML", () => {
    expect(escapeHtml(`<img src=x onerror="a('b')">&`)).toBe(
      "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;",
    );
  });
});
