import type { AgentEventRow } from "../events/store.ts";
import { type PolicyRules, type PolicyVersion, unitsToUsd, usdToUnits } from "./model.ts";

// The auditor's checks, pure: a `policy.applied` event's data against the version it names,
// the day's applied opens against the daily budget, and the venue's positions against the
// policy. Each finding is an anomaly with what was expected and what happened.

export type Severity = "low" | "medium" | "high" | "critical";
export type Finding = {
  rule: string;
  expected: string;
  actual: string;
  severity: Severity;
};

/** One applied event as the auditor reads it from the feed. */
export type AppliedEvent = Pick<
  AgentEventRow,
  "id" | "agentId" | "sourceEventId" | "occurredAt" | "data"
>;

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : String(v));
const USD = /^-?\d{1,30}(\.\d{1,18})?$/;

/**
 * What is wrong with one applied event under the version it names (empty: nothing).
 *
 * @example
 * auditEvent(event, versions.find((v) => v.policyId === event.data.policyId));
 */
export function auditEvent(e: AppliedEvent, version: PolicyVersion | undefined): Finding[] {
  const d = e.data;
  if (!version) {
    return [
      {
        rule: "policyVersion",
        expected: "a policy version the signer holds",
        actual: `policy ${str(d.policyId)} version ${str(d.version)}`,
        severity: "critical",
      },
    ];
  }
  const rules: PolicyRules = version.rules;
  const out: Finding[] = [];
  if (typeof d.version === "number" && d.version !== version.version) {
    out.push({
      rule: "policyVersion",
      expected: `version ${version.version} of ${version.policyId}`,
      actual: `version ${d.version}`,
      severity: "high",
    });
  }
  const kind = str(d.kind);
  const opening = kind === "trade" && d.action === "open";
  if (kind === "trade" || kind === "leverage") {
    const venue = str(d.venue);
    const v = rules.venues[venue as keyof PolicyRules["venues"]];
    if (!v && (opening || kind === "leverage")) {
      out.push({
        rule: "venueAllowlist",
        expected: Object.keys(rules.venues).join(",") || "none",
        actual: venue,
        severity: "critical",
      });
    }
    const asset = str(d.asset);
    if (v && (opening || kind === "leverage")) {
      if (v.deny.includes(asset) || !(v.assets.includes("*") || v.assets.includes(asset))) {
        out.push({
          rule: "assets",
          expected: `assets ${v.assets.join(",")} minus ${v.deny.join(",") || "nothing"}`,
          actual: asset,
          severity: "high",
        });
      }
    }
    if (opening && rules.sides !== "both" && d.side !== rules.sides) {
      out.push({ rule: "sides", expected: rules.sides, actual: str(d.side), severity: "high" });
    }
    const lev = Number(d.leverage);
    if ((opening || kind === "leverage") && (!Number.isFinite(lev) || lev > rules.maxLeverage)) {
      out.push({
        rule: "maxLeverage",
        expected: `<= ${rules.maxLeverage}`,
        actual: str(d.leverage),
        severity: "high",
      });
    }
    if (opening) {
      const n = str(d.notionalUsd);
      if (!USD.test(n) || usdToUnits(n) > usdToUnits(rules.maxPositionUsd)) {
        out.push({
          rule: "maxPositionUsd",
          expected: `<= ${rules.maxPositionUsd}`,
          actual: n,
          severity: "high",
        });
      }
    }
  }
  if (kind === "approve" || kind === "transfer") {
    const to = str((d.summary as Record<string, unknown> | undefined)?.to).toLowerCase();
    if (!rules.approveAllowlist.includes(to)) {
      out.push({
        rule: "approveAllowlist",
        expected: rules.approveAllowlist.join(",") || "none",
        actual: to,
        severity: "critical",
      });
    }
  }
  if (kind === "unknown") {
    out.push({
      rule: "knownCall",
      expected: "no unreadable call applied",
      actual: "applied",
      severity: "critical",
    });
  }
  if (rules.allowedUtcHours && !(kind === "trade" && d.action === "close")) {
    const at = new Date(str(d.at) || e.occurredAt.toISOString());
    if (!rules.allowedUtcHours.includes(at.getUTCHours())) {
      out.push({
        rule: "allowedUtcHours",
        expected: rules.allowedUtcHours.join(","),
        actual: `${at.getUTCHours()}:00 UTC`,
        severity: "medium",
      });
    }
  }
  return out;
}

/**
 * Daily budgets: the running sum of applied opens per agent and UTC day, each checked against
 * the budget of the version its event names. `events` must be every applied event of the
 * days concerned, oldest first. Returns the finding per event that went over.
 */
export function auditDailyBudget(
  events: readonly AppliedEvent[],
  versionOf: (e: AppliedEvent) => PolicyVersion | undefined,
): Map<bigint, Finding> {
  const totals = new Map<string, bigint>();
  const out = new Map<bigint, Finding>();
  for (const e of events) {
    const d = e.data;
    if (d.kind !== "trade" || d.action !== "open" || !USD.test(str(d.notionalUsd))) continue;
    const at = new Date(str(d.at) || e.occurredAt.toISOString());
    const key = `${e.agentId}:${at.toISOString().slice(0, 10)}`;
    const total = (totals.get(key) ?? 0n) + usdToUnits(str(d.notionalUsd));
    totals.set(key, total);
    const v = versionOf(e);
    if (v && total > usdToUnits(v.rules.dailyOpenBudgetUsd)) {
      out.set(e.id, {
        rule: "dailyOpenBudgetUsd",
        expected: `<= ${v.rules.dailyOpenBudgetUsd} per UTC day`,
        actual: `${unitsToUsd(total)} on ${key.slice(-10)}`,
        severity: "high",
      });
    }
  }
  return out;
}

/** A venue position as the auditor compares it: coin, USD value, leverage. */
export type VenueRecord = { coin: string; positionValueUsd: string; leverage: number };

/**
 * The venue's record against the policy the position was opened under.
 *
 * @example
 * auditVenuePosition({ coin: "BTC", positionValueUsd: "900", leverage: 3 }, version.rules);
 */
export function auditVenuePosition(p: VenueRecord, rules: PolicyRules): Finding[] {
  const out: Finding[] = [];
  if (p.leverage > rules.maxLeverage) {
    out.push({
      rule: "venue.maxLeverage",
      expected: `<= ${rules.maxLeverage}`,
      actual: `${p.coin} at ${p.leverage}`,
      severity: "high",
    });
  }
  const value = p.positionValueUsd.replace(/^-/, "");
  if (USD.test(value) && usdToUnits(value) > usdToUnits(rules.maxPositionUsd)) {
    out.push({
      rule: "venue.maxPositionUsd",
      expected: `<= ${rules.maxPositionUsd}`,
      actual: `${p.coin} worth ${value}`,
      severity: "low",
    });
  }
  return out;
}
