/** Thrown for a matcher that cannot be used: a bad regular expression or an unknown type. */
export class InvalidMatcherError extends Error {
  override readonly name = 'InvalidMatcherError';
  /** InvalidArgument / HTTP 400 (src/errors/status.ts). */
  readonly kind = 'invalid-argument';
  constructor(
    /** The offending pattern or value, as the request gave it. */
    readonly pattern: string,
    /** What is wrong with it, without the pattern. */
    readonly reason: string,
  ) {
    super(`invalid matcher ${JSON.stringify(pattern)}: ${reason}`);
  }
}

/** A regular expression that RE2 rejects; `detail` is the engine's description. */
export function invalidRegex(pattern: string, detail: string): InvalidMatcherError {
  return new InvalidMatcherError(pattern, `not a valid RE2 regular expression: ${detail}`);
}

/** A matcher type outside EQ, NEQ, RE, NRE. */
export function unknownMatchType(type: number, value: string): InvalidMatcherError {
  return new InvalidMatcherError(value, `unknown match type ${type}`);
}
