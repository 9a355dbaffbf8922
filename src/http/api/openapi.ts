/**
 * The OpenAPI 3.1 document of every documented route, made from the route
 * table and the very TypeBox schemas the input validation runs. A schema
 * with an `$id` becomes a component referenced by `$ref`.
 */
import type { TSchema } from '@sinclair/typebox';
import type { RouteDoc, RouteSpec } from '../route.js';
import { PACKAGE_VERSION } from '../../config/package-version.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };


/** `/discussions/:id` as OpenAPI writes it: `/discussions/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** The paths a route answers on: its pattern and, per suffix, the pattern with the suffix. */
export function servedPaths(route: RouteSpec): Array<{ path: string; suffix: string }> {
  return [{ path: route.path, suffix: '' }, ...(route.suffixes ?? []).map((suffix) => ({ path: route.path + suffix, suffix }))];
}

/** Collects `$id` schemas into components, leaving `$ref`s behind. */
class SchemaComponents {
  readonly schemas: JsonObject = {};

  ref(schema: TSchema): Json {
    // JSON round trip: plain data, TypeBox's symbol keys dropped.
    return this.visit(JSON.parse(JSON.stringify(schema)) as Json);
  }

  private visit(node: Json): Json {
    if (Array.isArray(node)) return node.map((n) => this.visit(n));
    if (node === null || typeof node !== 'object') return node;
    const { $id, ...rest } = node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(rest)) out[key] = this.visit(value);
    if (typeof $id !== 'string') return out;
    this.schemas[$id] ??= out;
    return { $ref: `#/components/schemas/${$id}` };
  }
}

function operation(doc: RouteDoc, route: RouteSpec, suffix: string, components: SchemaComponents): JsonObject {
  const parameters: Json[] = [];
  for (const [name, schema] of Object.entries(doc.params ?? {})) {
    parameters.push({ name, in: 'path', required: true, schema: components.ref(schema) });
  }
  for (const [name, schema] of Object.entries(doc.query ?? {})) {
    parameters.push({ name, in: 'query', required: false, schema: components.ref(schema), ...(schema.description ? { description: schema.description } : {}) });
  }
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    const out: JsonObject = { description: response.description };
    if (response.headers !== undefined) {
      out.headers = Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
    }
    if (response.schema !== undefined) out.content = { [response.contentType ?? 'application/json']: { schema: components.ref(response.schema) } };
    responses[status] = out;
  }
  responses['405'] = { description: 'method not allowed here; the Allow header lists the methods that are' };
  const op: JsonObject = {
    operationId: suffix === '' ? doc.operationId : `${doc.operationId}${suffix.slice(1).replace(/^./, (c) => c.toUpperCase())}`,
    summary: doc.summary + (suffix === '' ? '' : ` (${suffix} suffix)`),
    tags: [doc.tag],
    responses,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (doc.requestBody !== undefined) {
    const media: JsonObject = { schema: components.ref(doc.requestBody) };
    if (doc.example !== undefined) media.example = doc.example as Json;
    op.requestBody = { required: true, content: { 'application/json': media } };
  }
  return op;
}

/** Builds the OpenAPI 3.1 document for `routes` (routes without docs are left out). */
export function openApiDocument(routes: readonly RouteSpec[]): JsonObject {
  const components = new SchemaComponents();
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    if (route.doc === undefined) continue;
    for (const { path, suffix } of servedPaths(route)) {
      const item = (paths[openApiPath(path)] ??= {});
      item[route.method.toLowerCase()] = operation(route.doc, route, suffix, components);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Strata HTTP API',
      version: PACKAGE_VERSION,
      description:
        'JSON resources of Strata. Errors are application/problem+json (RFC 9457). Input keys match without regard to case; ' +
        'unknown and read-only keys are ignored. Bodies are at most 1 MiB. A 2xx answer to a write means it is on disk.',
    },
    paths,
    components: { schemas: components.schemas },
  };
}
