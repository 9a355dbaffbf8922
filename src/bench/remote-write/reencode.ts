/**
 * The planned load (snappy-compressed prometheus.WriteRequests, plan.ts)
 * re-encoded request by request for another wire (gRPC frames, OTLP
 * bodies), before the clock starts, within the memory allowed for it.
 */
import { uncompressSync } from 'snappy';
import { LoadTooLargeError } from '../load/plan.js';

/**
 * Each request of `compressed`, decompressed and given to `encode`, in
 * order; each result its own Buffer.
 *
 * @param what - how the bodies are named when they do not fit, e.g. "snappy-framed gRPC messages"
 * @throws LoadTooLargeError when the bodies together take more than `maxBytes`
 */
export function reencodeRequests(compressed: readonly Buffer[], maxBytes: number, what: string, encode: (plain: Buffer) => Buffer): Buffer[] {
  const out: Buffer[] = new Array(compressed.length);
  let total = 0;
  for (let i = 0; i < compressed.length; i++) {
    const body = encode(uncompressSync(compressed[i]!) as Buffer);
    total += body.length;
    if (total > maxBytes) {
      throw new LoadTooLargeError(`the load takes more than ${Math.round(maxBytes / 2 ** 20)} MiB as ${what} (at request ${i + 1} of ${compressed.length}); lower --series or --samples-per-series, or raise --max-encoded`);
    }
    out[i] = body;
  }
  return out;
}
