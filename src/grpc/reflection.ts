/**
 * gRPC server reflection (what grpcurl uses without proto files), added a
 * moment after the server starts rather than before it listens: loading
 * @grpc/reflection, @grpc/proto-loader and protobufjs and parsing the
 * protos (grpc-health-check's health.proto among them) took about
 * 0.1-0.2 s of a start's CPU (issue 29: restart in under 2 s). Until it
 * is added, reflection calls answer UNIMPLEMENTED; nothing else depends
 * on it.
 */
import { fileURLToPath } from 'node:url';
import type * as grpc from '@grpc/grpc-js';
import { pageOutSoon } from '../pool/collect.js';

const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

/**
 * After the server's start, the first reads of a restarted server come
 * first (a Thanos Querier reconnecting); a person typing grpcurl comes
 * later than this.
 */
export const REFLECTION_DELAY_MS = 1000;

/** What addReflectionLater() started; cancel() before the server closes. */
export interface PendingReflection {
  cancel(): void;
  /** Settles once reflection is added (or was cancelled, or failed: logged). */
  readonly added: Promise<void>;
}

/**
 * Adds reflection to `server` after `delayMs`, listing `services` (all
 * that the server holds when undefined). A failure is logged as a warning.
 */
export function addReflectionLater(
  server: grpc.Server,
  services: string[] | undefined,
  log: { warn(o: object, msg: string): void },
  delayMs = REFLECTION_DELAY_MS,
): PendingReflection {
  let cancelled = false;
  let timer: NodeJS.Timeout | undefined;
  const added = new Promise<void>((done) => {
    timer = setTimeout(() => {
      add(server, services, () => cancelled)
        .catch((err: unknown) => log.warn({ err }, 'gRPC server reflection not served'))
        .finally(() => {
          // Loading it touched code pages the start-up page-out had let go (when that is on).
          pageOutSoon();
          done();
        });
    }, delayMs);
    timer.unref();
  });
  return {
    added,
    cancel: () => {
      cancelled = true;
      clearTimeout(timer);
    },
  };
}

async function add(server: grpc.Server, services: string[] | undefined, cancelled: () => boolean): Promise<void> {
  const [{ ReflectionService }, protoLoader, { protoPath: healthProtoPath }] = await Promise.all([
    import('@grpc/reflection'), import('@grpc/proto-loader'), import('grpc-health-check'),
  ]);
  if (cancelled()) return;
  const definitions = protoLoader.loadSync(
    ['thanos/store/rpc.proto', 'thanos/info/rpc.proto', 'thanos/exemplars/rpc.proto', 'thanos/metadata/rpc.proto', healthProtoPath],
    { includeDirs: [PROTO_DIR], keepCase: true },
  );
  new ReflectionService(definitions, services === undefined ? undefined : { services }).addToServer(server);
}
