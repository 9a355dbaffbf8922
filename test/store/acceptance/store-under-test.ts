/**
 * What the Store API acceptance suite (./suite.ts) runs against: a store
 * opened with some serve flags, written to, and called as a Thanos client
 * calls it. Four implementations: `strata serve` over gRPC (./grpc.test.ts),
 * the engine source with the decorators in process (./engine.test.ts), a
 * trivial in-memory source with the same decorators (./memory.test.ts),
 * and the sidecar's source over a real Prometheus (./sidecar-under-test.ts).
 *
 * In process, a call crosses the same encodings as over the wire: the
 * client's request encoding, the server's generated decoding, the Store
 * API, the server's encoding (hand-written Series frames), the client's
 * decoding; errors map to gRPC codes by the server's one table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type {
  Answer, InfoResponse, LabelNamesRequest, LabelNamesResponse, LabelValuesRequest, LabelValuesResponse,
  SeriesAnswer, SeriesRequest, StoreInfoResponse,
} from '../support/client.js';
import { StoreClient, decodeSeriesFrame, grpc, wire } from '../support/client.js';
import { codeName } from '../support/calls.js';
import { compareStrings } from '../support/series-check.js';
import { startStrata } from '../support/strata-grpc.js';
import { encodeWriteRequest, type WriteRequestInput } from '../support/write-request.js';
import {
  InfoResponse as StoreInfoMessage, LabelNamesRequest as LabelNamesMessage, LabelNamesResponse as LabelNamesAnswer,
  LabelValuesRequest as LabelValuesMessage, LabelValuesResponse as LabelValuesAnswer, SeriesRequest as SeriesMessage,
} from '../../../src/gen/thanos/store/rpc.js';
import { InfoResponse as InfoServiceMessage } from '../../../src/gen/thanos/info/rpc.js';
import { Db } from '../../../src/db/db.js';
import { instantiateHeadWasm, type HeadWasm } from '../../../src/wasm/head.js';
import { grpcStatusOf } from '../../../src/errors/status.js';
import { ExternalLabels } from '../../../src/store/external-labels.js';
import type { SeriesSink } from '../../../src/store/series-sink.js';
import type { StoreApi } from '../../../src/store/store-api.js';
import { engineStoreApi, storeApiOver, type StoreApiConfig } from '../../../src/store/store-stack.js';
import { batchBuilder } from '../../support/db.js';
import { MemorySource } from './memory-source.js';

/** The serve flags a group needs. */
export interface StoreConfig {
  /** --label name=value. */
  externalLabels?: Record<string, string>;
  /** --replica-label. */
  replicaLabels?: string[];
  /** --store.limits.request-series / -samples. */
  seriesLimit?: number;
  samplesLimit?: number;
}

/** A store as the suite uses it: StoreClient's calls, plus writes and closing. */
export interface StoreUnderTest {
  /** Writes as a RemoteWrite that must succeed (the tenant label added for the request's tenant). */
  write(input: WriteRequestInput): Promise<void>;
  series(request: SeriesRequest, options?: { deadlineMs?: number }): Promise<SeriesAnswer>;
  labelNames(request: LabelNamesRequest): Promise<Answer<LabelNamesResponse>>;
  labelValues(request: LabelValuesRequest): Promise<Answer<LabelValuesResponse>>;
  /** thanos.info.Info/Info. */
  info(): Promise<Answer<InfoResponse>>;
  /** thanos.Store/Info (deprecated). */
  storeInfo(): Promise<Answer<StoreInfoResponse>>;
  close(): Promise<void>;
}

/**
 * What kind of store a factory opens, where Thanos' stores legitimately
 * answer differently; the groups' expectations follow it.
 */
export interface StoreKind {
  /** Info's ComponentType; Store.Info's storeType follows (receive: RECEIVE, sidecar: SIDECAR). */
  readonly component: 'receive' | 'sidecar';
  /**
   * How the tenant of a write is held.
   * - 'external': as Thanos Receive, each tenant's data carries the tenant
   *   label as an external label: Info's label_sets hold one set per
   *   tenant, and LabelNames leaves the tenant label out when
   *   without_replica_labels names it.
   * - 'stored': the store has no tenants (a sidecar over Prometheus): the
   *   tenant label is written with each series as an ordinary label, so it
   *   is answered as stored; label_sets hold the external labels alone, and
   *   LabelNames keeps it, as Thanos keeps stored names.
   */
  readonly tenants: 'external' | 'stored';
  /** Whether thanos.Exemplars and thanos.Metadata are served beside the Store API (Info sets `exemplars` and `metric_metadata`). */
  readonly exemplarsAndMetadata?: boolean;
}

