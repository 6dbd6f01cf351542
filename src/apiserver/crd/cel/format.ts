/**
 * Kubernetes' format library: `format.named(name)` (an optional format) and
 * `format.<name>()` for each named format, with `<format>.validate(s)` returning
 * `optional.none()` for a valid string or an optional list of the errors Kubernetes'
 * validators give: `!format.dns1123Subdomain().validate(self).hasValue()`. The name rules come
 * from src/api/names.ts, the OpenAPI formats from the CRD format registry, `uri` from the URL
 * library's reading of Go's ParseRequestURI.
 */
import { type Environment, Optional } from '@marcbachmann/cel-js';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../api/names.ts';
import { kubeFormats } from '../formats.ts';
import { requestUriError } from './urls.ts';
import type { CelObject } from './values.ts';

/** A `generateName` prefix may end in a dash: Kubernetes masks it before checking the name. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const strfmt = (format: string, message: string) => (s: string): string[] => (kubeFormats[format]!(s) ? [] : [message]);

export class NamedFormat implements CelObject {
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
  ) {}

  celEquals(other: unknown): boolean {
    return other instanceof NamedFormat && other.name === this.name;
  }
}

/** The formats by the names rules use, with the names Kubernetes gives them. */
export const namedFormats: ReadonlyMap<string, NamedFormat> = new Map(
  (
    [
      ['dns1123Label', 'DNS1123Label', isDns1123Label],
      ['dns1123Subdomain', 'DNS1123Subdomain', isDns1123Subdomain],
      ['dns1035Label', 'DNS1035Label', isDns1035Label],
      ['qualifiedName', 'QualifiedName', isQualifiedName],
      ['dns1123LabelPrefix', 'DNS1123LabelPrefix', (s: string) => isDns1123Label(maskTrailingDash(s))],
      ['dns1123SubdomainPrefix', 'DNS1123SubdomainPrefix', (s: string) => isDns1123Subdomain(maskTrailingDash(s))],
      ['dns1035LabelPrefix', 'DNS1035LabelPrefix', (s: string) => isDns1035Label(maskTrailingDash(s))],
      ['labelValue', 'LabelValue', isValidLabelValue],
      ['uri', 'URI', (s: string) => { const err = requestUriError(s); return err === undefined ? [] : [err]; }],
      ['uuid', 'uuid', strfmt('uuid', 'does not match the UUID format')],
      ['byte', 'byte', strfmt('byte', 'invalid base64')],
      ['date', 'date', strfmt('date', 'invalid date')],
      ['datetime', 'datetime', strfmt('datetime', 'invalid datetime')],
    ] as const
  ).map(([key, name, validate]) => [key, new NamedFormat(name, validate)]),
);

/** `format.validate(s)`: none when valid, else the errors. */
export function validateFormat(f: NamedFormat, s: string): Optional<string[]> {
  const errs = f.validate(s);
  return errs.length === 0 ? Optional.none() : Optional.of(errs);
}

class FormatLibrary {}

export function registerFormat(env: Environment): void {
  const F = 'kubernetes.NamedFormat';
  env
    .registerType(F, NamedFormat)
    .registerType('FormatLibrary', FormatLibrary)
    .registerConstant('format', 'FormatLibrary', new FormatLibrary())
    .registerFunction(`FormatLibrary.named(string): optional<${F}>`, (_: FormatLibrary, name: string) => {
      const f = namedFormats.get(name);
      return f ? Optional.of(f) : Optional.none();
    })
    .registerFunction(`${F}.validate(string): optional<list<string>>`, validateFormat)
    .registerOperator(`${F} == ${F}`, (a: NamedFormat, b: NamedFormat) => a.celEquals(b));
  for (const [key, f] of namedFormats) env.registerFunction(`FormatLibrary.${key}(): ${F}`, () => f);
}
