/**
 * The API engine mounted at /api in development: GET /api is the HTML
 * explorer, GET /api/openapi.json the OpenAPI 3.1 document. Both are made
 * on each request from the router, so routes other modules add later show.
 * In production nothing is mounted and /api answers 404.
 */
import { NO_BODY } from '../resources/common.js';
import type { Router } from '../router.js';
import { explorerHtml } from './explorer.js';
import { openApiDocument } from './openapi.js';

/** Registers GET /api and GET /api/openapi.json on `router`. */
export function mountApiEngine(router: Router): void {
  router
    .add({
      method: 'GET', path: '/api', body: NO_BODY,
      handler: () => ({ status: 200, contentType: 'text/html; charset=utf-8', body: explorerHtml(router.routes()) }),
    })
    .add({
      method: 'GET', path: '/api/openapi.json', body: NO_BODY,
      handler: () => ({ status: 200, body: JSON.stringify(openApiDocument(router.routes())) }),
    });
}
