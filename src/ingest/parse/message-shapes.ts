import { WIRE, wrongWireType } from '../../encoding/wire-reader.js';
import type { WireReader } from '../../encoding/wire-reader.js';
import { malformedRequest } from '../../errors/errors.js';

/**
 * What a field of a message read only to be counted must look like: its
 * wire type, its message shape if it is one, or the element wire type if
 * it is a repeated number (sent packed or not).
 */
interface FieldShape {
  wire: number;
  message?: MessageShape;
  packed?: typeof WIRE.varint | typeof WIRE.fixed64;
}

/** A message's known fields; others are skipped as unknown. */
export interface MessageShape {
  name: string;
  fields: Readonly<Record<number, FieldShape>>;
}

const varint: FieldShape = { wire: WIRE.varint };
const double: FieldShape = { wire: WIRE.fixed64 };
const bytes: FieldShape = { wire: WIRE.len };
const packedVarints: FieldShape = { wire: WIRE.varint, packed: WIRE.varint };

const LABEL: MessageShape = { name: 'Label', fields: { 1: bytes, 2: bytes } };

/** prometheus.Exemplar: labels = 1, value = 2, timestamp = 3. */
export const EXEMPLAR: MessageShape = {
  name: 'Exemplar',
  fields: { 1: { wire: WIRE.len, message: LABEL }, 2: double, 3: varint },
};

/** io.prometheus.write.v2.Exemplar: labels_refs = 1, value = 2, timestamp = 3. */
export const EXEMPLAR_V2: MessageShape = {
  name: 'Exemplar',
  fields: { 1: packedVarints, 2: double, 3: varint },
};

/** io.prometheus.write.v2.Metadata: type = 1, help_ref = 3, unit_ref = 4. */
export const METADATA_V2: MessageShape = {
  name: 'Metadata',
  fields: { 1: varint, 3: varint, 4: varint },
};

/** prometheus.MetricMetadata: type = 1, metric_family_name = 2, help = 4, unit = 5. */
export const METRIC_METADATA: MessageShape = {
  name: 'MetricMetadata',
  fields: { 1: varint, 2: bytes, 4: bytes, 5: bytes },
};

/**
 * Checks that [r.pos, end) is a well-formed message of `shape`, nested
 * messages included, as the generated parsers of Thanos and Prometheus
 * would read it, and moves to `end`. Messages read only to be counted
 * (exemplars, metadata) go through this, so that a corrupt one
 * makes the request malformed here as it would there. (Histograms are
 * read in full: histogram-reader.ts.) The shapes are not
 * recursive, so neither is the depth.
 */
export function checkMessage(r: WireReader, end: number, shape: MessageShape): void {
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    const wire = tag & 7;
    const field = shape.fields[tag >>> 3];
    if (field === undefined) {
      r.skip(wire, end);
    } else if (field.message !== undefined && wire === WIRE.len) {
      checkMessage(r, r.len(end), field.message);
    } else if (field.packed !== undefined && wire === WIRE.len) {
      const stop = r.len(end);
      if (field.packed === WIRE.fixed64) {
        if ((stop - r.pos) % 8 !== 0) throw malformedRequest(r.pos, `${shape.name} field ${tag >>> 3}: packed doubles are not a multiple of 8 bytes`);
        r.pos = stop;
      } else {
        while (r.pos < stop) r.varint64(stop);
      }
    } else if (wire === field.wire) {
      r.skip(wire, end);
    } else {
      throw wrongWireType(at, shape.name, tag >>> 3, wire, field.wire);
    }
  }
}
