/** A command-line mistake: printed as one line, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const EXIT_USAGE = 2;
