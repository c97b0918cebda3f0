import { crc32, deflateSync } from "node:zlib";

/**
 * A small valid PNG (a 64x64 gradient), so local mode has an image to launch with and no
 * binary file lives in the repository.
 */
export function samplePng(size = 64): Buffer {
  const raw = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y++) {
    const row = y * (size * 3 + 1);
    for (let x = 0; x < size; x++) {
      raw[row + 1 + x * 3] = (x * 4) & 255;
      raw[row + 2 + x * 3] = (y * 4) & 255;
      raw[row + 3 + x * 3] = 200;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Paths of the sample files the launchpad stand-in serves. */
export const SAMPLE_PATHS = {
  image: "/static/sample-agent.png",
  notImage: "/static/not-an-image.txt",
  missing: "/static/missing.png",
} as const;
