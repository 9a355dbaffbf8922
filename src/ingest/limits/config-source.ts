/**
 * Where the limits configuration comes from: a file (reloaded when it
 * changes) or text given on the command line. Both go through Thanos'
 * environment substitution before parsing: `$(NAME)` is the value of the
 * environment variable NAME (Kubernetes' convention, as Thanos'
 * extflag.PathOrContent does it), and naming an unset variable is an error.
 */
import { readFileSync } from 'node:fs';
import { LimitsConfigError, parseLimitsConfig, type LimitsConfig } from './limits-config.js';

/** A parsed configuration and the text it came from. */
export interface LoadedLimits {
  config: LimitsConfig;
  /** The text as read, before substitution: the reloader compares it. */
  text: string;
}

const ENV_REFERENCE = /\$\(([a-zA-Z_0-9]+)\)/g;

/**
 * `text` with every `$(NAME)` replaced by the environment variable's value.
 * @throws LimitsConfigError naming the first unset variable
 */
export function expandEnv(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(ENV_REFERENCE, (_, name: string) => {
    const value = env[name];
    if (value === undefined) throw new LimitsConfigError('', `found reference to unset environment variable ${JSON.stringify(name)}`);
    return value;
  });
}

/**
 * Parses configuration text as given (file content or flag value).
 * @throws LimitsConfigError when it is not a valid configuration
 */
export function loadLimitsText(text: string): LoadedLimits {
  return { config: parseLimitsConfig(expandEnv(text)), text };
}

/**
 * Reads and parses the configuration file at `path`.
 * @throws LimitsConfigError when it is not a valid configuration; the fs error when it cannot be read
 */
export function loadLimitsFile(path: string): LoadedLimits {
  return loadLimitsText(readFileSync(path, 'utf8'));
}
