import { metricTypeName, type MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import { METRIC_METADATA, checkMessage } from './message-shapes.js';
import { invalidUtf8At } from '../../encoding/utf8.js';
import { WIRE, type WireReader } from '../../encoding/wire-reader.js';

const TYPE = (1 << 3) | WIRE.varint;
const FAMILY = (2 << 3) | WIRE.len;
const HELP = (4 << 3) | WIRE.len;
const UNIT = (5 << 3) | WIRE.len;

const decoder = new TextDecoder();

/**
 * Reads the prometheus.MetricMetadata at [r.pos, end) (remote write 1.0's
 * WriteRequest.metadata) and moves to `end`. Undefined for an entry that
 * names no family, or whose strings are not valid UTF-8: such an entry is
 * left out (Prometheus' own receiver ignores 1.0 metadata altogether), it
 * does not refuse the write.
 *
 * @throws MalformedRequestError when the message is not well-formed
 */
export function readMetricMetadata(r: WireReader, end: number): MetricMetadataEntry | undefined {
  const start = r.pos;
  checkMessage(r, end, METRIC_METADATA);
  r.pos = start;
  let type = 0;
  let family = '';
  let help = '';
  let unit = '';
  let valid = true;
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === TYPE) {
      type = r.int64Number(end);
    } else if (tag === FAMILY || tag === HELP || tag === UNIT) {
      const stop = r.len(end);
      if (invalidUtf8At(r.buf, r.pos, stop) >= 0) valid = false;
      const text = decoder.decode(r.buf.subarray(r.pos, stop));
      if (tag === FAMILY) family = text;
      else if (tag === HELP) help = text;
      else unit = text;
      r.pos = stop;
    } else {
      r.skip(tag & 7, end);
    }
  }
  if (!valid || family === '') return undefined;
  return { family, type: metricTypeName(type), help, unit };
}
