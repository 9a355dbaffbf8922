/**
 * Metric and label names from OTLP names, as Prometheus 3 builds them with
 * github.com/prometheus/otlptranslator (metric_namer.go, unit_namer.go,
 * label_namer.go, strconv.go) under its default OTLP settings
 * (label_name_underscore_sanitization and
 * label_name_preserve_multiple_underscores both true).
 */

/** Prometheus' `otlp.translation_strategy` values. */
export const TRANSLATION_STRATEGIES = [
  'UnderscoreEscapingWithSuffixes',
  'UnderscoreEscapingWithoutSuffixes',
  'NoUTF8EscapingWithSuffixes',
  'NoTranslation',
] as const;
export type TranslationStrategy = (typeof TRANSLATION_STRATEGIES)[number];

/** The metric types the namer tells apart (otlptranslator's MetricType). */
export type NamerType = 'gauge' | 'monotonic_counter' | 'non_monotonic_counter' | 'histogram' | 'exponential_histogram' | 'summary';

const UNITS: Record<string, string> = {
  d: 'days', h: 'hours', min: 'minutes', s: 'seconds', ms: 'milliseconds', us: 'microseconds', ns: 'nanoseconds',
  By: 'bytes', KiBy: 'kibibytes', MiBy: 'mebibytes', GiBy: 'gibibytes', TiBy: 'tibibytes',
  KBy: 'kilobytes', MBy: 'megabytes', GBy: 'gigabytes', TBy: 'terabytes',
  m: 'meters', V: 'volts', A: 'amperes', J: 'joules', W: 'watts', g: 'grams',
  Cel: 'celsius', Hz: 'hertz', '1': '', '%': 'percent',
};
const PER_UNITS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day', w: 'week', mo: 'month', y: 'year' };

const isMetricChar = (c: string): boolean => /^[a-zA-Z0-9:]$/.test(c);
const isLabelChar = (c: string): boolean => /^[a-zA-Z0-9]$/.test(c);
const startsWithDigit = (s: string): boolean => s.length > 0 && s[0]! >= '0' && s[0]! <= '9';
const underscoresOnly = (s: string): boolean => /^_*$/.test(s);

