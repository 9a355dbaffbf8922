import type { MemoryExports } from './exports.js';

/**
 * Views over a module instance's memory: the codecs, the head and the
 * matcher all read and write it through this class.
 * Growing the memory detaches earlier views, so every access goes through
 * an accessor, which rebuilds its view then. A detached view has length 0,
 * which is cheaper to test than fetching `memory.buffer` on every call.
 * A view is valid until the next call that may allocate in the module.
 */
export class WasmMemory {
  private u8View = new Uint8Array(0);
  private u32View = new Uint32Array(0);
  private i32View = new Int32Array(0);
  private f64View = new Float64Array(0);
  private bufferView = Buffer.alloc(0);

  constructor(readonly wasm: MemoryExports) {}

  u8(): Uint8Array {
    if (this.u8View.length === 0) this.u8View = new Uint8Array(this.wasm.memory.buffer);
    return this.u8View;
  }

  u32(): Uint32Array {
    if (this.u32View.length === 0) this.u32View = new Uint32Array(this.wasm.memory.buffer);
    return this.u32View;
  }

  i32(): Int32Array {
    if (this.i32View.length === 0) this.i32View = new Int32Array(this.wasm.memory.buffer);
    return this.i32View;
  }

  f64(): Float64Array {
    if (this.f64View.length === 0) this.f64View = new Float64Array(this.wasm.memory.buffer);
    return this.f64View;
  }

  /** The memory as a Buffer, for its string decoding. */
  buffer(): Buffer {
    if (this.bufferView.length === 0) this.bufferView = Buffer.from(this.wasm.memory.buffer);
    return this.bufferView;
  }
}

/** A growable block of module memory owned by one JS object. */
export class WasmBlock {
  ptr = 0;
  size = 0;

  constructor(private readonly wasm: MemoryExports, initial = 0) {
    if (initial > 0) this.ensure(initial);
  }

  /** Makes the block at least `size` bytes; old contents are not kept. */
  ensure(size: number): number {
    if (size > this.size) {
      if (this.ptr !== 0) this.wasm.free(this.ptr);
      const rounded = Math.max(64, 2 ** Math.ceil(Math.log2(size)));
      this.ptr = this.wasm.alloc(rounded);
      this.size = rounded;
    }
    return this.ptr;
  }

  release(): void {
    if (this.ptr !== 0) this.wasm.free(this.ptr);
    this.ptr = 0;
    this.size = 0;
  }
}

/** Copies a typed array's bytes (bit patterns untouched) into module memory. */
export function copyIn(mem: WasmMemory, ptr: number, src: ArrayBufferView): void {
  mem.u8().set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), ptr);
}

/** Copies `byteLength` bytes of module memory at `ptr` into `dst`. */
export function copyOut(mem: WasmMemory, ptr: number, dst: ArrayBufferView): void {
  new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(mem.u8().subarray(ptr, ptr + dst.byteLength));
}
