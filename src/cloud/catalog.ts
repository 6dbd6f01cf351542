/**
 * What the simulated cloud offers: one region, three zones, and a small table of instance
 * types. The `m6i.*` names are aliases so that MachineSets written for AWS examples run here
 * unchanged. A node's capacity comes from its type; its providerID names the zone and instance,
 * `shipyard://local/<zone>/<id>`, the shape the Machine API and the node link controller match on.
 */
import type { InstanceType } from '../cloudclient/types.ts';

export const region = 'local';
export const zones = ['local-a', 'local-b', 'local-c'] as const;
export type Zone = (typeof zones)[number];

const base: InstanceType[] = [
  { name: 's.small', cpu: 1, memory: '2Gi', memoryMiB: 2048, maxPods: 110 },
  { name: 's.medium', cpu: 2, memory: '8Gi', memoryMiB: 8192, maxPods: 110 },
  { name: 's.large', cpu: 4, memory: '16Gi', memoryMiB: 16384, maxPods: 250 },
  { name: 's.xlarge', cpu: 8, memory: '32Gi', memoryMiB: 32768, maxPods: 250 },
];
const aliases: Record<string, string> = { 'm6i.large': 's.medium', 'm6i.xlarge': 's.large', 'm6i.2xlarge': 's.xlarge' };

export const instanceTypes: readonly InstanceType[] = [
  ...base,
  ...Object.entries(aliases).map(([name, of]) => ({ ...base.find((t) => t.name === of)!, name, aliasOf: of })),
];

export function findInstanceType(name: string): InstanceType | undefined {
  return instanceTypes.find((t) => t.name === name);
}

export function isZone(value: string): value is Zone {
  return (zones as readonly string[]).includes(value);
}

export function providerID(zone: string, id: string): string {
  return `shipyard://${region}/${zone}/${id}`;
}

export function parseProviderID(value: string): { region: string; zone: string; id: string } | undefined {
  const m = /^shipyard:\/\/([^/]+)\/([^/]+)\/(i-[0-9a-f]{17})$/.exec(value);
  return m ? { region: m[1]!, zone: m[2]!, id: m[3]! } : undefined;
}