/** strata serve and the engine: Thanos Receive's shape. */
export const RECEIVE_KIND: StoreKind = { component: 'receive', tenants: 'external' };
/** The engine, which serves exemplars and metadata beside the Store API. */
export const ENGINE_KIND: StoreKind = { ...RECEIVE_KIND, exemplarsAndMetadata: true };

/**
 * Behaviours of the suite where a store may answer differently by design,
 * by the test that shows each:
 * - labelsInDataSpan: LabelNames and LabelValues of a range without data
 *   that lies between data held in one place answer nothing (labels.ts).
 */
export type KnownDifference = 'labelsInDataSpan';

export interface StoreFactory {
  /** What the store is, for test titles. */
  readonly name: string;
  readonly kind: StoreKind;
  /**
   * Where its store answers differently by design, each with the reason
   * (as the system it stands in for does): those tests are skipped for it,
   * saying why. Absent: none.
   */
  readonly differences?: Readonly<Partial<Record<KnownDifference, string>>>;
  open(config: StoreConfig): Promise<StoreUnderTest>;
}

/** Skips the running test, with the reason, where `factory` declares `difference`; returns whether it did. */
export function skippedAsDifferent(t: TestContext, factory: StoreFactory, difference: KnownDifference): boolean {
  const reason = factory.differences?.[difference];
  if (reason === undefined) return false;
  t.skip(`answers differently by design: ${reason}`);
  return true;
}

export const TENANT_LABEL = 'tenant_id';
const DEFAULT_TENANT = 'default-tenant';

/** `strata serve` (from dist/) with the flags, called over gRPC. */
export const grpcStrata: StoreFactory = {
  name: 'strata serve over gRPC',
  kind: ENGINE_KIND,
  async open(config) {
    const args = [
      ...Object.entries(config.externalLabels ?? {}).flatMap(([n, v]) => ['--label', `${n}=${JSON.stringify(v)}`]),
      ...(config.replicaLabels ?? []).flatMap((n) => ['--replica-label', n]),
      ...(config.seriesLimit === undefined ? [] : ['--store.limits.request-series', String(config.seriesLimit)]),
      ...(config.samplesLimit === undefined ? [] : ['--store.limits.request-samples', String(config.samplesLimit)]),
    ];
    const strata = await startStrata({ args });
    const client = new StoreClient(strata.grpcAddress);
    return {
      async write(input) {
        const a = await client.remoteWrite(encodeWriteRequest(input));
        if (a.code !== grpc.status.OK) throw new Error(`RemoteWrite answered ${codeName(a.code)}: ${a.details}`);
      },
      series: (request, options) => client.series(request, options),
      labelNames: (request) => client.labelNames(request),
      labelValues: (request) => client.labelValues(request),
      info: () => client.info(),
      storeInfo: () => client.storeInfo(),
      async close() {
        client.close();
        await strata.stop();
      },
    };
  },
};

