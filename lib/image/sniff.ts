/** The image type of a buffer by its magic bytes (png, jpeg, webp), or undefined. */
export function sniffImage(b: Uint8Array): "png" | "jpeg" | "webp" | undefined {
  const at = (i: number, bytes: number[]) => bytes.every((v, k) => b[i + k] === v);
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (at(0, [0xff, 0xd8, 0xff])) return "jpeg";
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return "webp";
  return undefined;
}
