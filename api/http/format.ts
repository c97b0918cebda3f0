/** Unix seconds (a numeric column, read as a string or bigint) as ISO 8601 UTC. */
export function isoFromUnix(seconds: string | bigint | number): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

/** Unix seconds as ISO 8601 UTC, or null. */
export function isoOrNull(seconds: string | bigint | number | null): string | null {
  return seconds === null ? null : isoFromUnix(seconds);
}

/** A numeric column (postgres.js gives numeric as a string, int8 as a bigint) as a string. */
export function dec(value: string | bigint | number): string {
  return String(value);
}

/** A numeric column as a string, or null. */
export function decOrNull(value: string | bigint | number | null): string | null {
  return value === null ? null : String(value);
}
