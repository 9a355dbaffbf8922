/**
 * Decodes an 8-bit RGB or RGBA PNG (what Chromium's --screenshot writes)
 * with node:zlib: chunks, inflate, undo the scanline filters. Enough to
 * count pixels of a colour in a screenshot; not a general decoder.
 */
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** Bytes a pixel (3: RGB, 4: RGBA). */
  channels: number;
  pixels: Uint8Array;
}

export function decodePng(png: Buffer): Image {
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8]!;
      const colour = data[9]!;
      const interlace = data[12]!;
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`PNG depth ${depth} colour type ${colour} interlace ${interlace}: not decoded here`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[out + x - channels]! : 0;
      const b = y > 0 ? pixels[out - stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[out - stride + x - channels]! : 0;
      let v = line[x]!;
      switch (filter) {
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) >> 1; break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: break;
      }
      pixels[out + x] = v & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Pixels within `tolerance` (per channel) of the colour [r, g, b]. */
export function countColour(img: Image, [r, g, b]: [number, number, number], tolerance = 12): number {
  let n = 0;
  for (let i = 0; i < img.pixels.length; i += img.channels) {
    if (Math.abs(img.pixels[i]! - r) <= tolerance && Math.abs(img.pixels[i + 1]! - g) <= tolerance && Math.abs(img.pixels[i + 2]! - b) <= tolerance) n++;
  }
  return n;
}
