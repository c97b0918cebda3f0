import { z } from "@hono/zod-openapi";
import { ERROR_STATUS } from "./errors.ts";

/** `{ok:true, data}`: the success envelope around a payload schema. */
export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ ok: z.literal(true), data });
}

export const ErrorEnvelope = z
  .object({
    ok: z.literal(false),
    error: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    requestId: z.string().optional(),
  })
  .openapi("Error");
