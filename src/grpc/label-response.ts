import { WIRE_LEN, writeTag } from '../encoding/proto-writer.js';
import { putUvarint } from '../encoding/varint.js';

/**
 * thanos.LabelNamesResponse and thanos.LabelValuesResponse share one
 * layout: `repeated string` names or values in field 1, warnings in field
 * 2 (the hints in field 3 are never set by Strata).
 */
const FIELD_STRINGS = 1;
const FIELD_WARNINGS = 2;

/**
 * Encoded `strings` fields of frozen lists: the head's index answers a
 * label's values as one frozen array until they change (LabelDict
 * .sortedValues), so repeated calls reuse the bytes. Frozen arrays only:
 * what a caller may still modify is never cached. Weak: an entry goes with
 * its list.
 */
const encodedLists = new WeakMap<readonly string[], Buffer>();

/**
 * Encodes a LabelNamesResponse or LabelValuesResponse as protobuf bytes,
 * for gRPC's response serializer (the caller must not modify the bytes:
 * they may be shared by later answers). The generated encoder writes each
 * string through a writer that allocates per field: for 100,000 values
 * about 2 ms of encoding and as much again of garbage collection on the
 * event loop per call (bench/RESULTS.md, 2026-11-27). Here a frozen list
 * is encoded once (see encodedLists); others in one pass: strings of under
 * 43 UTF-16 code units (names and values nearly always) take at most 126
 * UTF-8 bytes, so their 1-byte length is written after the string itself,
 * and ASCII is copied by a loop rather than a call into the runtime.
 *
 * @example
 * const bytes = encodeLabelsResponse(['a', 'b'], []); // <0a 01 61 0a 01 62>
 */
export function encodeLabelsResponse(strings: readonly string[], warnings: readonly string[]): Buffer {
  let list = Object.isFrozen(strings) ? encodedLists.get(strings) : undefined;
  if (list === undefined) {
    list = encodeStrings(FIELD_STRINGS, strings);
    if (Object.isFrozen(strings)) encodedLists.set(strings, list);
  }
  return warnings.length === 0 ? list : Buffer.concat([list, encodeStrings(FIELD_WARNINGS, warnings)]);
}

function encodeStrings(field: number, strings: readonly string[]): Buffer {
  let most = 0;
  for (let i = 0; i < strings.length; i++) most += strings[i]!.length * 3 + 6;
  const b = Buffer.allocUnsafe(most);
  return b.subarray(0, writeStrings(b, 0, field, strings));
}

function writeStrings(b: Buffer, at: number, field: number, strings: readonly string[]): number {
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]!;
    at = writeTag(b, at, field, WIRE_LEN);
    if (s.length < 43) {
      const len = writeShort(b, at + 1, s);
      b[at] = len;
      at += 1 + len;
    } else {
      const len = Buffer.byteLength(s, 'utf8');
      at = putUvarint(b, at, len);
      at += b.write(s, at, 'utf8');
    }
  }
  return at;
}

/** Writes a short string as UTF-8 at `at`, returning its length in bytes. */
function writeShort(b: Buffer, at: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return b.write(s, at, 'utf8');
    b[at + i] = c;
  }
  return n;
}
