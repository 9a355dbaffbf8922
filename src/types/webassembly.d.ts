// The part of the WebAssembly JS API that Strata uses. Node provides it at
// run time; @types/node 20 does not declare it and lib.dom would bring in
// the whole browser, so it is declared here.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
}
type BufferSource = ArrayBufferView | ArrayBuffer;
