/**
 * The Shipyard provider's `spec.providerSpec.value`, read and checked field by field as
 * OpenShift's providers decode theirs, every error naming its field the way kube-apiserver
 * words it (`spec.providerSpec.value.instanceType: Unsupported value: "x": supported values:
 * ...`), so a Machine that goes Failed says exactly what to fix. Instance types and zones are
 * checked against the cloud's own catalogue, passed in, so this module stays pure.
 *
 * ```yaml
 * providerSpec:
 *   value:
 *     apiVersion: machine.openshift.io/v1beta1
 *     kind: ShipyardMachineProviderSpec
 *     instanceType: s.large
 *     zone: local-a                      # optional: the cloud picks the least used zone
 *     userDataSecret: {name: worker-user-data}
 *     credentialsSecret: {name: shipyard-cloud-credentials}
 *     tags: [{name: team, value: infra}] # as AWS's providerSpec spells them
 * ```
 */
import { childPath, fieldError, type FieldError } from '../../../../api/field-errors.ts';

export const providerSpecApiVersion = 'machine.openshift.io/v1beta1';
export const providerSpecKind = 'ShipyardMachineProviderSpec';
export const providerStatusKind = 'ShipyardMachineProviderStatus';
export const defaultUserDataSecret = 'worker-user-data';
export const defaultCredentialsSecret = 'shipyard-cloud-credentials';
export const providerSpecPath = 'spec.providerSpec.value';

export interface ProviderTag {
  readonly name: string;
  readonly value: string;
}

export interface ShipyardProviderSpec {
  readonly instanceType: string;
  readonly zone?: string;
  readonly userDataSecret: { readonly name: string };
  readonly credentialsSecret: { readonly name: string };
  readonly tags: readonly ProviderTag[];
}

/** What the cloud offers, as its API lists it. */
export interface Catalogue {
  readonly instanceTypes: readonly string[];
  readonly zones: readonly string[];
}

/** Tag keys the provider sets itself; a providerSpec may not claim them. */
export const reservedTagKeys = ['Name', 'machine.openshift.io/machine'] as const;
export const clusterTagPrefix = 'kubernetes.io/cluster/';
/** The cloud's limit (50) less the tags the provider adds. */
const maxUserTags = 50 - reservedTagKeys.length - 1;

export type ParsedProviderSpec = { ok: true; spec: ShipyardProviderSpec } | { ok: false; errors: FieldError[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the providerSpec; with a catalogue, also checks the instance type and zone exist. Without
 * one (a delete, which needs only the Secrets' names) the rest is still checked.
 */
export function parseProviderSpec(value: unknown, catalogue?: Catalogue): ParsedProviderSpec {
  const path = providerSpecPath;
  const errors: FieldError[] = [];
  if (!isObject(value)) return { ok: false, errors: [value === undefined || value === null ? fieldError.required(path) : fieldError.typeInvalid(path, value, 'must be an object')] };

  if (value.apiVersion !== undefined && value.apiVersion !== providerSpecApiVersion) {
    errors.push(fieldError.notSupported(childPath(path, 'apiVersion'), value.apiVersion, [providerSpecApiVersion]));
  }
  if (value.kind !== undefined && value.kind !== providerSpecKind) errors.push(fieldError.notSupported(childPath(path, 'kind'), value.kind, [providerSpecKind]));

  const instanceType = value.instanceType;
  const typePath = childPath(path, 'instanceType');
  if (instanceType === undefined || instanceType === '') errors.push(fieldError.required(typePath));
  else if (typeof instanceType !== 'string') errors.push(fieldError.typeInvalid(typePath, instanceType, 'must be a string'));
  else if (catalogue && !catalogue.instanceTypes.includes(instanceType)) errors.push(fieldError.notSupported(typePath, instanceType, catalogue.instanceTypes));

  const zone = value.zone;
  const zonePath = childPath(path, 'zone');
  if (zone !== undefined && zone !== '') {
    if (typeof zone !== 'string') errors.push(fieldError.typeInvalid(zonePath, zone, 'must be a string'));
    else if (catalogue && !catalogue.zones.includes(zone)) errors.push(fieldError.notSupported(zonePath, zone, catalogue.zones));
  }

  const userDataSecret = secretRef(value.userDataSecret, childPath(path, 'userDataSecret'), defaultUserDataSecret, errors);
  const credentialsSecret = secretRef(value.credentialsSecret, childPath(path, 'credentialsSecret'), defaultCredentialsSecret, errors);
  const tags = parseTags(value.tags, childPath(path, 'tags'), errors);

  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    spec: {
      instanceType: instanceType as string,
      ...(typeof zone === 'string' && zone !== '' ? { zone } : {}),
      userDataSecret: { name: userDataSecret },
      credentialsSecret: { name: credentialsSecret },
      tags,
    },
  };
}

/** The credentials Secret's name, whatever else the spec says: what finding and deleting an instance needs. */
export function credentialsSecretName(value: unknown): string {
  return secretRef(isObject(value) ? value.credentialsSecret : undefined, '', defaultCredentialsSecret, []);
}

function secretRef(value: unknown, path: string, fallback: string, errors: FieldError[]): string {
  if (value === undefined || value === null) return fallback;
  if (!isObject(value)) {
    errors.push(fieldError.typeInvalid(path, value, 'must be an object with a name'));
    return fallback;
  }
  const name = value.name;
  if (name === undefined || name === '') return fallback;
  if (typeof name !== 'string') {
    errors.push(fieldError.typeInvalid(childPath(path, 'name'), name, 'must be a string'));
    return fallback;
  }
  return name;
}

function parseTags(value: unknown, path: string, errors: FieldError[]): ProviderTag[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push(fieldError.typeInvalid(path, value, 'must be a list of {name, value}'));
    return [];
  }
  if (value.length > maxUserTags) errors.push(fieldError.invalid(path, value.length, `must have at most ${maxUserTags} items`));
  const tags: ProviderTag[] = [];
  const seen = new Set<string>();
  for (const [i, item] of (value as unknown[]).entries()) {
    const at = childPath(path, i);
    const error = tagError(item, at, seen);
    if (error) errors.push(error);
    else tags.push({ name: (item as ProviderTag).name, value: (item as { value?: string }).value ?? '' });
  }
  return tags;
}

function tagError(item: unknown, at: string, seen: Set<string>): FieldError | undefined {
  if (!isObject(item)) return fieldError.typeInvalid(at, item, 'must be an object with a name and a value');
  const { name, value } = item;
  if (typeof name !== 'string' || name === '') return fieldError.required(childPath(at, 'name'));
  if (name.length > 128) return fieldError.tooLong(childPath(at, 'name'), 128);
  if ((reservedTagKeys as readonly string[]).includes(name) || name.startsWith(clusterTagPrefix)) {
    return fieldError.forbidden(childPath(at, 'name'), `tag ${JSON.stringify(name)} is set by the machine controller`);
  }
  if (seen.has(name)) return fieldError.duplicate(childPath(at, 'name'), name);
  seen.add(name);
  if (value !== undefined && typeof value !== 'string') return fieldError.typeInvalid(childPath(at, 'value'), value, 'must be a string');
  if (typeof value === 'string' && value.length > 256) return fieldError.tooLong(childPath(at, 'value'), 256);
  return undefined;
}

/** Several field errors in one message, as Kubernetes aggregates them (`[a, b]` when more than one). */
export function aggregateMessage(errors: readonly FieldError[]): string {
  return errors.length === 1 ? errors[0]!.message : `[${errors.map((e) => e.message).join(', ')}]`;
}
