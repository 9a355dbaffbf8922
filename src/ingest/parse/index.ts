/**
 * Remote-write parsing: protobuf bytes of a thanos or prometheus
 * WriteRequest straight into an append batch (src/record/append-batch.ts),
 * off the event loop through parseWriteInPool (src/ingest/parse-task.ts).
 */
export { parseWriteRequest, DEFAULT_TENANT, DEFAULT_TENANT_LABEL } from './parse-write.js';
export type { ParsedWrite, ParseWriteOptions } from './parse-write.js';
export { MalformedRequestError, malformedRequest } from '../../errors/errors.js';
