/** Selectors and times of the library's read calls, in the engine's terms. */
import { MatchType, type LabelMatcher } from '../index/index.js';
import { parseSelector } from '../index/selector.js';
import { InvalidArgumentError } from './errors.js';
import type { MatchOperator, Selector, Time } from './types.js';

const OPERATORS: Record<MatchOperator, MatchType> = { '=': MatchType.EQ, '!=': MatchType.NEQ, '=~': MatchType.RE, '!~': MatchType.NRE };

/**
 * The matchers of a selector: a PromQL selector string, parsed as the HTTP
 * API parses `match[]` (its errors are InvalidArgumentError), or matcher
 * objects checked for shape; regular expressions are compiled by the
 * index when the read runs (a bad one is an InvalidArgumentError there).
 */
export function toMatchers(selector: Selector | undefined): LabelMatcher[] {
  if (selector === undefined) return [];
  if (typeof selector === 'string') return parseSelector(selector);
  if (!Array.isArray(selector)) throw new InvalidArgumentError('selector: expected a PromQL selector string or an array of matchers');
  return (selector as Selector & unknown[]).map((m, i) => {
    const { name, value, type = '=' } = (m ?? {}) as { name?: unknown; value?: unknown; type?: unknown };
    if (typeof name !== 'string' || typeof value !== 'string') throw new InvalidArgumentError(`matcher ${i}: expected { name, type, value } with string name and value`);
    const t = OPERATORS[type as MatchOperator];
    if (t === undefined || !Object.hasOwn(OPERATORS, type as string)) throw new InvalidArgumentError(`matcher ${i}: type ${JSON.stringify(type)} is not one of = != =~ !~`);
    return { type: t, name, value };
  });
}

/** A time in ms since the epoch; `fallback` when absent. */
export function toMs(option: string, time: Time | undefined, fallback: number): number {
  if (time === undefined) return fallback;
  const ms = time instanceof Date ? time.getTime() : time;
  if (typeof ms !== 'number' || Number.isNaN(ms) || (Number.isFinite(ms) && !Number.isSafeInteger(Math.trunc(ms)))) {
    throw new InvalidArgumentError(`${option}: expected milliseconds since the epoch or a Date, got ${String(time)}`);
  }
  return Number.isFinite(ms) ? Math.trunc(ms) : ms;
}

/** A result limit: 0 for all. */
export function toLimit(limit: number | undefined): number {
  if (limit === undefined) return 0;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new InvalidArgumentError(`limit: ${String(limit)} is not a whole number of at least 0`);
  return limit;
}
