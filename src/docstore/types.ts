/**
 * The contract between the JSON resources (src/http) and the record store
 * (src/records). One writer: every method is called on the main thread.
 */

/** The kinds of record kept; each has its own id space. */
export type Collection = 'tasks' | 'users' | 'discussions' | 'comments';

/** A JSON object as stored and as answered (output key names, final shape). */
export type RecordValue = Record<string, unknown>;

export type WriteOp =
  | { op: 'put'; collection: Collection; id: number; value: RecordValue }
  | { op: 'delete'; collection: Collection; id: number };

export interface RecordStore {
  /**
   * The highest id ever written in `collection`, deleted records included,
   * 0 when none. It never goes down, across restarts and compactions, so
   * ids are never reused.
   */
  lastId(collection: Collection): number;

  /** The record's value, or undefined when there is none. */
  get(collection: Collection, id: number): RecordValue | undefined;

  /**
   * The record's stored JSON as UTF-8 bytes, or undefined. The view stays
   * readable for as long as the caller holds it (it may point into a memory
   * map; the map lives while any view of it does, even after compaction
   * deleted the file or close()) but must not be written. It holds the
   * value as of this call: a later commit writes new bytes elsewhere.
   */
  getJson(collection: Collection, id: number): Uint8Array | undefined;

  /**
   * Live records of `collection` in ascending id order, ids > `afterId`
   * (default 0), each parsed when reached. Commits made while iterating are
   * seen if they touch ids not yet reached.
   */
  scan(collection: Collection, afterId?: number): IterableIterator<[number, RecordValue]>;

  /** Live records in `collection`. */
  count(collection: Collection): number;

  /**
   * Applies the ops atomically, in order: get/scan see them as soon as this
   * returns. The promise resolves once they are written and fsynced (ops of
   * writes that arrive together share one fsync). An fsync failure is fatal
   * to the process: memory and disk could no longer agree.
   * Throws synchronously, applying nothing: InvalidWriteError if an op is
   * invalid (id not a positive safe integer, a value that is not a JSON
   * object, an unknown collection) or the commit is too big; the write's own
   * error if the OS refused it (disk full); RecordStoreStateError once the
   * store is closed or has failed. An empty commit resolves at once.
   */
  commit(ops: readonly WriteOp[]): Promise<void>;

  /**
   * Waits for pending fsyncs, stops a running compaction at its next step
   * (a crash-safe point), fsyncs and releases the files. Commits after
   * close() throw; reads keep answering from memory. Calling it again
   * returns the same promise.
   */
  close(): Promise<void>;
}
