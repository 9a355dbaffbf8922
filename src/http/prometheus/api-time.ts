/**
 * Times and limits of the Prometheus HTTP API's parameters, read as
 * Prometheus reads them: a time is Unix seconds (a decimal number, fraction
 * rounded to the millisecond) or RFC 3339; Prometheus' own spellings of the
 * smallest and largest times mean "unbounded".
 */
import { SelectorError } from '../../index/selector.js';

/** Prometheus' minTime and maxTime as its clients send them (RFC 3339Nano of the int64 bounds). */
const MIN_TIME_FORMATTED = '-292273086-05-16T16:47:06Z';
const MAX_TIME_FORMATTED = '292277025-08-18T07:12:54.999999999Z';

const SECONDS = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Beyond this many ms from the epoch a time is as good as unbounded (the engine is exact to ±2^53). */
const MAX_MS = 2 ** 53;

/** A parameter that does not parse: bad_data (400). */
export const badParameter = (name: string, detail: string): SelectorError => new SelectorError(`invalid parameter ${JSON.stringify(name)}: ${detail}`);

/**
 * The ms since the epoch that `value` names; `fallback` when the parameter
 * is absent (undefined). Infinite for Prometheus' min/max time strings and
 * for times past what the engine represents.
 *
 * @throws SelectorError when the value is neither a number of seconds nor RFC 3339
 */
export function parseTime(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (value === MIN_TIME_FORMATTED) return -Infinity;
  if (value === MAX_TIME_FORMATTED) return Infinity;
  if (SECONDS.test(value)) {
    const seconds = Number(value);
    if (!Number.isFinite(seconds)) throw badParameter(name, `cannot parse ${JSON.stringify(value)} to a valid timestamp`);
    const whole = Math.trunc(seconds);
    return clamp(whole * 1000 + Math.round((seconds - whole) * 1000));
  }
  const m = RFC3339.exec(value);
  if (m !== null) {
    const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
    const month = Number(mo);
    const day = Number(d);
    const ok = month >= 1 && month <= 12 && day >= 1 && day <= daysIn(Number(y), month) &&
      Number(h) <= 23 && Number(mi) <= 59 && Number(s) <= 59 && (z !== undefined || (Number(oh) <= 23 && Number(om) <= 59));
    if (ok) {
      let ms = utc(Number(y), month - 1, day, Number(h), Number(mi), Number(s));
      if (frac !== undefined) ms += Number(`${frac}00`.slice(0, 3)); // Go truncates to the ms
      if (z === undefined) ms -= (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
      return ms;
    }
  }
  throw badParameter(name, `cannot parse ${JSON.stringify(value)} to a valid timestamp`);
}

function clamp(ms: number): number {
  if (ms >= MAX_MS) return Infinity;
  if (ms <= -MAX_MS) return -Infinity;
  return ms;
}

/** Date.UTC without its mapping of years 0-99 to 1900-1999. */
function utc(year: number, month: number, day: number, h: number, mi: number, s: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(h, mi, s, 0);
  return d.getTime();
}

function daysIn(year: number, month: number): number {
  return new Date(utc(year, month, 0, 0, 0, 0)).getUTCDate();
}

/**
 * The `limit` parameter: a whole number, 0 (or absent) for none.
 * @throws SelectorError otherwise
 */
export function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw badParameter('limit', `${JSON.stringify(value)} is not a whole number of 0 or more`);
  return Number(value);
}
