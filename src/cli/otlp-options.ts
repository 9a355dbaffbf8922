/**
 * `strata serve`'s OTLP flags: Prometheus' `otlp` configuration block
 * (docs/configuration/configuration.md in prometheus/prometheus), each
 * key as a flag named `--otlp.<key with dashes>`.
 */
import { UsageError } from '../config/usage-error.js';
import { TRANSLATION_STRATEGIES } from '../otlp/names.js';
import { DEFAULT_OTLP_SETTINGS, otlpSettings, type OtlpSettings } from '../otlp/settings.js';

/** The flags, for node:util parseArgs. */
export const otlpFlags = {
  'otlp.translation-strategy': { type: 'string', default: DEFAULT_OTLP_SETTINGS.translationStrategy },
  'otlp.promote-resource-attributes': { type: 'string', multiple: true, default: [] as string[] },
  'otlp.promote-all-resource-attributes': { type: 'boolean', default: false },
  'otlp.ignore-resource-attributes': { type: 'string', multiple: true, default: [] as string[] },
  'otlp.keep-identifying-resource-attributes': { type: 'boolean', default: false },
  'otlp.promote-scope-metadata': { type: 'boolean', default: false },
} as const;

/** Their lines of `strata serve --help`. */
export const otlpHelp = `  --otlp.translation-strategy S      OTLP metric and label names: ${TRANSLATION_STRATEGIES.join(', ')}
                                     (default UnderscoreEscapingWithSuffixes, as Prometheus)
  --otlp.promote-resource-attributes ATTR  copy this resource attribute onto every series (repeatable)
  --otlp.promote-all-resource-attributes   copy every resource attribute but the ignored ones
  --otlp.ignore-resource-attributes ATTR   with the above, leave this one out (repeatable)
  --otlp.keep-identifying-resource-attributes  keep service.name, service.namespace, service.instance.id on target_info
  --otlp.promote-scope-metadata      add otel_scope_name, otel_scope_version, otel_scope_schema_url and scope attributes as labels`;

interface Values {
  'otlp.translation-strategy': string;
  'otlp.promote-resource-attributes': string[];
  'otlp.promote-all-resource-attributes': boolean;
  'otlp.ignore-resource-attributes': string[];
  'otlp.keep-identifying-resource-attributes': boolean;
  'otlp.promote-scope-metadata': boolean;
}

/** Parses the flags, with Prometheus' checks. Throws UsageError on any mistake. */
export function parseOtlpFlags(values: Values): OtlpSettings {
  const flag = (setting: string): string => `--otlp.${setting.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const settings = otlpSettings({
    translationStrategy: values['otlp.translation-strategy'],
    promoteResourceAttributes: values['otlp.promote-resource-attributes'],
    promoteAllResourceAttributes: values['otlp.promote-all-resource-attributes'],
    ignoreResourceAttributes: values['otlp.ignore-resource-attributes'],
    keepIdentifyingResourceAttributes: values['otlp.keep-identifying-resource-attributes'],
    promoteScopeMetadata: values['otlp.promote-scope-metadata'],
  }, flag);
  if (typeof settings === 'string') throw new UsageError(settings);
  return settings;
}
