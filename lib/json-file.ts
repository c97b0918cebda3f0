import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";

/**
 * Reads a JSON record the service wrote, or `undefined` when there is none; a file that is
 * there but does not parse throws, naming `what` and the path.
 *
 * @example
 * const record = readJsonRecord<DeploymentRecord>(path, "deployment record");
 */
export function readJsonRecord<T>(path: string, what: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch (error) {
    throw new Error(`unreadable ${what} ${path}`, { cause: error });
  }
}

export type WriteJsonOptions = {
  /** Indented with a final newline, for a file people read. */
  pretty?: boolean;
  /** Readable by this user only (file 0600, a new directory 0700): it holds secrets. */
  private?: boolean;
};

/**
 * Writes `value` as JSON to a temporary file, then renames it over `path`: a reader, or a
 * process killed mid-write, sees the previous file or the new one, never half of one.
 *
 * @example
 * writeJsonAtomic(path, record, { pretty: true });
 */
export function writeJsonAtomic(path: string, value: unknown, o: WriteJsonOptions = {}): void {
  mkdirSync(dirname(path), { recursive: true, ...(o.private && { mode: 0o700 }) });
  const tmp = `${path}.${process.pid}.tmp`;
  const text = o.pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
  writeFileSync(tmp, text, o.private ? { mode: 0o600 } : undefined);
  renameSync(tmp, path);
}

/**
 * Reads a private JSON file, or creates it with `make()` first (0600, its folder 0700). Roles
 * that race to create it all end up with the one that was linked into place first.
 *
 * @example
 * const { key } = readOrCreateJson(join(dataDir, "secrets", "web-service.json"), () => ({ key: fresh() }));
 */
export function readOrCreateJson<T>(path: string, make: () => T): T {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {}
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(make()), { mode: 0o600 });
  try {
    linkSync(tmp, path); // fails if another process won the race: read theirs
  } catch {}
  rmSync(tmp, { force: true });
  return JSON.parse(readFileSync(path, "utf8")) as T;
}
