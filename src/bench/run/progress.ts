/**
 * A progress display: on a terminal, one line rewritten in place (at most
 * ten times a second); otherwise (CI, a pipe, a file) a plain line at most
 * every `plainEveryMs` and whenever the phase changes.
 */
export class Progress {
  private readonly tty: boolean;
  private lastAt = 0;
  private lastPhase = '';
  private shown = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr, private readonly plainEveryMs = 5000) {
    this.tty = out.isTTY === true;
  }

  /** Shows `text` for `phase` (a change of phase is always shown). */
  update(phase: string, text: string): void {
    const now = Date.now();
    const changed = phase !== this.lastPhase;
    if (!changed && now - this.lastAt < (this.tty ? 100 : this.plainEveryMs)) return;
    this.lastAt = now;
    this.lastPhase = phase;
    const line = `${phase}: ${text}`;
    if (this.tty) {
      const width = this.out.columns ?? 120;
      this.out.write(`\r\x1b[K${line.slice(0, width - 1)}`);
      this.shown = true;
    } else {
      this.out.write(`${line}\n`);
    }
  }

  /** Prints `text` as a line of its own (clearing the progress line first). */
  log(text: string): void {
    if (this.tty && this.shown) this.out.write('\r\x1b[K');
    this.shown = false;
    this.lastPhase = '';
    this.out.write(`${text}\n`);
  }
}
