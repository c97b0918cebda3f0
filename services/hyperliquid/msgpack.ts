/**
 * The msgpack encoding Hyperliquid hashes an L1 action with: what Python's `msgpack.packb`
 * writes for JSON-like values (smallest integer form, str8 strings, maps in insertion order,
 * `undefined` keys dropped). Numbers must be integers: actions carry prices as strings.
 */
export type Packable =
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly Packable[]
  | { readonly [key: string]: Packable };

/**
 * Encodes one value.
 *
 * @example
 * packMsg({ type: "order", grouping: "na" }); // Uint8Array [0x82, 0xa4, ...]
 */
export function packMsg(value: Packable): Uint8Array {
  const out: number[] = [];
  write(out, value);
  return Uint8Array.from(out);
}

function bytesBE(out: number[], v: bigint, n: number) {
  for (let i = n - 1; i >= 0; i--) out.push(Number((v >> BigInt(8 * i)) & 0xffn));
}

function writeInt(out: number[], v: bigint) {
  if (v >= 0n) {
    if (v < 128n) out.push(Number(v));
    else if (v < 256n) out.push(0xcc, Number(v));
    else if (v < 65536n) {
      out.push(0xcd);
      bytesBE(out, v, 2);
    } else if (v < 4294967296n) {
      out.push(0xce);
      bytesBE(out, v, 4);
    } else if (v < 2n ** 64n) {
      out.push(0xcf);
      bytesBE(out, v, 8);
    } else throw new RangeError(`integer ${v} does not fit msgpack`);
    return;
  }
  const two = (n: number) => (v + 2n ** BigInt(8 * n)) % 2n ** BigInt(8 * n);
  if (v >= -32n) out.push(Number(two(1)));
  else if (v >= -128n) out.push(0xd0, Number(two(1)));
  else if (v >= -32768n) {
    out.push(0xd1);
    bytesBE(out, two(2), 2);
  } else if (v >= -2147483648n) {
    out.push(0xd2);
    bytesBE(out, two(4), 4);
  } else if (v >= -(2n ** 63n)) {
    out.push(0xd3);
    bytesBE(out, two(8), 8);
  } else throw new RangeError(`integer ${v} does not fit msgpack`);
}

function writeLength(out: number[], n: number, fix: number, fixMax: number, codes: number[]) {
  if (n <= fixMax) out.push(fix | n);
  else if (n < 65536) {
    out.push(codes[0] as number);
    bytesBE(out, BigInt(n), 2);
  } else {
    out.push(codes[1] as number);
    bytesBE(out, BigInt(n), 4);
  }
}

function write(out: number[], v: Packable): void {
  if (v === null || v === undefined) out.push(0xc0);
  else if (v === true) out.push(0xc3);
  else if (v === false) out.push(0xc2);
  else if (typeof v === "bigint") writeInt(out, v);
  else if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) throw new TypeError(`msgpack: ${v} is not a safe integer`);
    writeInt(out, BigInt(v));
  } else if (typeof v === "string") {
    const b = Buffer.from(v, "utf8");
    if (b.length < 32) out.push(0xa0 | b.length);
    else if (b.length < 256) out.push(0xd9, b.length);
    else if (b.length < 65536) {
      out.push(0xda);
      bytesBE(out, BigInt(b.length), 2);
    } else {
      out.push(0xdb);
      bytesBE(out, BigInt(b.length), 4);
    }
    for (const x of b) out.push(x);
  } else if (Array.isArray(v)) {
    writeLength(out, v.length, 0x90, 15, [0xdc, 0xdd]);
    for (const x of v) write(out, x);
  } else {
    const entries = Object.entries(v as Record<string, Packable>).filter(
      ([, x]) => x !== undefined,
    );
    writeLength(out, entries.length, 0x80, 15, [0xde, 0xdf]);
    for (const [k, x] of entries) {
      write(out, k);
      write(out, x);
    }
  }
}
