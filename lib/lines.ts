import type { Readable } from "node:stream";

/** Calls `onLine` for each complete line of a child's output stream. */
export function pipeLines(stream: Readable | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) if (line.length > 0) onLine(line);
  });
  stream.on("end", () => {
    if (rest.length > 0) onLine(rest);
    rest = "";
  });
}
