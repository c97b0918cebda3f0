import { useListenPortRange } from "../lib/local/net.ts";

// Each test worker draws listen ports from its own slice: two stacks booting side by side
// would otherwise pick the same port before either binds it (a stack's ~11 ports each).
const worker = Number(process.env.VITEST_POOL_ID ?? 1);
const slice = 3_000;
const from = 20_000 + ((worker - 1) % 4) * slice;
useListenPortRange(from, from + slice);
