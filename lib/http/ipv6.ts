/**
 * The eight 16-bit groups of a valid IPv6 address (check it with `isIP` first), as lower-case
 * hex, a dotted IPv4 tail converted and a zone id dropped.
 *
 * @example
 * expandIpv6("64:ff9b::10.44.0.1"); // ["0064", "ff9b", "0000", …, "0a2c", "0001"]
 */
export function expandIpv6(address: string): string[] {
  let a = address.toLowerCase().split("%")[0] ?? "";
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (dotted) {
    const [b0, b1, b2, b3] = dotted.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, dotted.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head = "", tail] = a.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => g.padStart(4, "0"));
}
