import type { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import { errorKind } from '../errors/status.js';
import { internalError } from '../errors/errors.js';
import type { SeriesSet, SourceSeries, StoreSource } from './store-source.js';

/**
 * Panic recovery, as Thanos' recoverableStoreServer: whatever a source
 * throws or rejects with that is not one of the typed errors (a request
 * the caller can fix, a limit, not ready) is the source's own fault. It
 * becomes an Internal error whose message says which call of which source
 * failed and why (the original is its `cause`, with its stack, for the
 * log), instead of an anonymous exception. Together with the rule that a
 * set is closed on every path (store-api.ts), the read a failed source
 * held is released and the stream ends with that status: nothing crashes,
 * nothing hangs.
 *
 * It sits directly over the source, under the other decorators, so that
 * what they see of a source is either an answer or a typed error. A
 * source that fails inside a callback of its own (an event handler, a
 * timer) must pass the failure on to the promise it returned: no wrapper
 * can catch what is thrown outside its call.
 */
export function recovering(source: StoreSource, name: string): StoreSource {
  const fault = (call: string, err: unknown): unknown => (errorKind(err) !== undefined ? err : internalError(`${call}: the ${name} failed: ${messageOf(err)}`, err));
  return {
    series(query) {
      try {
        return new RecoveringSet(source.series(query), (call, err) => fault(`Series (${call})`, err));
      } catch (err) {
        throw fault('Series', err);
      }
    },
    async labelNames(query) {
      try {
        return await source.labelNames(query);
      } catch (err) {
        throw fault('LabelNames', err);
      }
    },
    async labelValues(query) {
      try {
        return await source.labelValues(query);
      } catch (err) {
        throw fault('LabelValues', err);
      }
    },
    async info() {
      try {
        return await source.info();
      } catch (err) {
        throw fault('Info', err);
      }
    },
  };
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return `non-error value thrown: ${String(err)}`;
}

class RecoveringSet implements SeriesSet {
  constructor(private readonly inner: SeriesSet, private readonly fault: (call: string, err: unknown) => unknown) {}

  async next(): Promise<readonly SourceSeries[] | undefined> {
    try {
      return await this.inner.next();
    } catch (err) {
      throw this.fault('reading series', err);
    }
  }

  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[] {
    try {
      return this.inner.chunks(series, arena);
    } catch (err) {
      throw this.fault('reading chunks', err);
    }
  }

  hasSurrogates(): boolean {
    try {
      return this.inner.hasSurrogates();
    } catch (err) {
      throw this.fault('hasSurrogates', err);
    }
  }

  close(): void {
    try {
      this.inner.close();
    } catch (err) {
      throw this.fault('closing', err);
    }
  }
}
