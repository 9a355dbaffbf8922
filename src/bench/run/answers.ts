/**
 * How the target answered, counted by class and code: remote write by HTTP
 * status (2xx, 4xx by code, 429, 5xx by code) and network errors by their
 * system code (ECONNRESET, ECONNREFUSED, timeout); the Store API by gRPC
 * status. Requests cut short by the end of the run count as aborted, not
 * as errors. The first message of each code is kept for the summary.
 */

/** One attempt's outcome. */
export type Outcome =
  | { kind: 'ok' }
  | { kind: 'http'; status: number; message: string }
  | { kind: 'network'; code: string; message: string }
  | { kind: 'grpc'; code: string; message: string }
  | { kind: 'aborted' };

/** The classes the summary and the JSON report count. */
export type AnswerClass = 'ok' | '4xx' | '429' | '5xx' | 'network' | 'grpc' | 'aborted';

/** The answers part of the JSON report (docs/format/bench-json.md). */
export interface AnswersJson {
  ok: number;
  classes: Record<Exclude<AnswerClass, 'ok'>, number>;
  /** "400", "429", "503", "ECONNRESET", "timeout", "UNAVAILABLE", ... */
  byCode: Record<string, number>;
  /** Requests sent again after a 429 (each attempt is counted above too). */
  retries: number;
  /** The first message seen for each code (truncated). */
  examples: Record<string, string>;
}

const EXAMPLE_CHARS = 300;

export function classOf(o: Outcome): AnswerClass {
  switch (o.kind) {
    case 'ok': return 'ok';
    case 'aborted': return 'aborted';
    case 'network': return 'network';
    case 'grpc': return 'grpc';
    case 'http':
      if (o.status === 429) return '429';
      if (o.status >= 500) return '5xx';
      return '4xx';
  }
}

function codeOf(o: Outcome): string | undefined {
  switch (o.kind) {
    case 'http': return String(o.status);
    case 'network':
    case 'grpc': return o.code;
    default: return undefined;
  }
}

export class Answers {
  ok = 0;
  retries = 0;
  readonly classes: AnswersJson['classes'] = { '4xx': 0, '429': 0, '5xx': 0, network: 0, grpc: 0, aborted: 0 };
  readonly byCode = new Map<string, number>();
  readonly examples = new Map<string, string>();

  count(o: Outcome): AnswerClass {
    const c = classOf(o);
    if (c === 'ok') {
      this.ok++;
      return c;
    }
    this.classes[c]++;
    const code = codeOf(o);
    if (code !== undefined) {
      this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
      if (!this.examples.has(code) && 'message' in o) this.examples.set(code, o.message.slice(0, EXAMPLE_CHARS));
    }
    return c;
  }

  /** Answers that were errors (aborted ones are not). */
  get errors(): number {
    const c = this.classes;
    return c['4xx'] + c['429'] + c['5xx'] + c.network + c.grpc;
  }

  toJson(): AnswersJson {
    const sorted = [...this.byCode.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return {
      ok: this.ok,
      classes: { ...this.classes },
      byCode: Object.fromEntries(sorted),
      retries: this.retries,
      examples: Object.fromEntries([...this.examples.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
    };
  }
}