/** The engine source and the decorators in process, over a Db on a temporary directory. */
export const inProcessEngine: StoreFactory = {
  name: 'engine source in process',
  kind: ENGINE_KIND,
  async open(config) {
    const dir = mkdtempSync(join(tmpdir(), 'strata-acceptance-'));
    const db = await Db.open({ dataDir: join(dir, 'data'), retentionIntervalMs: 3_600_000 });
    return inProcess(engineStoreApi(db, apiConfig(config), wasm()), {
      async write(input) {
        const b = batchBuilder([TENANT_LABEL, tenantOf(input)]);
        for (const s of input.timeseries) {
          const samples = s.samples ?? [];
          const values = new Float64Array(samples.length);
          const bits = new BigUint64Array(values.buffer);
          samples.forEach((x, i) => {
            if (x.bits !== undefined) bits[i] = x.bits;
            else values[i] = x.v ?? 0;
          });
          b.add(sortedLabels(s.labels), BigInt64Array.from(samples.map((x) => x.t)), values);
        }
        const result = db.append(b.finish());
        if (result.appended !== input.timeseries.reduce((n, s) => n + (s.samples?.length ?? 0), 0)) {
          throw new Error(`the engine took ${result.appended} samples of the write: ${JSON.stringify(result)}`);
        }
      },
      async close() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  },
};

/** A trivial in-memory source with the decorators, in process: what the decorators alone make right. */
export const inProcessMemory: StoreFactory = {
  name: 'in-memory source in process',
  kind: RECEIVE_KIND,
  async open(config) {
    const source = new MemorySource(TENANT_LABEL);
    return inProcess(storeApiOver(source, apiConfig(config), wasm(), 'in-memory source', 'receive'), {
      async write(input) {
        for (const s of input.timeseries) source.add(sortedLabels(s.labels), tenantOf(input), s.samples ?? []);
      },
      async close() {},
    });
  },
};

let sharedWasm: HeadWasm | undefined;
/** One HeadWasm for every store of a test file (the decorators' shard hashing). */
export const wasm = (): HeadWasm => (sharedWasm ??= instantiateHeadWasm());

/** The tenant a write is for: its own, or the default tenant. */
export const tenantOf = (input: WriteRequestInput): string => (input.tenant === undefined || input.tenant === '' ? DEFAULT_TENANT : input.tenant);

function sortedLabels(pairs: ReadonlyArray<readonly [string, string]>): string[] {
  return [...pairs].sort(([a], [b]) => compareStrings(a, b)).flat();
}

/** The flags as `strata serve` turns them into the Store API's configuration. */
export function apiConfig(config: StoreConfig): StoreApiConfig {
  const ext = Object.entries(config.externalLabels ?? {}).sort(([a], [b]) => compareStrings(a, b));
  return {
    externalLabels: new ExternalLabels(ext),
    replicaLabels: new Set(config.replicaLabels ?? []),
    tenantLabel: TENANT_LABEL,
    seriesLimit: config.seriesLimit ?? 0,
    samplesLimit: config.samplesLimit ?? 0,
  };
}

/** Collects a Series answer's messages. */
class CollectingSink implements SeriesSink {
  readonly blocked = false;
  readonly frames: Buffer[] = [];

  alloc(size: number): Buffer {
    return Buffer.allocUnsafe(size);
  }

  send(frame: Buffer): void {
    this.frames.push(frame);
  }

  drained(): Promise<void> {
    return Promise.resolve();
  }

  flush(): void {}
}

/** An answer or the status its error maps to, as serveStoreApi answers. */
async function answer<T>(call: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { code: grpc.status.OK, details: '', response: await call() };
  } catch (err) {
    return { code: grpcStatusOf(err), details: (err as Error).message };
  }
}

/** A Store API in process, called across the same encodings as over gRPC. */
export function inProcess(api: StoreApi, store: Pick<StoreUnderTest, 'write' | 'close'>): StoreUnderTest {
  const unary = <Req extends object, Res>(
    name: string, decode: (b: Uint8Array) => Req, run: (r: Req) => Promise<Res>, encode: (r: Res) => Uint8Array,
  ) => (request: object): Promise<Answer<never>> => answer(async () => {
    const decoded = decode(wire.encodeRequest('thanos.Store', name, request));
    return wire.decodeResponse<never>('thanos.Store', name, encode(await run(decoded)));
  });
  return {
    ...store,
    async series(request) {
      const sink = new CollectingSink();
      const a = await answer(() => api.series(SeriesMessage.decode(wire.encodeRequest('thanos.Store', 'Series', request)), sink));
      return { code: a.code, details: a.details, frames: sink.frames.map((f) => decodeSeriesFrame(f)) };
    },
    labelNames: unary('LabelNames', (b) => LabelNamesMessage.decode(b), (r) => api.labelNames(r), (r) => LabelNamesAnswer.encode(r).finish()),
    labelValues: unary('LabelValues', (b) => LabelValuesMessage.decode(b), (r) => api.labelValues(r), (r) => LabelValuesAnswer.encode(r).finish()),
    storeInfo: () => answer(async () => wire.decodeResponse<StoreInfoResponse>('thanos.Store', 'Info', StoreInfoMessage.encode(await api.info()).finish())),
    info: () => answer(async () => wire.decodeResponse<InfoResponse>('thanos.info.Info', 'Info', InfoServiceMessage.encode(await api.infoService()).finish())),
  };
}
