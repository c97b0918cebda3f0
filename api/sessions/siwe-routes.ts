import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex, PublicClient } from "viem";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../env.ts";
import { HttpError } from "../errors.ts";
import {
  Address,
  AddressInput,
  errorResponse,
  IsoTime,
  jsonResponse,
  okEnvelope,
} from "../http/schemas.ts";
import { SESSION_LIMITS } from "../limits.ts";
import { sameOrigin } from "../middleware/same-origin/index.ts";
import { COOKIES } from "../middleware/session/cookies.ts";
import { requireSession, siweSession } from "../middleware/session/index.ts";
import {
  type CookiePolicy,
  createSession,
  endSession,
  setSessionCookie,
} from "../middleware/session/store.ts";
import {
  checkSiweMessage,
  consumeNonce,
  issueNonce,
  peekNonce,
  verifySiweSignature,
} from "./siwe.ts";

export type AuthRouteDeps = {
  sql: Sql;
  /** The web app's and the API's own origins: SIWE domains and allowed write origins. */
  origins: string[];
  cookie: CookiePolicy;
  /** Verifies contract-wallet signatures (EIP-1271/6492); EOAs need no RPC. */
  chain?: PublicClient;
};

const SessionInfo = z
  .object({ address: Address, expiresAt: IsoTime })
  .openapi("SiweSession", { description: "The signed-in wallet and when its session ends" });

const nonceRoute = createRoute({
  method: "get",
  path: "/auth/nonce",
  tags: ["auth"],
  summary: "A single-use SIWE nonce for an address (10 minutes)",
  request: { query: z.object({ address: AddressInput }) },
  responses: {
    200: jsonResponse(
      "Put `nonce` in the EIP-4361 message this address signs",
      okEnvelope(z.object({ nonce: z.string().regex(/^[0-9a-f]{32}$/), expiresAt: IsoTime })),
    ),
    400: errorResponse("validation_failed: address is not a 20-byte hex address"),
    429: errorResponse("rate_limited"),
  },
});

const verifyRoute = createRoute({
  method: "post",
  path: "/auth/verify",
  tags: ["auth"],
  summary: "Sign in with Ethereum: verify a signed EIP-4361 message, set the session cookie",
  description:
    "The message's domain and URI must be the web app's or the API's, chain id 56, version 1, the nonce from GET /auth/nonce for the same address (single use), issued within 10 minutes and not expired. EOAs, EIP-1271 contract wallets (Safe) and EIP-6492 counterfactual wallets are accepted. Sets `siwe_session` (HttpOnly, SameSite=Lax, Secure in production; 7 days).",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            message: z.string().min(1).max(SESSION_LIMITS.maxMessageChars),
            signature: z
              .string()
              .max(SESSION_LIMITS.maxSignatureChars)
              .regex(/^0x([0-9a-fA-F]{2})+$/, "must be 0x-prefixed hex"),
          }),
        },
      },
    },
  },
  responses: {
    200: jsonResponse("Signed in; the cookie is set", okEnvelope(SessionInfo)),
    400: errorResponse("validation_failed: the body is not {message, signature}"),
    401: errorResponse(
      "not_authenticated: unparsable message, wrong domain/URI/chain, expired, unknown or replayed nonce, or a bad signature",
    ),
    403: errorResponse("not_authorized: a cross-site Origin"),
    429: errorResponse("rate_limited"),
    503: errorResponse("unavailable: the chain could not be reached to check a contract wallet"),
  },
});

const sessionRoute = createRoute({
  method: "get",
  path: "/auth/session",
  tags: ["auth"],
  summary: "The current SIWE session",
  security: [{ siweSession: [] }],
  responses: {
    200: jsonResponse("The signed-in wallet", okEnvelope(SessionInfo)),
    401: errorResponse("not_authenticated: no, unknown, expired or ended session cookie"),
  },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/auth/logout",
  tags: ["auth"],
  summary: "End the SIWE session and clear its cookie",
  security: [{ siweSession: [] }],
  responses: {
    200: jsonResponse("Signed out", okEnvelope(z.object({ signedOut: z.literal(true) }))),
    401: errorResponse("not_authenticated: no live session"),
    403: errorResponse("not_authorized: a cross-site Origin"),
  },
});

/**
 * The SIWE session endpoints: nonce, verify, session, logout; and the cookie security
 * schemes of the OpenAPI document.
 *
 * @example
 * registerAuth(app, { sql, origins: [webUrl, apiUrl], cookie: { secure: true }, chain });
 */
export function registerAuth(app: OpenAPIHono<AppEnv>, d: AuthRouteDeps) {
  const { sql } = d;
  const expect = { origins: d.origins, chainId: 56 };
  const csrf = sameOrigin({ origins: d.origins });

  app.openapi(nonceRoute, async (c) => {
    const { address } = c.req.valid("query");
    const { nonce, expiresAt } = await issueNonce(sql, address);
    return c.json({ ok: true as const, data: { nonce, expiresAt: expiresAt.toISOString() } }, 200);
  });

  app.use("/auth/verify", csrf);
  app.openapi(verifyRoute, async (c) => {
    const body = c.req.valid("json");
    const checked = checkSiweMessage(body.message, expect);
    await peekNonce(sql, checked);
    if (!d.chain) {
      // Without an RPC only EOAs can be checked; recovery needs none.
      const { recoverMessageAddress } = await import("viem");
      const signer = await recoverMessageAddress({
        message: checked.text,
        signature: body.signature as Hex,
      }).catch(() => undefined);
      if (signer?.toLowerCase() !== checked.address) {
        throw new HttpError("not_authenticated", {
          message: "the signature does not match the message's address",
        });
      }
    } else {
      await verifySiweSignature(d.chain, checked, body.signature as Hex);
    }
    const session = await sql.begin(async (tx) => {
      await consumeNonce(tx as unknown as Sql, checked);
      return createSession(tx as unknown as Sql, { kind: "siwe", address: checked.address });
    });
    setSessionCookie(c, COOKIES.siwe, session.id, session.expiresAt, d.cookie);
    return c.json(
      {
        ok: true as const,
        data: { address: checked.address, expiresAt: session.expiresAt.toISOString() },
      },
      200,
    );
  });

  app.use("/auth/session", requireSession({ sql, kind: "siwe" }));
  app.openapi(sessionRoute, async (c) => {
    const s = siweSession(c);
    return c.json(
      { ok: true as const, data: { address: s.address, expiresAt: s.expiresAt.toISOString() } },
      200,
    );
  });

  app.use("/auth/logout", csrf);
  app.openapi(logoutRoute, async (c) => {
    if (!(await endSession(c, sql, "siwe", COOKIES.siwe, d.cookie)))
      throw new HttpError("not_authenticated", { message: "no live session to end" });
    return c.json({ ok: true as const, data: { signedOut: true as const } }, 200);
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "siweSession", {
    type: "apiKey",
    in: "cookie",
    name: COOKIES.siwe,
    description: "Session cookie set by POST /auth/verify (Sign-In with Ethereum)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "patronSession", {
    type: "apiKey",
    in: "cookie",
    name: COOKIES.patron,
    description: "Patron session cookie set by GET /auth/social/callback (X OAuth 2.0)",
  });
}
