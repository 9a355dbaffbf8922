import * as layout from './layout.js';

/** A group's field as the module names it: `labelsOff` is LABELS_OFF (HIST's fields already are). */
function exportSuffix(field: string): string {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** One constant of layout.ts: the module's export name, the host's name for it, its value. */
export interface LayoutConstant {
  name: string;
  host: string;
  value: number;
}

/** Every constant of layout.ts: lone ones by their own name, a group G's field `f` as G_F. */
export function layoutConstants(): LayoutConstant[] {
  const out: LayoutConstant[] = [];
  for (const [name, value] of Object.entries(layout)) {
    if (typeof value === 'number') {
      out.push({ name, host: name, value });
      continue;
    }
    for (const [field, v] of Object.entries(value as Readonly<Record<string, number>>)) {
      out.push({ name: `${name}_${exportSuffix(field)}`, host: `${name}.${field}`, value: v });
    }
  }
  return out;
}

function layoutMismatch(e: LayoutConstant, got: unknown): Error {
  const found = got === undefined ? `has no constant ${e.name}` : `has ${e.name} = ${String(got)}`;
  return new Error(
    `build/strata.wasm ${found}, but this code expects ${e.value} (${e.host} in src/wasm/layout.ts): `
    + 'rebuild the module with `npm run build:wasm` (if the module changed on purpose, change src/wasm/layout.ts with it)',
  );
}

/**
 * Checks every constant of layout.ts against `exports`, the exports of an
 * instance of build/strata.wasm; throws naming the first that is missing or
 * differs. Once per compiled module (instantiateStrataWasm does it): every
 * instance of one module exports the same constants.
 */
export function checkLayout(exports: Readonly<Record<string, unknown>>): void {
  for (const e of layoutConstants()) {
    const got = (exports[e.name] as { value?: unknown } | undefined)?.value;
    // An i32 global reads back signed: UNSURE (0x80000000) is -2^31 there.
    if (typeof got !== 'number' || got >>> 0 !== e.value >>> 0) throw layoutMismatch(e, got);
  }
}
