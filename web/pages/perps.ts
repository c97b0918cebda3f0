import { raw } from "hono/html";
import { perpsPanelHtml } from "../perps-panel.ts";
import type { PerpsAccount } from "../types.ts";
import type { Html } from "./layout.ts";

/** The agent's perps venue account: value, open positions, PnL, wins and losses. */
export function perpsPanel(p: PerpsAccount | null): Html {
  // The same string the browser draws on a `perps` message (web/perps-panel.ts).
  return raw(perpsPanelHtml(p));
}