/** Go's strings.FieldsFunc: the non-empty runs between separators. */
function fields(s: string, isSep: (c: string) => boolean): string[] {
  const out: string[] = [];
  let cur = '';
  for (const c of s) {
    if (isSep(c)) {
      if (cur !== '') out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur !== '') out.push(cur);
  return out;
}

/** buildUnitSuffixes: the main unit's and the per-unit's suffix ('per_second', ...). */
function unitSuffixes(unit: string): [string, string] {
  const slash = unit.indexOf('/');
  const tokens = slash < 0 ? [unit] : [unit.slice(0, slash), unit.slice(slash + 1)];
  let main = '';
  let per = '';
  const m = tokens[0]!.trim();
  if (m !== '' && !/[{}]/.test(m)) main = UNITS[m] ?? m;
  if (tokens.length > 1 && tokens[1] !== '') {
    const p = tokens[1]!.trim();
    if (p !== '' && !/[{}]/.test(p)) per = PER_UNITS[p] ?? p;
    if (per !== '') per = `per_${per}`;
  }
  return [main, per];
}

/** cleanUpUnit: invalid characters to '_', runs of '_' collapsed, a leading '_' dropped. */
function cleanUnit(u: string): string {
  return [...u].map((c) => (isMetricChar(c) ? c : '_')).join('').replace(/_+/g, '_').replace(/^_/, '');
}

function normalizeName(name: string, unit: string, type: NamerType): string {
  let tokens = fields(name, (c) => !isMetricChar(c));
  let [main, per] = unitSuffixes(unit);
  main = cleanUnit(main);
  per = cleanUnit(per);
  if (tokens.includes(main)) main = '';
  if (per === 'per_') per = '';
  else {
    per = per.replace(/_$/, '');
    if (tokens.includes(per)) per = '';
  }
  if (per !== '') main = main.replace(/_$/, '');
  if (main !== '') tokens.push(main);
  if (per !== '') tokens.push(per);
  if (type === 'monotonic_counter') tokens = [...tokens.filter((t) => t !== 'total'), 'total'];
  if (unit === '1' && type === 'gauge') tokens = [...tokens.filter((t) => t !== 'ratio'), 'ratio'];
  const n = tokens.join('_');
  return startsWithDigit(n) ? `_${n}` : n;
}

function trimSuffix(name: string, suffix: string): string {
  return name.endsWith(suffix) && name.length > suffix.length + 1 ? name.slice(0, name.length - suffix.length - 1) : name;
}

/** buildMetricName: UTF-8 allowed, suffixes only. */
function utf8Name(name: string, unit: string, type: NamerType, suffixes: boolean): string {
  if (!suffixes) return name;
  let n = name;
  const after: string[] = [];
  if (unit === '1' && type === 'gauge') {
    n = trimSuffix(n, 'ratio');
    after.unshift('_ratio');
  }
  if (type === 'monotonic_counter') {
    n = trimSuffix(n, 'total');
    after.unshift('_total');
  }
  const [main, per] = unitSuffixes(unit);
  if (per !== '') {
    n = trimSuffix(n, per);
    after.unshift(`_${per}`);
  }
  if (main !== '' && !n.endsWith(main)) n = `${n}_${main}`;
  // Go's defers run last-registered first: per-unit, then _total, then _ratio.
  return n + after.join('');
}

/**
 * The Prometheus metric name of an OTLP metric, or an Error saying why
 * there is none (an empty name, or one of underscores only).
 */
export function metricName(name: string, unit: string, type: NamerType, strategy: TranslationStrategy): string | Error {
  const escape = strategy.startsWith('UnderscoreEscaping');
  const suffixes = strategy.endsWith('WithSuffixes');
  let out: string;
  if (!escape) out = utf8Name(name, unit, type, suffixes);
  else if (suffixes) out = normalizeName(name, unit, type);
  else {
    out = fields(name, (c) => !isMetricChar(c) && c !== '_').join('_');
    if (startsWithDigit(out)) out = `_${out}`;
  }
  if (out === '') return new Error(`normalization for metric ${JSON.stringify(name)} resulted in empty name`);
  if (escape && out !== name && underscoresOnly(out)) return new Error(`normalization for metric ${JSON.stringify(name)} resulted in invalid name ${JSON.stringify(out)}`);
  return out;
}

/** The Prometheus unit of an OTLP unit, as metadata carries it (UnitNamer, UTF-8 not allowed). */
export function unitName(unit: string): string {
  const [m, p] = unitSuffixes(unit);
  const main = cleanUnit(m);
  const per = cleanUnit(p);
  let u = main !== '' && per !== '' ? `${main}_${per}` : main !== '' ? main : per;
  if (u.startsWith('_')) u = u.slice(1);
  if (u.endsWith('_')) u = u.slice(0, -1);
  return u;
}

/**
 * A label name from an attribute key (LabelNamer with underscore
 * sanitization and multiple underscores preserved, Prometheus' defaults),
 * or an Error. With `utf8` the key is kept as it is.
 */
export function labelName(key: string, utf8: boolean): string | Error {
  if (key === '') return new Error('label name is empty');
  if (utf8) return underscoresOnly(key) ? new Error(`label name ${JSON.stringify(key)} contains only underscores`) : key;
  let n = [...key].map((c) => (isLabelChar(c) ? c : '_')).join('');
  if (startsWithDigit(n)) n = `key_${n}`;
  else if (n.startsWith('_') && !n.startsWith('__')) n = `key${n}`;
  if (underscoresOnly(n)) return new Error(`normalization for label name ${JSON.stringify(key)} resulted in invalid name ${JSON.stringify(n)}`);
  return n;
}
