import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { ERROR_STATUS } from "../../../api/errors.ts";
import type { FuzzCase } from "./cases.ts";
import { declaredResponse, type OpenApiDocument, type Operation } from "./model.ts";
import type { FuzzResponse } from "./send.ts";

/** Text that must never reach a client: stack frames, SQL errors, internal paths. */
const LEAKS: [string, RegExp][] = [
  ["a stack frame", /\bat (?:async )?[^\s()]*\s?\(?(?:file:\/\/)?\/[^\s)]+:\d+:\d+/],
  [
    "a source path",
    /(?:file:\/\/|\/node_modules\/|\/(?:api|lib|jobs|src|services)\/[\w/.-]+\.ts\b)/,
  ],
  [
    "an SQL error",
    /syntax error at or near|relation "[^"]+" does not exist|violates (?:unique|foreign key|check|not-null) constraint|duplicate key value|invalid input syntax for type|PostgresError|column "[^"]+" does not exist/i,
  ],
];

export type CheckContext = {
  doc: OpenApiDocument;
  /** Values that must never appear in a response (tokens, secrets, passwords). */
  secrets: string[];
};

/** What a response broke; empty when every property holds. */
export type Problems = string[];

/**
 * The fuzzer's properties over one answer: never a 5xx; the status is declared for the
 * operation and the body validates against its schema; a 4xx carries the error envelope with
 * a code of the one taxonomy and that code's status; nothing leaks; without working
 * credentials a protected operation refuses.
 *
 * @example
 * const check = responseProperties({ doc, secrets: [adminToken] });
 * const problems = check(op, c, res);
 */
export function responseProperties(ctx: CheckContext) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: "doc", components: ctx.doc.components ?? {} });
  const compiled = new Map<string, ReturnType<Ajv2020["compile"]>>();
  const validator = (key: string, schema: unknown) => {
    let v = compiled.get(key);
    if (!v) {
      const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
      v = ajv.compile(JSON.parse(text));
      compiled.set(key, v);
    }
    return v;
  };

  return (op: Operation, c: FuzzCase, res: FuzzResponse): Problems => {
    const problems: Problems = [];
    const { status } = res;
    if (status >= 500) problems.push(`answered ${status}`);
    const type =
      String(res.headers["content-type"] ?? "")
        .split(";")[0]
        ?.trim() ?? "";
    let json: unknown;
    if (type.includes("json")) {
      try {
        json = JSON.parse(res.text);
      } catch {
        problems.push(`content-type ${type} but the body is not JSON`);
      }
    }

    const declared = declaredResponse(op, status);
    // A path no route matches (an emptied path parameter) is not this operation's answer.
    if (!declared && routerMiss(json)) {
      // only the envelope applies, below
    } else if (!declared) problems.push(`status ${status} is not declared for ${op.id}`);
    else if (declared.content) {
      const entry = declared.content[type];
      if (!entry) {
        problems.push(
          `status ${status} answered ${type || "no content-type"}, declared ${Object.keys(declared.content).join(", ")}`,
        );
      } else if (entry.schema && json !== undefined) {
        const validate = validator(`${op.id} ${status} ${type}`, entry.schema);
        if (!validate(json)) {
          const errs = (validate.errors ?? []).slice(0, 5);
          problems.push(
            `body does not match the ${status} schema: ${errs.map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ")}`,
          );
        }
      }
    }

    if (status >= 400) {
      const e = json as { ok?: unknown; error?: unknown; message?: unknown; detail?: unknown };
      if (!e || typeof e !== "object") problems.push(`${status} without a JSON error envelope`);
      else {
        if (e.ok !== false) problems.push("error envelope without ok:false");
        const code = String(e.error);
        if (!(code in ERROR_STATUS)) problems.push(`error code ${code} is not in the taxonomy`);
        else if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status)
          problems.push(
            `error code ${code} is ${ERROR_STATUS[code as keyof typeof ERROR_STATUS]}, answered ${status}`,
          );
        if (typeof e.message !== "string" && typeof e.detail !== "string")
          problems.push("error envelope without a message");
      }
    }

    for (const [what, re] of LEAKS) {
      const m = re.exec(res.text);
      if (m) problems.push(`the body leaks ${what}: ${m[0].slice(0, 80)}`);
    }
    for (const secret of ctx.secrets) {
      if (secret && res.text.includes(secret)) problems.push("the body leaks a secret");
    }

    if (op.security.length > 0 && c.auth !== "valid") {
      if (status < 400) problems.push(`answered ${status} without working credentials`);
      // The key is in a header: it is checked before anything else the route looks at. Only the
      // server's header limit and a path no route matches answer earlier.
      else if (status !== 401 && status !== 403 && status !== 431 && !routerMiss(json))
        problems.push(`answered ${status} instead of 401/403 to ${c.auth} credentials`);
    }
    return problems;
  };
}

function routerMiss(json: unknown): boolean {
  const e = json as { error?: unknown; message?: unknown } | undefined;
  return e?.error === "not_found" && String(e.message).startsWith("no route for");
}
