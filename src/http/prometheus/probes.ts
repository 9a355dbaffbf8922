/**
 * GET /-/healthy and GET /-/ready, as Prometheus serves them for
 * orchestrators' probes: healthy answers 200 for as long as the process
 * serves HTTP; ready answers 200 once both listeners accept requests and
 * the write-ahead log has been replayed, and 503 before that and while
 * stopping. Plain text bodies.
 */
import type { RouteSpec } from '../route.js';
/** What the probes ask: the engine's Readiness, or a sidecar's state. */
export interface ReadinessState {
  readonly ready: boolean;
  /** Why not ready (meaningless while ready). */
  readonly reason: string;
}

const TEXT = 'text/plain; charset=utf-8';

export function probeRoutes(readiness: ReadinessState): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/-/healthy',
      body: { kind: 'none' },
      handler: () => ({ status: 200, contentType: TEXT, body: 'Strata is Healthy.\n' }),
    },
    {
      method: 'GET',
      path: '/-/ready',
      body: { kind: 'none' },
      handler: () => readiness.ready
        ? { status: 200, contentType: TEXT, body: 'Strata is Ready.\n' }
        : { status: 503, contentType: TEXT, body: `Strata is not ready: ${readiness.reason}.\n` },
    },
  ];
}
