import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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
