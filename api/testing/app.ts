import { pino } from "pino";
import { type App, type CreateAppParameters, createApp } from "../app.ts";
import { type ApiSettings, defaultApiSettings } from "../settings.ts";
import { requestAs } from "./client.ts";
import { responseChecker } from "./openapi.ts";
import type { TestDatabase } from "./postgres.ts";

/** A parsed response body; tests read deep into `data`, so it stays loosely typed. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are checked by assertions and the OpenAPI schema
export type TestBody = Record<string, any>;

export type TestApp = {
  app: App;
  /** GETs (or sends `init`) as a fresh client IP; parses JSON or text. */
  get: (
    path: string,
    init?: RequestInit,
  ) => Promise<{ res: Response; status: number; body: TestBody }>;
  /** Problems of a body against the generated OpenAPI schema of (path template, status). */
  check: (template: string, status: number, body: unknown, method?: string) => string[];
};

/**
 * The app over a test database, with a client that checks nothing by itself and a checker
 * of responses against the app's own /openapi.json.
 *
 * @example
 * const t = await testApp(db); const { status, body } = await t.get("/v2/agents");
 */
export async function testApp(
  db: TestDatabase,
  settings: Partial<ApiSettings> = {},
  env = "test",
  /** Features beyond the read API (launch, operator token, ...), as createApp takes them. */
  features: Partial<CreateAppParameters> = {},
) {
  const app = createApp({
    logger: pino({ level: "silent" }),
    env,
    sql: db.sql,
    settings: defaultApiSettings(settings),
    headBlock: async () => undefined,
    ...features,
  });
  const checker = responseChecker((await (await app.request("/openapi.json")).json()) as never);
  const t: TestApp = {
    app,
    get: async (path, init) => {
      const res = await requestAs(app, path, { init });
      const type = res.headers.get("content-type") ?? "";
      const body = (
        type.includes("json") ? await res.json() : { text: await res.text() }
      ) as TestBody;
      return { res, status: res.status, body };
    },
    check: (template, status, body, method = "get") => checker(template, method, status, body),
  };
  return t;
}
