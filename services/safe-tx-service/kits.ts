import apiKit from "@safe-global/api-kit";
import protocolKit from "@safe-global/protocol-kit";

// The kits ship CommonJS type declarations while Node loads their ESM builds: TypeScript
// (NodeNext) sees `module.exports` as the default import, Node the class itself. Both are
// read here once, so the rest of the code uses the classes as documented.
const unwrap = <T>(m: { default: T }): T => ((m as unknown as { default?: T }).default ?? m) as T;

/** `@safe-global/api-kit`'s SafeApiKit class. */
export const SafeApiKit = unwrap(apiKit);
export type SafeApiKit = InstanceType<typeof SafeApiKit>;
/** `@safe-global/protocol-kit`'s Safe class (tests: build, sign, execute as a wallet does). */
export const ProtocolKit = unwrap(protocolKit);
