import { quoted } from './describe-series.js';

/**
 * The label-set rules of Thanos Receive (labelpb.ValidateLabels), plus valid
 * UTF-8, which protobuf requires of strings. A series breaking one is
 * refused; the rest of the request still counts.
 */
export const RULE = {
  ok: 0,
  noLabels: 1,
  emptyName: 2,
  emptyValue: 3,
  duplicateName: 4,
  unsorted: 5,
  nameNotUtf8: 6,
  valueNotUtf8: 7,
} as const;

export type Rule = (typeof RULE)[keyof typeof RULE];

/**
 * The first rule a series broke, with positions in the request bytes: the
 * parser fills it (numbers only) and the message is built from it once,
 * for the first refused series of a request.
 */
export interface Violation {
  rule: Rule;
  /** Index of the offending label in the series (wire order). */
  label: number;
  /** The offending label's name. */
  nameAt: number;
  nameLen: number;
  /** The previous label's name (duplicate, unsorted). */
  prevAt: number;
  prevLen: number;
  /** The first byte that is not UTF-8 (name or value). */
  byteAt: number;
}

/** What the violation says, e.g. `label names not sorted ("b" before "a")`. */
export function violationText(buf: Uint8Array, v: Violation): string {
  const name = (): string => quoted(buf, v.nameAt, v.nameLen);
  const bad = (): string => `byte 0x${buf[v.byteAt]!.toString(16).padStart(2, '0')} at offset ${v.byteAt} of the request`;
  switch (v.rule) {
    case RULE.noLabels:
      return 'no labels';
    case RULE.emptyName:
      return `empty label name (label ${v.label})`;
    case RULE.emptyValue:
      return `empty value for label ${name()}`;
    case RULE.duplicateName:
      return `duplicate label name ${name()}`;
    case RULE.unsorted:
      return `label names not sorted (${quoted(buf, v.prevAt, v.prevLen)} before ${name()})`;
    case RULE.nameNotUtf8:
      return `label name ${name()} is not valid UTF-8 (${bad()})`;
    case RULE.valueNotUtf8:
      return `value of label ${name()} is not valid UTF-8 (${bad()})`;
    default:
      return 'valid';
  }
}
