/**
 * Whether the server is ready, and the engine (and its Writer) once it is. `strata serve`
 * starts the HTTP listener before the storage engine has replayed its
 * write-ahead log: until {@link Readiness.markReady}, /-/ready answers 503
 * and so do the routes that need the engine.
 */
import type { Db } from '../../db/db.js';
import type { Writer } from '../../ingest/writer.js';
import { unavailable } from '../errors.js';

/** The readiness of one server. One writer (serve); routes read it. */
export class Readiness {
  private engine: Db | undefined;
  private writes: Writer | undefined;
  private why = 'the server is starting: the storage engine is opening (write-ahead log replay)';
  private stopping = false;

  /** True once both listeners accept requests and the engine is open; false again once stopping begins. */
  get ready(): boolean {
    return this.engine !== undefined && !this.stopping;
  }

  /** Why the engine refuses writes (a full or failing disk), undefined while it stores them. */
  get refusing(): string | undefined {
    return this.engine?.writeRefusal;
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

  /**
   * The Writer remote writes go through (src/ingest/writer.ts).
   * @throws HttpProblem 503 while the server is not ready
   */
  writer(): Writer {
    this.db();
    if (this.writes === undefined) throw new Error('this server was made ready without a Writer: it takes no writes');
    return this.writes;
  }

  /** The engine is open and every listener accepts requests; writes go through `writer`. */
  markReady(db: Db, writer?: Writer): void {
    this.engine = db;
    this.writes = writer;
  }

  /**
   * The server is stopping: /-/ready answers 503, while requests still in
   * flight (a body still arriving, within the grace period) keep the
   * engine until {@link markStopped}.
   */
  markStopping(): void {
    this.stopping = true;
    this.why = 'the server is stopping';
  }

  /** The listeners are closed: requests that need the engine are refused from now on. */
  markStopped(): void {
    this.markStopping();
    this.engine = undefined;
    this.writes = undefined;
  }
}
