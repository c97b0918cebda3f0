/** Saga steps, in order. Kill points (test mode) sit after each of them. */
export const SAGA_STEPS = [
  "wallet",
  "fund",
  "treasury",
  "identity",
  "launchpad",
  "register",
  "create",
] as const;
export type SagaStep = (typeof SAGA_STEPS)[number];
