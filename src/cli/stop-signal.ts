/**
 * Resolves with the first SIGTERM or SIGINT, from the moment it is called.
 *
 * Later signals are ignored rather than left to Node's default (exit at
 * once): Ctrl-C under `npm start` delivers SIGINT twice, once from the
 * terminal to the process group and once forwarded by npm, and the second
 * must not cut the graceful stop short. The stop is bounded by itself.
 */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    process.on('SIGTERM', () => done('SIGTERM'));
    process.on('SIGINT', () => done('SIGINT'));
  });
}
