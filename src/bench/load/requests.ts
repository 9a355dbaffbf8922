/**
 * Pre-encodes the whole remote-write load before any clock starts: for
 * every scrape, the series in groups of `perRequest`, each group one
 * snappy-compressed prometheus.WriteRequest. The same bytes then go to
 * every server, so the generator costs only the HTTP sends while a server
 * is measured, and all servers get byte-identical requests.
 *
 * Encoding: one template per group with the label bytes written once;
 * each series has one sample whose value (8 bytes) and timestamp (a varint
 * of fixed width: every timestamp of a run has the same varint length) sit
 * at known offsets and are rewritten in place scrape by scrape, then the
 * template is compressed (snappy block format, napi-rs `snappy`).
 */
import { compressSync } from 'snappy';
import { putUvarintPadded, uvarintSize } from '../../encoding/varint.js';
import { labelBytes, lengthDelimited } from './protobuf.js';
import type { Catalogue } from './catalogue.js';
import { ValueStepper } from './values.js';

export interface LoadOptions {
  /** First scrape time (ms); the hosts' phases are added to it. */
  start: number;
  /** Samples per series (scrapes). */
  scrapes: number;
  /** Series per request. */
  perRequest: number;
  /** Called after each encoded scrape (progress). */
  onScrape?: (scrape: number) => void;
}

export interface EncodedLoad {
  /** requests[scrape][k]: the compressed WriteRequest of group k at that scrape. */
  requests: Buffer[][];
  series: number;
  scrapes: number;
  samples: number;
  /** Sum of the uncompressed and compressed request sizes. */
  rawBytes: number;
  compressedBytes: number;
  /** Smallest and largest sample timestamp (ms). */
  minTime: number;
  maxTime: number;
}

interface Template {
  bytes: Buffer;
  first: number;
  /** Offsets of each series' value (8 bytes, little endian) and timestamp varint. */
  valueAt: Uint32Array;
  timeAt: Uint32Array;
}

function buildTemplate(cat: Catalogue, first: number, end: number, tsWidth: number): Template {
  const parts: number[][] = [];
  const valueAt = new Uint32Array(end - first);
  const timeAt = new Uint32Array(end - first);
  let offset = 0;
  for (let i = first; i < end; i++) {
    const flat = cat.labels(i);
    const body: number[] = [];
    for (let k = 0; k < flat.length; k += 2) body.push(...lengthDelimited(1, labelBytes(flat[k]!, flat[k + 1]!)));
    // Sample: value = 1 (fixed64 double), timestamp = 2 (varint, padded to tsWidth below).
    const sample = [0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, ...new Array<number>(tsWidth).fill(0)];
    body.push(...lengthDelimited(2, sample));
    const series = lengthDelimited(1, body);
    const sampleAt = offset + series.length - sample.length;
    valueAt[i - first] = sampleAt + 1;
    timeAt[i - first] = sampleAt + 10;
    parts.push(series);
    offset += series.length;
  }
  const bytes = Buffer.allocUnsafe(offset);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, first, valueAt, timeAt };
}

/** Encodes the whole load; memory is about the compressed size (printed by the caller). */
export function encodeLoad(cat: Catalogue, options: LoadOptions): EncodedLoad {
  const { start, scrapes, perRequest } = options;
  const tsWidth = uvarintSize(start);
  const lastTime = start + (scrapes + 1) * 15_000;
  if (uvarintSize(lastTime) !== tsWidth) throw new Error(`timestamps ${start}..${lastTime} do not share one varint width; pick another start`);
  const templates: Template[] = [];
  for (let first = 0; first < cat.count; first += perRequest) templates.push(buildTemplate(cat, first, Math.min(cat.count, first + perRequest), tsWidth));

  const stepper = new ValueStepper(cat);
  const values = new Float64Array(cat.count);
  const times = new Float64Array(cat.count);
  const requests: Buffer[][] = [];
  let rawBytes = 0;
  let compressedBytes = 0;
  let minTime = Infinity;
  let maxTime = -Infinity;
  for (let s = 0; s < scrapes; s++) {
    stepper.next(start, values, times);
    const row: Buffer[] = [];
    for (const t of templates) {
      const { bytes, first, valueAt, timeAt } = t;
      for (let k = 0; k < valueAt.length; k++) {
        bytes.writeDoubleLE(values[first + k]!, valueAt[k]!);
        const ts = times[first + k]!;
        putUvarintPadded(bytes, timeAt[k]!, ts, tsWidth);
        if (ts < minTime) minTime = ts;
        if (ts > maxTime) maxTime = ts;
      }
      // compressSync hands back a buffer sized for the worst case (about
      // 1.17x the input); keep an exact copy so that the whole load stays at
      // its compressed size in memory.
      const compressed = Buffer.from(compressSync(bytes));
      rawBytes += bytes.length;
      compressedBytes += compressed.length;
      row.push(compressed);
    }
    requests.push(row);
    options.onScrape?.(s);
  }
  return { requests, series: cat.count, scrapes, samples: cat.count * scrapes, rawBytes, compressedBytes, minTime, maxTime };
}
