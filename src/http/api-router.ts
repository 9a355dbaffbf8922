/** The router `strata serve` starts with: the JSON resources, plus the API engine in development. */
import type { RecordStore } from '../docstore/types.js';
import { mountApiEngine } from './api/mount.js';
import { registerResources } from './resources/index.js';
import { Router } from './router.js';

/**
 * A router holding every JSON resource route over `store` and, when `env`
 * is 'development', GET /api (explorer) and GET /api/openapi.json. Other
 * modules add their routes to it before (or after) the server starts.
 */
export function createApiRouter(store: RecordStore, env: 'development' | 'production'): Router {
  const router = new Router();
  registerResources(router, store);
  if (env === 'development') mountApiEngine(router);
  return router;
}
