import { UsageError } from '../config/usage-error.js';
import { goUnquote } from '../config/go-unquote.js';

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * One `--label` value as Thanos reads it (cmd/thanos/config.go,
 * parseFlagLabels): split at the first '=', the value a Go string literal
 * unquoted by strconv.Unquote's rules ("double", `raw` or 'c'), so that
 * an unquoted value is refused as Thanos refuses it. Stricter than Thanos
 * in two ways: the name must be a classic Prometheus label name (the
 * store's label sets are), and the value must not be empty (an empty
 * value is no label at all in Prometheus' model).
 * @throws UsageError for a bad name, a value that is not a Go string, or an empty value
 * @example
 * parseLabelFlag('region="eu-west"') // ['region', 'eu-west']
 */
export function parseLabelFlag(value: string): [string, string] {
  const eq = value.indexOf('=');
  const name = eq < 0 ? value : value.slice(0, eq);
  if (eq < 0 || !LABEL_NAME.test(name)) {
    throw new UsageError(`--label: '${value}' is not NAME="VALUE" with a valid label name`);
  }
  let text: string;
  try {
    text = goUnquote(value.slice(eq + 1));
  } catch (err) {
    throw new UsageError(`--label: '${value}': the value must be quoted, as Thanos takes it (${name}="...": ${(err as Error).message})`);
  }
  if (text === '') throw new UsageError(`--label: '${value}' has an empty value`);
  return [name, text];
}
