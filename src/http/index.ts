/**
 * Strata's HTTP front end on uWebSockets.js.
 *
 * ```ts
 * const router = new Router();
 * registerResources(router, store);            // tasks, users, discussions
 * if (env === 'development') mountApiEngine(router); // /api explorer + OpenAPI
 * router.add({ method: 'POST', path: '/api/v1/write', body: { kind: 'raw', limit: 32 << 20 }, handler }); // other modules
 * const server = await startHttpServer(router, { host: '127.0.0.1', port: 8080 }, log);
 * await server.close();
 * ```
 */
export { createApiRouter } from './api-router.js';
export { mountApiEngine } from './api/mount.js';
export { openApiDocument } from './api/openapi.js';
export * as problems from './errors.js';
export { HttpProblem, type FieldError } from './errors.js';
export { registerResources } from './resources/index.js';
export type { BodySpec, Handler, Method, Reply, RequestContext, ResponseSink, RouteDoc, RouteSpec } from './route.js';
export { CLIENT_CLOSED_REQUEST, UNMATCHED_ROUTE, type DispatchHooks } from './dispatch.js';
export { Router } from './router.js';
export { ListenError, startHttpServer, type HttpServer, type ListenAddress } from './server.js';
export { TlsFileError, type HttpTls } from './tls.js';
export { UwsLoadError } from './uws.js';
