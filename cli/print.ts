/** Writes `value` as indented JSON, for a command's `--json`. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export type PrintRowsOptions<T> = {
  /** The whole list as JSON instead of lines. */
  json?: boolean;
  /** What is printed for no rows. */
  none: string;
  /** One row's line, without its newline. */
  line: (row: T) => string;
};

/**
 * Prints a command's list: JSON with `--json`, else one line a row, or `none` when empty.
 *
 * @example
 * printRows(rows, { json: o.json, none: "no anomalies", line: (a) => `#${a.id} ${a.rule}` });
 */
export function printRows<T>(rows: readonly T[], o: PrintRowsOptions<T>): void {
  if (o.json) printJson(rows);
  else if (rows.length === 0) process.stdout.write(`${o.none}\n`);
  else for (const row of rows) process.stdout.write(`${o.line(row)}\n`);
}
