/**
 * Thanos' (kingpin's) spellings of a boolean flag, `--name` for true and
 * `--no-name` for false, rewritten as `--name=true` / `--name=false` for
 * flags this CLI parses as `--name BOOL`; `--name true|false` and
 * `--name=...` stay as they are. Arguments after `--` stay.
 */
export function expandBoolFlags(args: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  let flags = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') flags = false;
    const name = flags && arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && names.includes(name) && args[i + 1] !== 'true' && args[i + 1] !== 'false') out.push(`--${name}=true`);
    else if (name !== undefined && name.startsWith('no-') && names.includes(name.slice(3))) out.push(`--${name.slice(3)}=false`);
    else out.push(arg);
  }
  return out;
}
