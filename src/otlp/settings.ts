/**
 * The OTLP translation's settings: Prometheus' `otlp` configuration block
 * (docs/configuration/configuration.md in prometheus/prometheus), as
 * `strata serve` flags (src/cli/serve-options.ts).
 */
import { TRANSLATION_STRATEGIES, type TranslationStrategy } from './names.js';

export interface OtlpSettings {
  /** translation_strategy (default UnderscoreEscapingWithSuffixes). */
  translationStrategy: TranslationStrategy;
  /** promote_resource_attributes: resource attributes copied onto every series. */
  promoteResourceAttributes: string[];
  /** promote_all_resource_attributes: all of them, but `ignoreResourceAttributes`. */
  promoteAllResourceAttributes: boolean;
  /** ignore_resource_attributes (with promote_all_resource_attributes only). */
  ignoreResourceAttributes: string[];
  /** keep_identifying_resource_attributes: service.* also on target_info. */
  keepIdentifyingResourceAttributes: boolean;
  /** promote_scope_metadata: otel_scope_name, _version, _schema_url and scope attributes as labels. */
  promoteScopeMetadata: boolean;
}

/** Prometheus' defaults. */
export const DEFAULT_OTLP_SETTINGS: OtlpSettings = {
  translationStrategy: 'UnderscoreEscapingWithSuffixes',
  promoteResourceAttributes: [],
  promoteAllResourceAttributes: false,
  ignoreResourceAttributes: [],
  keepIdentifyingResourceAttributes: false,
  promoteScopeMetadata: false,
};

/** The settings as flags or library options give them (each may be absent). */
export interface OtlpSettingsInput {
  translationStrategy?: string;
  promoteResourceAttributes?: string[];
  promoteAllResourceAttributes?: boolean;
  ignoreResourceAttributes?: string[];
  keepIdentifyingResourceAttributes?: boolean;
  promoteScopeMetadata?: boolean;
}

/**
 * Checked settings, with Prometheus' checks of its `otlp` block; the
 * message of what is wrong (naming the setting in `name`'s words) otherwise.
 */
export function otlpSettings(input: OtlpSettingsInput, name: (setting: keyof OtlpSettingsInput) => string): OtlpSettings | string {
  const strategy = input.translationStrategy ?? DEFAULT_OTLP_SETTINGS.translationStrategy;
  if (!(TRANSLATION_STRATEGIES as readonly string[]).includes(strategy)) {
    return `${name('translationStrategy')}: unsupported OTLP translation strategy '${strategy}' (one of ${TRANSLATION_STRATEGIES.join(', ')})`;
  }
  const promote = (input.promoteResourceAttributes ?? []).map((a) => a.trim());
  const ignore = (input.ignoreResourceAttributes ?? []).map((a) => a.trim());
  const all = input.promoteAllResourceAttributes ?? false;
  // Prometheus' config checks: the two ways to promote exclude each other, and ignoring only means something with "all".
  if (all && promote.length > 0) return `${name('promoteAllResourceAttributes')} and ${name('promoteResourceAttributes')} cannot be configured simultaneously`;
  if (!all && ignore.length > 0) return `${name('ignoreResourceAttributes')} cannot be configured unless ${name('promoteAllResourceAttributes')} is true`;
  if (promote.includes('') || ignore.includes('')) return `${name('promoteResourceAttributes')}, ${name('ignoreResourceAttributes')}: empty attribute name`;
  return {
    translationStrategy: strategy as TranslationStrategy,
    promoteResourceAttributes: [...new Set(promote)],
    promoteAllResourceAttributes: all,
    ignoreResourceAttributes: [...new Set(ignore)],
    keepIdentifyingResourceAttributes: input.keepIdentifyingResourceAttributes ?? false,
    promoteScopeMetadata: input.promoteScopeMetadata ?? false,
  };
}
