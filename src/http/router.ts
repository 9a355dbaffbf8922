/**
 * A segment trie of paths, each leaf holding the routes of one path by
 * method. Matching walks the URL by index: no regular expressions, no
 * splitting; the only strings made are the parameter values. A literal
 * segment is tried before a parameter at the same depth, and a failed
 * literal branch falls back to the parameter, so the order of registration
 * never matters.
 */
import { badRequest } from './errors.js';
import type { Method, RouteSpec } from './route.js';

/** The routes registered on one path pattern. */
export interface PathEntry {
  readonly pattern: string;
  readonly routes: Partial<Record<Method, RouteSpec>>;
  /** The Allow header value: the registered methods, HEAD with GET, and OPTIONS. */
  allow: string;
  /** Format suffixes the last segment may carry, when the path takes any. */
  suffixes: readonly string[] | undefined;
}

/** The outcome of {@link Router.match} for a path that exists. */
export interface Match {
  entry: PathEntry;
  /** Parameter values in pattern order, percent-decoded. */
  params: string[];
  /** The suffix the path carried ('' when none). */
  suffix: string;
  /** True when the suffix is not one the path serves (answer 406). */
  suffixRejected: boolean;
}

class TrieNode {
  readonly literals: Array<{ segment: string; node: TrieNode }> = [];
  param: TrieNode | undefined;
  entry: PathEntry | undefined;

  literal(segment: string): TrieNode {
    let child = this.literals.find((l) => l.segment === segment)?.node;
    if (child === undefined) {
      child = new TrieNode();
      this.literals.push({ segment, node: child });
    }
    return child;
  }
}

const METHOD_ORDER: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function allowOf(routes: Partial<Record<Method, RouteSpec>>): string {
  const methods: string[] = [];
  for (const m of METHOD_ORDER) {
    if (routes[m] === undefined) continue;
    methods.push(m);
    if (m === 'GET') methods.push('HEAD');
  }
  methods.push('OPTIONS');
  return methods.join(', ');
}

/** Routes by path and method. Routes may be added at any time, also while serving. */
export class Router {
  private readonly root = new TrieNode();
  private readonly specs: RouteSpec[] = [];
  /** Scratch for parameters during one match (matching is synchronous). */
  private readonly scratch: string[] = [];

  /** Registers a route. Throws if the same method and path are registered twice or suffixes disagree. */
  add(spec: RouteSpec): this {
    if (!spec.path.startsWith('/')) throw new Error(`route path '${spec.path}' must start with '/'`);
    let node = this.root;
    for (const segment of spec.path.slice(1).split('/')) {
      if (segment.startsWith(':')) node = node.param ??= new TrieNode();
      else node = node.literal(segment);
    }
    // No prototype: a method named like an Object.prototype key must find nothing.
    const entry = (node.entry ??= { pattern: spec.path, routes: Object.create(null) as PathEntry['routes'], allow: '', suffixes: spec.suffixes });
    if (entry.routes[spec.method] !== undefined) throw new Error(`route ${spec.method} ${spec.path} registered twice`);
    if (String(entry.suffixes ?? []) !== String(spec.suffixes ?? [])) {
      throw new Error(`route ${spec.method} ${spec.path}: suffixes differ from the path's other routes`);
    }
    entry.routes[spec.method] = spec;
    entry.allow = allowOf(entry.routes);
    this.specs.push(spec);
    return this;
  }

  /** Every registered route, in registration order. */
  routes(): readonly RouteSpec[] {
    return this.specs;
  }

  /**
   * Finds the path entry for `path` (no query string), or undefined when no
   * pattern matches. A last segment `name.ext` first matches as `name` on
   * paths that take suffixes. Throws HttpProblem 400 for bad percent-encoding.
   */
  match(path: string): Match | undefined {
    const lastSlash = path.lastIndexOf('/');
    const dot = path.lastIndexOf('.');
    if (dot > lastSlash) {
      this.scratch.length = 0;
      const stem = this.walk(this.root, path, 0, dot);
      if (stem?.suffixes !== undefined) {
        const suffix = path.slice(dot);
        return { entry: stem, params: this.takeParams(), suffix, suffixRejected: !stem.suffixes.includes(suffix) };
      }
    }
    this.scratch.length = 0;
    const entry = this.walk(this.root, path, 0, path.length);
    if (entry === undefined) return undefined;
    return { entry, params: this.takeParams(), suffix: '', suffixRejected: false };
  }

  /** `pos` is at the '/' before the next segment, or at `end`. */
  private walk(node: TrieNode, path: string, pos: number, end: number): PathEntry | undefined {
    if (pos === end) return node.entry;
    if (path.charCodeAt(pos) !== 0x2f /* / */) return undefined;
    const start = pos + 1;
    let stop = path.indexOf('/', start);
    if (stop < 0 || stop > end) stop = end;
    const length = stop - start;
    for (const { segment, node: child } of node.literals) {
      if (segment.length === length && path.startsWith(segment, start)) {
        const found = this.walk(child, path, stop, end);
        if (found !== undefined) return found;
      }
    }
    if (node.param !== undefined && length > 0) {
      this.scratch.push(path.slice(start, stop));
      const found = this.walk(node.param, path, stop, end);
      if (found !== undefined) return found;
      this.scratch.pop();
    }
    return undefined;
  }

  private takeParams(): string[] {
    const params = this.scratch.slice();
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      if (p.includes('%')) {
        try {
          params[i] = decodeURIComponent(p);
        } catch {
          throw badRequest(`the path segment '${p}' is not valid percent-encoding`);
        }
      }
    }
    return params;
  }
}
