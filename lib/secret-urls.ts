/**
 * The variables whose URLs carry a credential: hosted RPC providers put their API key in the
 * path or the query (`https://bsc-mainnet.nodereal.io/v1/<key>`, `https://x.quiknode.pro/<key>/`,
 * `?apikey=`), and a database URL holds its password. `BSC_RPC_URL` may list several.
 */
export const SECRET_URL_VARIABLES = [
  "BSC_RPC_URL",
  "BSC_WS_URL",
  "ARBITRUM_RPC_URL",
  "ARBITRUM_WS_URL",
  "DATABASE_URL",
] as const;

export type SecretUrlSource = Partial<
  Record<(typeof SECRET_URL_VARIABLES)[number], string | readonly string[] | undefined>
>;

/**
 * A fragment shorter than this (a path like `/bsc`, a one-letter password) is not searched for
 * in free text: it would blank out ordinary words, and a provider's key is longer.
 */
const MIN_FRAGMENT = 8;

/**
 * A URL as it may be shown: scheme, host and port; the user, password, path and query hidden.
 *
 * @example
 * redactUrl("https://bsc-mainnet.nodereal.io/v1/abc123"); // "https://bsc-mainnet.nodereal.io/***"
 * redactUrl("postgres://rw:pw@db:5432/launchpad"); // "postgres://***@db:5432/***"
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "[a URL that does not parse]";
  }
  const user = u.username || u.password ? "***@" : "";
  const rest = (u.pathname && u.pathname !== "/") || u.search || u.hash ? "/***" : "";
  return `${u.protocol}//${user}${u.host}${rest}`;
}

/**
 * The credential-bearing URLs of a configuration or an environment (a comma-separated
 * `BSC_RPC_URL` is split), for `secretUrlRedactor`.
 *
 * @example
 * const secrets = secretUrlsOf(config); // or secretUrlsOf(process.env)
 */
export function secretUrlsOf(source: SecretUrlSource): string[] {
  const urls: string[] = [];
  for (const name of SECRET_URL_VARIABLES) {
    const value = source[name];
    const list = typeof value === "string" ? value.split(",") : (value ?? []);
    for (const url of list) if (url.trim()) urls.push(url.trim());
  }
  return [...new Set(urls)];
}

/**
 * A function that shows `text` with every credential-bearing URL in it as `redactUrl` shows it,
 * and hides what would give one away on its own: the password, and the path and query of an
 * RPC URL (viem's errors print `URL: <url>` with the userinfo stripped, so the whole URL is not
 * always there). The replacements are worked out once, for a logger's every line.
 *
 * @example
 * const redact = secretUrlRedactor(secretUrlsOf(config));
 * redact(`HTTP request failed.\nURL: ${rpc}`); // "HTTP request failed.\nURL: https://host/***"
 */
export function secretUrlRedactor(urls: readonly string[]): (text: string) => string {
  const whole: [string, string][] = [];
  const parts: string[] = [];
  for (const url of urls) {
    const shown = redactUrl(url);
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      whole.push([url, shown]);
      continue;
    }
    const bare = new URL(url);
    bare.username = "";
    bare.password = "";
    for (const w of [url, u.toString(), bare.toString()])
      whole.push([w, shown], [w.replace(/\/$/, ""), shown]);
    const password = decoded(u.password);
    // As a log line's JSON writes it too: a `"` or `\` in a password is escaped there.
    parts.push(u.password, password, JSON.stringify(password).slice(1, -1));
    // A database URL's path is only the database's name; an RPC URL's may be the key.
    if (!u.protocol.startsWith("postgres")) parts.push(`${u.pathname}${u.search}`, u.search);
  }
  // Whole URLs before their parts, each longest first; nothing too short to be a credential.
  const longestFirst = (a: [string, string], b: [string, string]) => b[0].length - a[0].length;
  const seen = new Set<string>();
  const ordered = [
    ...whole.sort(longestFirst),
    ...parts.map((p): [string, string] => [p, "***"]).sort(longestFirst),
  ].filter(([from]) => {
    if (from.length < MIN_FRAGMENT || seen.has(from)) return false;
    seen.add(from);
    return true;
  });
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const [from, to] of ordered) if (out.includes(from)) out = out.replaceAll(from, to);
    return out;
  };
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
