/**
 * The CEL environment Kubernetes 1.32 gives validation expressions, for CRD rules
 * (`x-kubernetes-validations`) and, later, ValidatingAdmissionPolicy: cel-js's standard
 * library with optional types, plus Kubernetes' libraries (regex, lists, URLs, quantity, IP,
 * CIDR, format), CEL's string and set extensions, and the semver library (which Kubernetes
 * enables from 1.33). The variables are the caller's: this module knows nothing of CRDs.
 */
import { Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { registerFormat } from './format.ts';
import { registerLists } from './lists.ts';
import { installMeter } from './meter.ts';
import { registerNet } from './net.ts';
import { registerQuantity } from './quantity.ts';
import { registerRegex } from './regex.ts';
import { registerSemver } from './semver.ts';
import { registerStrings } from './strings.ts';
import { registerUrls } from './urls.ts';
import { isMap } from './values.ts';

/** CEL's zero values, which `optional.ofNonZeroValue` turns into `optional.none()`. */
function isZero(x: unknown): boolean {
  if (x === null || x === false || x === 0 || x === 0n || x === '') return true;
  if (x instanceof UnsignedInt) return x.value === 0n;
  if (x instanceof Duration) return x.seconds === 0n && x.nanos === 0;
  if (x instanceof Date) return x.getTime() === 0;
  if (x instanceof Uint8Array || Array.isArray(x)) return x.length === 0;
  if (isMap(x)) return Object.keys(x).length === 0;
  return false;
}

/**
 * Never a value: its methods only exist so that cel-js types a generic method called on a
 * `dyn` value (`oldSelf.value()`, `self.items.max()`) as `dyn` rather than as the unbound
 * type parameter, which it would refuse to select a field of.
 */
class DynReturn {}

/** An environment with every library registered and `variables` declared as `dyn`. */
export function createEnvironment(variables: readonly string[]): Environment {
  const env = new Environment({ enableOptionalTypes: true });
  for (const v of variables) env.registerVariable(v, 'dyn');
  env.registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_: unknown, x: unknown) => (isZero(x) ? Optional.none() : Optional.of(x)));
  registerRegex(env);
  registerStrings(env);
  registerLists(env);
  registerUrls(env);
  registerQuantity(env);
  registerNet(env);
  registerFormat(env);
  registerSemver(env);
  env.registerType('DynReturn', DynReturn);
  for (const name of ['value', 'sum', 'min', 'max']) env.registerFunction(`DynReturn.${name}(): dyn`, () => null);
  installMeter(env);
  return env;
}
