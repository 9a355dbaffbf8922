// The check of src/wasm/layout.ts against build/strata.wasm's exported
// constants (layout-check.ts), run by instantiateStrataWasm on the first
// instance: the real module passes, and a module whose constant differs
// from, or lacks, one the host declares fails, naming it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkLayout, layoutConstants } from '../../src/wasm/layout-check.js';
import { instantiateStrataWasm } from '../../src/wasm/module.js';

const real = instantiateStrataWasm() as unknown as Readonly<Record<string, unknown>>;

/** The module's exported constants (WebAssembly globals), by name. */
function exportedConstants(): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, e] of Object.entries(real)) {
    if (typeof e === 'object' && e !== null && 'value' in e) out.set(name, (e as { value: number }).value);
  }
  return out;
}

/** The real exports with constant `name` replaced (or, for undefined, left out). */
function withConstant(name: string, value: number | undefined): Record<string, unknown> {
  const fake: Record<string, unknown> = { ...real };
  if (value === undefined) delete fake[name];
  else fake[name] = { value };
  return fake;
}

describe('the WebAssembly layout check', () => {
  test('passes on the built module', () => {
    assert.doesNotThrow(() => checkLayout(real));
    assert.doesNotThrow(() => instantiateStrataWasm());
  });

  test('fails on a module whose constant differs, naming it, both values and the fix', () => {
    assert.throws(() => checkLayout(withConstant('SLOT_BUF', 52)), (err: Error) => {
      assert.match(err.message, /SLOT_BUF = 52/);
      assert.match(err.message, /expects 48 \(SLOT\.buf in src\/wasm\/layout\.ts\)/);
      assert.match(err.message, /npm run build:wasm/);
      return true;
    });
  });

  test('fails on a module that lacks a constant, naming it', () => {
    assert.throws(() => checkLayout(withConstant('HIST_STATE_SIZE', undefined)), /has no constant HIST_STATE_SIZE.*expects 136 \(HIST\.STATE_SIZE/);
  });

  test('checks every constant the module exports: a change to any one fails', () => {
    const constants = exportedConstants();
    assert.ok(constants.size > 110, `only ${constants.size} constants exported`);
    for (const [name, value] of constants) {
      assert.throws(() => checkLayout(withConstant(name, value + 1)), new RegExp(`${name} = ${value + 1},`), name);
    }
  });

  test('gives every constant of layout.ts its own export name', () => {
    const byName = new Map<string, string>();
    for (const c of layoutConstants()) {
      const other = byName.get(c.name);
      assert.equal(other, undefined, `${c.host} and ${other} are both the module's ${c.name}`);
      byName.set(c.name, c.host);
    }
    assert.deepEqual([...byName.keys()].sort(), [...exportedConstants().keys()].sort());
  });

  test('reads an i32 constant past 2^31 as the unsigned value the host declares', () => {
    assert.equal(exportedConstants().get('UNSURE'), -(2 ** 31));
    assert.doesNotThrow(() => checkLayout(withConstant('UNSURE', 0x80000000)));
    assert.throws(() => checkLayout(withConstant('UNSURE', 0x7fffffff)), /UNSURE/);
  });
});
