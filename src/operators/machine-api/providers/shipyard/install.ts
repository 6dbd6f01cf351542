/**
 * The objects a Shipyard Machine needs besides itself, written the way this provider reads them,
 * for whoever sets a cluster up (`shipyard up`'s install, tests): the cloud credentials Secret
 * (keys `url`, `token`), a user-data Secret (key `userData`) and a providerSpec value. Kept beside
 * the provider so the format has one owner.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { defaultCredentialsSecret, defaultUserDataSecret, providerSpecApiVersion, providerSpecKind, type ProviderTag } from './provider-spec.ts';

export interface CloudCredentials {
  readonly url: string;
  readonly token: string;
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** The Secret the provider reads the cloud API's address and token from (`credentialsSecret`). */
export function cloudCredentialsSecret(namespace: string, credentials: CloudCredentials, name: string = defaultCredentialsSecret): V1Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data: { url: base64(credentials.url), token: base64(credentials.token) } };
}

/** A Secret holding the Ignition config (usually a pointer to the config server) new instances boot from. */
export function userDataSecret(namespace: string, name: string, userData: string): V1Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data: { userData: base64(userData) } };
}

export interface ProviderSpecInput {
  readonly instanceType: string;
  readonly zone?: string;
  readonly userDataSecret?: string;
  readonly credentialsSecret?: string;
  readonly tags?: readonly ProviderTag[];
}

/** A `spec.providerSpec.value` for the Shipyard provider. */
export function providerSpecFor(input: ProviderSpecInput): Record<string, unknown> {
  return {
    apiVersion: providerSpecApiVersion,
    kind: providerSpecKind,
    instanceType: input.instanceType,
    ...(input.zone ? { zone: input.zone } : {}),
    userDataSecret: { name: input.userDataSecret ?? defaultUserDataSecret },
    credentialsSecret: { name: input.credentialsSecret ?? defaultCredentialsSecret },
    ...(input.tags?.length ? { tags: input.tags.map((t) => ({ ...t })) } : {}),
  };
}
