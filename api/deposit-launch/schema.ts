import { z } from "@hono/zod-openapi";
import { Address, AddressInput, IsoTime, TxHash, Wei } from "../http/schemas.ts";
import { PositionFields } from "./position.ts";

const httpsUrl = (hosts: string[], what: string) =>
  z
    .url({ protocol: /^https$/, error: `must be an https URL of ${what}` })
    .max(512)
    .refine(
      (u) => hosts.includes(new URL(u).hostname.replace(/^www\./, "")),
      `must be a link on ${hosts.join(" or ")}`,
    );

/** The creation body of a deposit launch (api/AGENT.md). */
export const CreateLaunchBody = z
  .object({
    tier: z
      .string()
      .regex(/^[0-9]{1,3}$/, "must be a tier id of the factory (GET /v2/launches shows them)")
      .openapi({ example: "0", description: "A tier id enabled on the factory" }),
    name: z.string().trim().min(1).max(32),
    symbol: z.string().regex(/^[a-zA-Z0-9]{1,10}$/, "must be 1-10 characters of [a-zA-Z0-9]"),
    description: z.string().min(10).max(500),
    image: z
      .url()
      .max(2048)
      .openapi({ description: "https URL of a png, jpeg or webp answering 200 (as for agents)" }),
    closeTimestamp: z
      .number()
      .int()
      .positive()
      .openapi({ description: "Unix seconds; at least 5 minutes and at most 30 days ahead" }),
    buyTaxBps: z.number().int().min(0).max(1000).openapi({ description: "0-1000 (10%)" }),
    sellTaxBps: z.number().int().min(0).max(1000).openapi({ description: "0-1000 (10%)" }),
    socials: z
      .object({
        x: httpsUrl(["x.com", "twitter.com"], "x.com").optional(),
        telegram: httpsUrl(["t.me", "telegram.me"], "t.me").optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .openapi("CreateLaunchRequest");
export type CreateLaunchInput = z.infer<typeof CreateLaunchBody>;

/** What POST /v2/launches answers: the launch row from the factory's LaunchCreated. */
export const CreatedLaunch = z
  .object({
    id: z.string().regex(/^[0-9]+$/),
    vault: Address,
    router: Address,
    treasury: Address,
    predictedToken: Address,
    creator: Address,
    tier: z.string(),
    name: z.string(),
    symbol: z.string(),
    closeTimestamp: IsoTime,
    buyTaxBps: z.number().int(),
    sellTaxBps: z.number().int(),
    status: z.literal("open"),
    txHash: TxHash,
  })
  .openapi("CreatedLaunch");
export type CreatedLaunchBody = z.infer<typeof CreatedLaunch>;

/** What POST /v2/launches/transaction answers: createLaunch for the wallet itself to send. */
export const LaunchTransaction = z
  .object({
    transaction: z
      .object({
        from: Address.openapi({ description: "The signed-in wallet: it sends and pays" }),
        to: Address.openapi({ description: "The launch factory" }),
        data: z
          .string()
          .regex(/^0x([0-9a-f]{2})+$/)
          .openapi({ description: "createLaunch's calldata, the wallet as creator" }),
        value: Wei.openapi({ description: "Always 0: createLaunch takes no BNB" }),
        chainId: z.number().int().openapi({ example: 56 }),
        gas: Wei.openapi({
          description: "A gas limit: eth_estimateGas from the wallet now, with 20 % headroom",
        }),
      })
      .openapi({ description: "Unsigned: sign and send it with the wallet (eth_sendTransaction)" }),
    launchCreatedTopic: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/)
      .openapi({
        description:
          "topics[0] of the factory's LaunchCreated log in the receipt; its topics[1] is the launch id (GET /v2/launches/{id})",
      }),
  })
  .openapi("LaunchTransaction");
export type LaunchTransactionBody = z.infer<typeof LaunchTransaction>;

/** The `id` path parameter of `/v2/launches/{id}/...`: the launch number or its vault. */
export const LaunchParams = z.object({
  id: z
    .string()
    .regex(/^([0-9]{1,20}|0x[0-9a-fA-F]{40})$/, "must be a launch id (digits) or a vault address")
    .transform((v) => v.toLowerCase())
    .openapi({ description: "The launch id, or its vault address", example: "1" }),
});

export const PREVIEW_ACTIONS = ["deposit", "close", "execute", "claim", "refund"] as const;

export const PreviewBody = z
  .object({
    deposits: z
      .array(z.object({ account: AddressInput, amountWei: Wei }).strict())
      .min(1)
      .max(20),
    action: z.enum(PREVIEW_ACTIONS).default("deposit").openapi({
      description:
        "How far to simulate after the deposits: deposit (only them), close (then close at the close time), execute (close and executeLaunch), claim (then every depositor claims), refund (close, enableRefund, every depositor refunds)",
    }),
  })
  .strict()
  .openapi("LaunchPreviewRequest");

export const PreviewStep = z
  .object({
    call: z.string().openapi({ example: "deposit" }),
    from: Address,
    valueWei: Wei,
    ok: z.boolean(),
    gas: z.string().regex(/^[0-9]+$/),
    error: z.string().nullable(),
  })
  .openapi("LaunchPreviewStep");

export const LaunchPreview = z
  .object({
    action: z.enum(PREVIEW_ACTIONS),
    blockNumber: z.string(),
    ok: z.boolean().openapi({ description: "Every step would succeed" }),
    steps: z.array(PreviewStep),
    totalGas: z.string(),
    totalDepositedWei: Wei.openapi({ description: "The vault's total after the deposits" }),
    tokens: z.array(z.object({ account: Address, principalWei: Wei, tokens: Wei })).openapi({
      description:
        "Per depositor of the bundle: principal after it and the tokens it would receive if the launch executed with this total",
    }),
  })
  .openapi("LaunchPreview");

export const MyDeposit = z
  .object({
    launchId: z.string(),
    vault: Address,
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    status: z.enum(["open", "closed", "launched", "refund"]),
    token: Address.nullable(),
    ...PositionFields,
  })
  .openapi("MyDeposit");
