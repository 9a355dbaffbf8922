import { UsageError } from '../config/usage-error.js';

/**
 * Today's flag names, kept as aliases of the names Thanos gives the same
 * flags: each maps an old name to its Thanos name.
 */
export type FlagAliases = Readonly<Record<string, string>>;

/**
 * `args` with every aliased flag (`--old` or `--old=value`) spelled by its
 * Thanos name, so that one parser sees both; arguments after `--` stay.
 * @throws UsageError when a flag is given under both names
 */
export function renameAliases(args: readonly string[], aliases: FlagAliases): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  let flags = true;
  for (const arg of args) {
    if (arg === '--') flags = false;
    if (!flags || !arg.startsWith('--')) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const to = Object.hasOwn(aliases, name) ? aliases[name]! : name;
    const before = seen.get(to);
    if (before !== undefined && before !== name) {
      throw new UsageError(`--${to} and --${name === to ? before : name} are one flag (the second its earlier name): give one of them`);
    }
    seen.set(to, name);
    out.push(to === name ? arg : `--${to}${eq < 0 ? '' : arg.slice(eq)}`);
  }
  return out;
}

/** The help lines naming each alias and the flag it stands for. */
export function aliasHelp(aliases: FlagAliases): string {
  const width = Math.max(...Object.keys(aliases).map((a) => a.length)) + 2;
  const lines = Object.entries(aliases).map(([from, to]) => `  --${from.padEnd(width)}alias of --${to}`);
  return `Aliases (earlier names, still accepted):\n${lines.join('\n')}`;
}
