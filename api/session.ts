import type { Address } from "viem";

/**
 * A live session as the routes see it. Below both `env.ts` (a request carries it) and the
 * session middleware's store (which reads and writes it), so neither imports the other upward.
 */
export type Session =
  | { kind: "siwe"; idHash: Buffer; address: Address; expiresAt: Date }
  | { kind: "patron"; idHash: Buffer; patronId: string; expiresAt: Date };
