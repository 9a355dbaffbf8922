import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CodecPool } from '../pool/codec-pool.js';
import { threadCodec } from '../codec/index.js';
import { createLogger } from './logger.js';
import type { ServeConfig } from './serve-options.js';

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully and
 * resolves with exit status 0.
 *
 * What runs so far: the data directory, the main thread's codec and the
 * worker pool. The Store API, the engine and HTTP are wired in here as they
 * land (see the README's status table).
 */
export async function serve(config: ServeConfig): Promise<number> {
  const log = createLogger(config.env);
  const dataDir = resolve(config.dataDir);
  await mkdir(dataDir, { recursive: true });
  threadCodec();
  const pool = new CodecPool({ workers: config.workers });
  log.info({
    dataDir,
    grpcAddress: `${config.grpcAddress.host}:${config.grpcAddress.port}`,
    httpAddress: `${config.httpAddress.host}:${config.httpAddress.port}`,
    externalLabels: Object.fromEntries(config.externalLabels),
    replicaLabels: config.replicaLabels,
    workers: pool.threads,
    env: config.env,
  }, 'strata started');

  // Nothing listens yet, so hold the event loop open until a signal comes.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGTERM', () => done('SIGTERM'));
    process.once('SIGINT', () => done('SIGINT'));
  });
  clearInterval(keepAlive);
  log.info({ signal }, 'stopping');
  await pool.close();
  log.info('stopped');
  return 0;
}
