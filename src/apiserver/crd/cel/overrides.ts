/**
 * Functions cel-js defines natively with semantics other than Kubernetes' (JavaScript regular
 * expressions, UTF-16 indexes, Unicode case mapping). cel-js does not let a native overload be
 * replaced, so Kubernetes' versions are registered under these names and a rule's calls are
 * renamed to them when it is compiled (and back in error messages).
 */
export const overriddenFunctions: Readonly<Record<string, string>> = {
  matches: 'k8sMatches',
  indexOf: 'k8sIndexOf',
  lastIndexOf: 'k8sLastIndexOf',
  substring: 'k8sSubstring',
  lowerAscii: 'k8sLowerAscii',
  upperAscii: 'k8sUpperAscii',
  trim: 'k8sTrim',
  split: 'k8sSplit',
};

/** The name a library registers its version of `name` under. */
export function registeredName(name: string): string {
  return overriddenFunctions[name] ?? name;
}

const back = new Map(Object.entries(overriddenFunctions).map(([k, v]) => [v, k]));

/** The name a rule's author wrote for a (possibly renamed) function. */
export function originalName(name: string): string {
  return back.get(name) ?? name;
}

/** An error message as the rule's author wrote the names. */
export function unrenamed(message: string): string {
  return message.replace(/k8s[A-Z][A-Za-z]*/g, (m) => back.get(m) ?? m);
}
