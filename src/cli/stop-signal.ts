/** Resolves with the first SIGTERM or SIGINT, from the moment it is called. */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    process.once('SIGTERM', () => done('SIGTERM'));
    process.once('SIGINT', () => done('SIGINT'));
  });
}
