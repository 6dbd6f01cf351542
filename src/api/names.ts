/**
 * Kubernetes' name and label rules (DNS-1123 subdomain and label, DNS-1035 label, qualified
 * names, label values), each returning the messages kube-apiserver gives, so a bad name is
 * refused with a message that says which rule it broke.
 */

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${qualifiedNameFmt})?`;

const dns1123Label = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035Label = new RegExp(`^${dns1035LabelFmt}$`);
const qualifiedName = new RegExp(`^${qualifiedNameFmt}$`);
const labelValue = new RegExp(`^${labelValueFmt}$`);

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!dns1123Label.test(value)) {
    errs.push(`a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelFmt}')`);
  }
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!dns1123Subdomain.test(value)) {
    errs.push(`a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${dns1123SubdomainFmt}')`);
  }
  return errs;
}

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!dns1035Label.test(value)) {
    errs.push(`a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${dns1035LabelFmt}')`);
  }
  return errs;
}

/** Names used in paths may not be `.`/`..` nor contain `/` or `%`. */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const bad = ['/', '%'].filter((c) => value.includes(c));
  return bad.map((c) => `may not contain '${c}'`);
}

/** A label or annotation key: an optional DNS subdomain prefix and `/`, then a name of ≤63 characters. */
export function isQualifiedName(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length > 0 && !qualifiedName.test(name)) {
    errs.push(`name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}')`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!labelValue.test(value)) {
    errs.push(`a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${labelValueFmt}')`);
  }
  return errs;
}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` + 5 characters, as kube-apiserver's name generator forms them. */
export function generateName(base: string): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameChars[Math.floor(Math.random() * nameChars.length)];
  return prefix + suffix;
}
