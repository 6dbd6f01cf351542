/**
 * The components Shipyard ships, each with the built-in image that runs it. A component is a
 * module exporting `start(ctx)` (runtime/component.ts); the image's entrypoint is its launcher
 * in bin/components/, so a process pod runs exactly what `shipyard component <name>` runs.
 */
import { fileURLToPath } from 'node:url';
import type { ComponentStart } from '../runtime/component.ts';
import { componentNodeArgs } from './compiler-policy.ts';

export const SHIPYARD_VERSION = '0.1.0';

interface ComponentEntry {
  readonly load: () => Promise<ComponentStart>;
  /** Runs V8's compilers (compiler-policy.ts); the controllers do not. */
  readonly optimize?: true;
}

export const components: Readonly<Record<string, ComponentEntry>> = {
  'kube-apiserver': { load: async () => (await import('../apiserver/component.ts')).start, optimize: true },
  'kube-controller-manager': { load: async () => (await import('../cluster/controller-manager.ts')).start },
  'kube-scheduler': { load: async () => (await import('../cluster/scheduler-component.ts')).start },
  'cluster-version-operator': { load: async () => (await import('../operators/cluster-version/component.ts')).start },
  'config-operator': { load: async () => (await import('../operators/config/component.ts')).start },
  'machine-config-operator': { load: async () => (await import('../operators/machine-config/operator/component.ts')).start },
  'machine-config-controller': { load: async () => (await import('../operators/machine-config/controller/component.ts')).start },
  'machine-config-server': { load: async () => (await import('../operators/machine-config/server/component.ts')).start },
  'machine-config-daemon': { load: async () => (await import('../operators/machine-config/daemon/component.ts')).start },
  // The daemon pod's second container, guarding its metrics, as in OpenShift's.
  'oauth-proxy': { load: async () => (await import('../operators/machine-config/oauth-proxy/component.ts')).start },
  // Like OpenShift's image, one image for the operator and three of its controllers: its first argument picks the program.
  'machine-api-operator': { load: async () => (await import('../operators/machine-api/component.ts')).start },
  // The platform's provider image (images.json clusterAPIControllerShipyard): the machine controller alone.
  'machine-controller': { load: async () => (await import('../operators/machine-api/machine/component.ts')).start },
  // OpenShift's cluster-machine-approver: approves joining machines' node client certificates.
  'machine-approver': { load: async () => (await import('../operators/machine-approver/component.ts')).start },
  // Like OpenShift's image, the kube-apiserver operator and the installer its pods run: the first argument picks the program.
  'cluster-kube-apiserver-operator': { load: async () => (await import('../operators/kube-apiserver/component.ts')).start },
};

/** `shipyard.local/<name>:v<version>`: a registry host with a dot, so no reference normalization touches it. */
export function builtinImage(name: string): string {
  return `shipyard.local/${name}:v${SHIPYARD_VERSION}`;
}

export function launcherPath(name: string): string {
  return fileURLToPath(new URL(`../../bin/components/${name}.js`, import.meta.url));
}

export function componentNames(): string[] {
  return Object.keys(components);
}

function entryOf(name: string): ComponentEntry {
  const entry = components[name];
  if (!entry) throw new Error(`unknown component "${name}"; known: ${componentNames().join(', ')}`);
  return entry;
}

export async function loadComponent(name: string): Promise<ComponentStart> {
  return entryOf(name).load();
}

/** Whether the component runs V8's optimizing compiler. */
export function optimizes(name: string): boolean {
  return entryOf(name).optimize === true;
}

/** How the component's built-in image is registered in a node's image store: its launcher, and the node flags it runs with. */
export function builtinImageOptions(name: string): { entrypoint: string; nodeArgs: string[]; builtin: true } {
  return { entrypoint: launcherPath(name), nodeArgs: componentNodeArgs(optimizes(name)), builtin: true };
}
