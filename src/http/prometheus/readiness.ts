/**
 * Whether the server is ready, and the engine once it is. `strata serve`
 * starts the HTTP listener before the storage engine has replayed its
 * write-ahead log: until {@link Readiness.markReady}, /-/ready answers 503
 * and so do the routes that need the engine.
 */
import type { Db } from '../../db/db.js';
import { unavailable } from '../errors.js';

/** The readiness of one server. One writer (serve); routes read it. */
export class Readiness {
  private engine: Db | undefined;
  private why = 'the server is starting: the storage engine is opening (write-ahead log replay)';

  /** True once both listeners accept requests and the engine is open; false again while stopping. */
  get ready(): boolean {
    return this.engine !== undefined;
  }

  /** Why the server is not ready (meaningless while it is). */
  get reason(): string {
    return this.why;
  }

  /**
   * The engine, for a request that needs it.
   * @throws HttpProblem 503 while the server is not ready
   */
  db(): Db {
    if (this.engine === undefined) throw unavailable(this.why);
    return this.engine;
  }

  /** The engine is open and every listener accepts requests. */
  markReady(db: Db): void {
    this.engine = db;
  }

  /** The server is stopping: requests that need the engine are refused from now on. */
  markStopping(): void {
    this.engine = undefined;
    this.why = 'the server is stopping';
  }
}
