/**
 * The kube-apiserver operator's config observers, as the seed lists them, and the listers they
 * read: what the operator hands `runtime/config-observer.ts`'s runner. Each observer is a pure
 * function in its own module (storage, images, network).
 */
import type { ConfigObserverFunc } from '../../../runtime/config-observer.ts';
import { observeInternalRegistryHostname, type ImageListers } from './images.ts';
import { observeRestrictedCIDRs, type NetworkListers } from './network.ts';
import { observeStorageURLs, type StorageListers } from './storage.ts';

export type ConfigObservationListers = StorageListers & ImageListers & NetworkListers;

export const kubeAPIServerConfigObservers: readonly ConfigObserverFunc<ConfigObservationListers>[] = [observeStorageURLs, observeInternalRegistryHostname, observeRestrictedCIDRs];
