/**
 * Reloads the limits configuration file when its content changes, as
 * Thanos Receive does (extkingpin.PathContentReloader): the file is read
 * every `--receive.limits-config-reload-timer` (1 s by default) and
 * compared with the text last seen; polling rather than fs.watch, which
 * misses the rename-into-place of editors and the symlink swap of a
 * Kubernetes ConfigMap.
 *
 * A changed file that does not parse is logged with the reason and the
 * limits in place stay; so does a file that cannot be read. Each bad
 * content is told once, not at every poll.
 */
import { readFile } from 'node:fs/promises';
import { loadLimitsText } from './config-source.js';
import type { LimitsConfig } from './limits-config.js';

interface Log {
  info(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

/** Reloads so far, for thanos_receive_limits_config_reload_total and ..._err_total. */
export interface ReloadCounters {
  /** Changed contents taken up, whether they parsed or not. */
  reloads: number;
  /** Changed contents that did not parse (the limits in place stayed). */
  failures: number;
}

export class LimitsReloader {
  readonly counters: ReloadCounters = { reloads: 0, failures: 0 };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The last unreadable-file error told, so that it is told once. */
  private readError: string | undefined;

  /**
   * @param path - the configuration file
   * @param lastText - the content in place (read at start)
   * @param apply - puts a new configuration in place
   */
  constructor(
    private readonly path: string,
    private lastText: string,
    private readonly apply: (config: LimitsConfig) => void,
    private readonly log: Log,
  ) {}

  /** Polls every `intervalMs` (an unref'd timer: it keeps no process alive). */
  start(intervalMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.running ??= this.check().finally(() => {
        this.running = undefined;
      });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops polling; resolves once a poll under way is done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Reads the file once and applies it if it changed. Never throws. */
  async check(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.readError) this.log.error({ file: this.path, err: message }, 'limits configuration file cannot be read; the limits in place stay');
      this.readError = message;
      return;
    }
    this.readError = undefined;
    if (text === this.lastText) return;
    this.lastText = text;
    this.counters.reloads++;
    try {
      const { config } = loadLimitsText(text);
      this.apply(config);
      this.log.info({ file: this.path, maxConcurrency: config.maxConcurrency, tenants: [...config.tenants.keys()] }, 'limits configuration reloaded');
    } catch (err) {
      this.counters.failures++;
      this.log.error({ file: this.path, err: (err as Error).message }, 'limits configuration not reloaded; the limits in place stay');
    }
  }
}
