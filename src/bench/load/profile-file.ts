/**
 * A load profile from a JSON file (`strata bench remote-write --profile
 * FILE.json`): the families one target exposes, each with label values
 * (the series are every combination) and a value model. Example:
 *
 * ```json
 * {
 *   "targetLabel": "instance",
 *   "targetFormat": "app-{target}.example.internal:8080",
 *   "labels": { "job": "app" },
 *   "families": [
 *     { "name": "http_requests_total", "type": "counter", "increment": 40,
 *       "labels": { "method": ["GET", "POST"], "code": ["200", "500"] } },
 *     { "name": "queue_depth", "type": "gauge", "min": 0, "max": 500, "step": 20 },
 *     { "name": "temperature_celsius", "type": "gauge", "float": true, "min": 20, "max": 80, "step": 0.5 },
 *     { "name": "build_info", "type": "constant", "value": 1, "labels": { "version": ["1.4.2"] } }
 *   ]
 * }
 * ```
 *
 * `targetFormat` names target number `{target}`; a later generation of a
 * target (churn) gets `-g{generation}` after it unless the format places
 * `{generation}` itself.
 */
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { buildCatalogue, Model, type Catalogue, type Family } from './catalogue.js';

const LABEL_NAME = '^[a-zA-Z_][a-zA-Z0-9_]*$';
const METRIC_NAME = '^[a-zA-Z_:][a-zA-Z0-9_:]*$';

const FamilySchema = Type.Object({
  name: Type.String({ pattern: METRIC_NAME }),
  type: Type.Union([Type.Literal('counter'), Type.Literal('gauge'), Type.Literal('constant'), Type.Literal('clock')]),
  /** Label name -> the values it takes; the family has one series per combination. */
  labels: Type.Optional(Type.Record(Type.String({ pattern: LABEL_NAME }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }))),
  /** Floats rather than whole numbers (counters and gauges). */
  float: Type.Optional(Type.Boolean()),
  /** counter: first value and typical increment a scrape. */
  start: Type.Optional(Type.Number({ minimum: 0 })),
  increment: Type.Optional(Type.Number({ minimum: 0 })),
  /** gauge: bounds and largest step a scrape. */
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  step: Type.Optional(Type.Number({ minimum: 0 })),
  /** constant: the value. */
  value: Type.Optional(Type.Number()),
}, { additionalProperties: false });

/** The JSON profile file's schema. */
export const ProfileSchema = Type.Object({
  targetLabel: Type.Optional(Type.String({ pattern: LABEL_NAME })),
  targetFormat: Type.Optional(Type.String({ pattern: '\\{target\\}' })),
  labels: Type.Optional(Type.Record(Type.String({ pattern: LABEL_NAME }), Type.String({ minLength: 1 }))),
  families: Type.Array(FamilySchema, { minItems: 1 }),
}, { additionalProperties: false });
export type Profile = Static<typeof ProfileSchema>;

const check = TypeCompiler.Compile(ProfileSchema);

/** A profile file that cannot be used; the message names the file and the place. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

/** Every combination of the label values, label names sorted. */
function combinations(labels: Record<string, string[]> | undefined): Array<Array<[string, string]>> {
  let out: Array<Array<[string, string]>> = [[]];
  for (const name of Object.keys(labels ?? {}).sort()) {
    out = out.flatMap((set) => labels![name]!.map((v): Array<[string, string]> => [...set, [name, v]]));
  }
  return out;
}

function toFamily(f: Profile['families'][number], where: string): Family {
  const labelSets = combinations(f.labels);
  switch (f.type) {
    case 'counter': {
      const start = f.start ?? 0;
      return { name: f.name, labelSets, model: f.float ? Model.FloatCounter : Model.Counter, scale: 1, step: f.increment ?? 1, lo: start, hi: start };
    }
    case 'gauge': {
      const lo = f.min ?? 0;
      const hi = f.max ?? lo + 100;
      if (hi < lo) throw new ProfileError(`${where}: max ${hi} is below min ${lo}`);
      return { name: f.name, labelSets, model: f.float ? Model.FloatGauge : Model.Gauge, scale: 1, step: f.step ?? Math.max(1, (hi - lo) / 20), lo, hi };
    }
    case 'constant':
      return { name: f.name, labelSets, model: Model.Constant, scale: 1, step: 0, lo: f.value ?? 1, hi: f.value ?? 1 };
    case 'clock':
      return { name: f.name, labelSets, model: Model.Clock, scale: 1, step: 0, lo: 0, hi: 0 };
  }
}

/** Checks a parsed profile (from `file`, for messages) and returns it typed. */
export function validateProfile(value: unknown, file: string): Profile {
  if (!check.Check(value)) {
    const e = check.Errors(value).First();
    throw new ProfileError(`${file}: ${e === undefined ? 'not a profile' : `${e.path || '/'}: ${e.message}`}`);
  }
  const targetLabel = value.targetLabel ?? 'instance';
  const common = new Set(Object.keys(value.labels ?? {}));
  if (common.has(targetLabel)) throw new ProfileError(`${file}: /labels: '${targetLabel}' is the target label`);
  value.families.forEach((f, i) => {
    for (const name of Object.keys(f.labels ?? {})) {
      if (name === targetLabel || common.has(name) || name === '__name__') throw new ProfileError(`${file}: /families/${i}/labels: '${name}' is set twice`);
    }
  });
  return value;
}

/** Reads and checks a profile file; throws ProfileError naming the file. */
export function readProfile(file: string): Profile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ProfileError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ProfileError(`${file}: not JSON (${(err as Error).message})`);
  }
  return validateProfile(value, file);
}

/** Series one target of `profile` exposes. */
export function profileSeriesPerTarget(profile: Profile): number {
  let n = 0;
  for (const f of profile.families) n += combinations(f.labels).length;
  return n;
}

/** The catalogue of the first `count` series of `profile` (from `file`, for messages). */
export function profileCatalogue(profile: Profile, count: number, file = 'profile'): Catalogue {
  const families = profile.families.map((f, i) => toFamily(f, `${file}: /families/${i}`));
  const targetLabel = profile.targetLabel ?? 'instance';
  const format = profile.targetFormat ?? 'target-{target}';
  const common = Object.entries(profile.labels ?? {});
  return buildCatalogue(families, count, (t, generation) => {
    let value = format.replaceAll('{target}', String(t)).replaceAll('{generation}', String(generation));
    if (generation > 0 && !format.includes('{generation}')) value += `-g${generation}`;
    return [[targetLabel, value], ...common];
  });
}
