/**
 * Answers in the Prometheus HTTP API's envelope: `{"status":"success",
 * "data":...}` (with `warnings` when there are any), and errors as
 * `{"status":"error","errorType":"bad_data","error":"..."}` with the
 * matching status, which Grafana and other Prometheus clients understand.
 */
import type { Logger } from 'pino';
import { httpStatusOf } from '../../errors/status.js';
import { HttpProblem } from '../errors.js';
import type { Handler, Reply, RequestContext } from '../route.js';

/** A success reply around `data`, already JSON. */
export function success(data: string, warnings: readonly string[] = []): Reply {
  const w = warnings.length === 0 ? '' : `,"warnings":${JSON.stringify(warnings)}`;
  return { status: 200, body: `{"status":"success","data":${data}${w}}` };
}

/** Prometheus' errorType for a status. */
function errorType(status: number): string {
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'internal';
  return 'bad_data';
}

/** The error reply for `err`: its status by the error table; our own faults logged and answered without internals. */
export function errorReply(err: unknown, log: Logger): Reply {
  const status = err instanceof HttpProblem ? err.status : httpStatusOf(err);
  let message = (err as Error).message;
  if (status === 500) {
    log.error({ err }, 'request failed');
    message = 'the server failed to answer this request; the error is logged';
  }
  return { status, body: JSON.stringify({ status: 'error', errorType: errorType(status), error: message }) };
}

/** `handler` with every error answered in the envelope. */
export function apiHandler(handler: (ctx: RequestContext) => Reply, log: Logger): Handler {
  return (ctx) => {
    try {
      return handler(ctx);
    } catch (err) {
      return errorReply(err, log);
    }
  };
}
