/**
 * The OTLP translation's settings: Prometheus' `otlp` configuration block
 * (docs/configuration/configuration.md in prometheus/prometheus), as
 * `strata serve` flags (src/cli/serve-options.ts).
 */
import type { TranslationStrategy } from './names.js';

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
