/** A small client over Node's fetch for the black-box tests. */

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON (throws if it is not). */
  json: any;
}

export interface CallOptions {
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is (with `headers`). */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

/** One request; never throws for an HTTP status. */
export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    get json() {
      return JSON.parse(text);
    },
  };
}

/** RFC 3339 with a Z (UTC) offset. */
export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
