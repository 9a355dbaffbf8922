/**
 * Where a Series answer's messages go, whatever the transport
 * (stream-adapter.ts for gRPC; tests collect them).
 *
 * For each message, `alloc(size)` gives room for exactly `size` bytes,
 * which the caller fills completely and then hands over with `send` (the
 * buffer is the sink's from then on). Messages go out in the order they
 * were allocated. Once the caller is gone (cancelled, deadline passed,
 * connection closed), `alloc`, `send`, `flush` and `drained` throw or
 * reject with a 'cancelled' error (errors.ts: callCancelled), so that the
 * answer stops and lets go of what it holds.
 */
export interface SeriesSink {
  alloc(size: number): Buffer;
  send(frame: Buffer): void;
  /** Whether the transport wants a pause before more (flow control). */
  readonly blocked: boolean;
  /**
   * Resolves when more may be sent (at once when that is already so, even
   * if turns of the event loop passed since `blocked` was set); rejects
   * (cancelled) if the caller goes away meanwhile.
   */
  drained(): Promise<void>;
  /** Pushes out whatever is batched. */
  flush(): void;
}
