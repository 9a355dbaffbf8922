/**
 * GET /-/healthy and GET /-/ready, as Prometheus serves them for
 * orchestrators' probes: healthy answers 200 for as long as the process
 * serves HTTP; ready answers 200 once both listeners accept requests and
 * the write-ahead log has been replayed, and 503 before that, while
 * stopping, and while the engine refuses writes (a full or failing disk:
 * a load balancer should send them elsewhere). Plain text bodies.
 */
import type { RouteSpec } from '../route.js';
/** What the probes ask: the engine's Readiness, or a sidecar's state. */
export interface ReadinessState {
  readonly ready: boolean;
  /** Why not ready (meaningless while ready). */
  readonly reason: string;
  /** Why writes are refused while ready (a full disk), if they are. */
  readonly refusing?: string | undefined;
}

/** Why the server should not be sent traffic now; undefined when it should. */
export function notReady(readiness: ReadinessState): string | undefined {
  return readiness.ready ? readiness.refusing : readiness.reason;
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
      handler: () => {
        const why = notReady(readiness);
        return why === undefined
          ? { status: 200, contentType: TEXT, body: 'Strata is Ready.\n' }
          : { status: 503, contentType: TEXT, body: `Strata is not ready: ${why}.\n` };
      },
    },
  ];
}
