/**
 * Turns a parsed JSON body into a resource's input, the way Go's
 * encoding/json fills a struct: a key matches a property exactly, or else
 * without regard to case; unknown keys are ignored; when several keys land
 * on one property the last wins. The result is then checked against the
 * same TypeBox schema the OpenAPI document shows.
 */
import type { Static, TObject } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { invalidInput, type FieldError } from './errors.js';
import './formats.js';

/** Case folding close to Go's strings.EqualFold for property names ("ſ" and "K" fold like "s" and "k"). */
function fold(key: string): string {
  return key.toUpperCase().toLowerCase();
}

/** The field name used for the body as a whole. */
export const WHOLE_BODY = '(body)';

/** A decoder from parsed JSON to the schema's type; throws HttpProblem 422 listing every offending field. */
export type InputDecoder<T extends TObject> = (body: unknown) => Static<T>;

/** Compiles `schema` (a flat object of input properties) into a decoder. */
export function inputDecoder<T extends TObject>(schema: T): InputDecoder<T> {
  const names = Object.keys(schema.properties);
  const exact = new Set(names);
  const folded = new Map(names.map((n) => [fold(n), n]));
  const check = TypeCompiler.Compile(schema);

  return (body: unknown): Static<T> => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalidInput([{ field: WHOLE_BODY, message: 'must be a JSON object' }]);
    }
    const input: Record<string, unknown> = {};
    for (const key of Object.keys(body)) {
      const name = exact.has(key) ? key : folded.get(fold(key));
      if (name !== undefined) input[name] = (body as Record<string, unknown>)[key];
    }
    if (check.Check(input)) return input as Static<T>;
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    for (const e of check.Errors(input)) {
      const field = e.path.slice(1) || WHOLE_BODY;
      if (seen.has(field)) continue;
      seen.add(field);
      errors.push({ field, message: message(e.schema, e.value) });
    }
    throw invalidInput(errors);
  };
}

/** A short message from the property's schema, clearer than the validator's generic one. */
function message(schema: { [k: string]: unknown }, value: unknown): string {
  if (value === undefined) return 'is required';
  const type = schema.type ?? (Array.isArray(schema.anyOf) ? (schema.anyOf as Array<{ type?: string }>).map((s) => s.type).join(' or ') : undefined);
  if (type === 'string') {
    if (typeof value !== 'string') return 'must be a string';
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) {
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`;
    }
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return `must be at most ${schema.maxLength} characters`;
    if (schema.format === 'email') return 'must be a valid email address';
    return 'is not valid';
  }
  if (type === 'boolean') return 'must be true or false';
  if (type === 'integer') return typeof schema.minimum === 'number' ? `must be an integer of at least ${schema.minimum}` : 'must be an integer';
  if (typeof type === 'string') return `must be ${type.split(' or ').map((t) => (t === 'null' ? 'null' : `a ${t}`)).join(' or ')}`;
  return 'is not valid';
}
