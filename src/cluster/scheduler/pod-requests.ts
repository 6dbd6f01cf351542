/**
 * What a pod reserves on a node, computed as kube-scheduler computes it: the sum of its
 * containers' requests, or the largest init container if that is bigger (init containers run
 * one at a time, before the app containers), plus the pod's overhead. Sidecars (init containers
 * with `restartPolicy: Always`) keep running, so they add to the app containers and to every
 * later init container. A container with limits but no requests requests its limits, which is
 * what the API server's defaulting would have written.
 *
 * `nonZero` is the same sum with 100m CPU and 200Mi memory for containers that request none:
 * scoring uses it so that a node full of request-less pods does not look empty.
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { quantityMilliValue, quantityValue } from '../../api/quantity.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import type { Resources } from './types.ts';

export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

type Container = DeepReadonly<V1Container>;
type Quantities = Readonly<Record<string, string | number>> | undefined;

interface Sum {
  milliCpu: number;
  memory: number;
}

export interface PodRequests {
  readonly requests: Resources;
  readonly nonZero: Resources;
}

// Pods repeat the same few quantity strings; parsing each once keeps informer events cheap.
const parsed = new Map<string, number>();
const MAX_MEMO = 10_000;

function memo(kind: 'cpu' | 'memory', q: string | number): number {
  const key = `${kind}:${q}`;
  let v = parsed.get(key);
  if (v === undefined) {
    try {
      v = kind === 'cpu' ? quantityMilliValue(q) : quantityValue(q);
    } catch {
      // The API server validates quantities; one that slipped through reserves nothing.
      v = 0;
    }
    if (parsed.size >= MAX_MEMO) parsed.clear();
    parsed.set(key, v);
  }
  return v;
}

function read(list: Quantities, name: 'cpu' | 'memory'): number | undefined {
  const q = list?.[name];
  return q === undefined || q === null ? undefined : memo(name, q);
}

function containerRequests(c: Container): { requests: Sum; nonZero: Sum } {
  const req = c.resources?.requests as Quantities;
  const lim = c.resources?.limits as Quantities;
  const cpu = read(req, 'cpu') ?? read(lim, 'cpu');
  const memory = read(req, 'memory') ?? read(lim, 'memory');
  return {
    requests: { milliCpu: cpu ?? 0, memory: memory ?? 0 },
    nonZero: { milliCpu: cpu ?? DEFAULT_MILLI_CPU_REQUEST, memory: memory ?? DEFAULT_MEMORY_REQUEST },
  };
}

const add = (a: Sum, b: Sum): Sum => ({ milliCpu: a.milliCpu + b.milliCpu, memory: a.memory + b.memory });
const max = (a: Sum, b: Sum): Sum => ({ milliCpu: Math.max(a.milliCpu, b.milliCpu), memory: Math.max(a.memory, b.memory) });

export function podRequests(spec: DeepReadonly<V1PodSpec> | undefined): PodRequests {
  const zero: Sum = { milliCpu: 0, memory: 0 };
  let apps = { requests: zero, nonZero: zero };
  for (const c of spec?.containers ?? []) {
    const r = containerRequests(c);
    apps = { requests: add(apps.requests, r.requests), nonZero: add(apps.nonZero, r.nonZero) };
  }
  let sidecars = { requests: zero, nonZero: zero };
  let init = { requests: zero, nonZero: zero };
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      sidecars = { requests: add(sidecars.requests, r.requests), nonZero: add(sidecars.nonZero, r.nonZero) };
      // A sidecar starts while later init containers run, so it counts at its own start too.
      init = { requests: max(init.requests, sidecars.requests), nonZero: max(init.nonZero, sidecars.nonZero) };
    } else {
      init = {
        requests: max(init.requests, add(r.requests, sidecars.requests)),
        nonZero: max(init.nonZero, add(r.nonZero, sidecars.nonZero)),
      };
    }
  }
  const overhead = spec?.overhead as Quantities;
  const extra: Sum = { milliCpu: read(overhead, 'cpu') ?? 0, memory: read(overhead, 'memory') ?? 0 };
  return {
    requests: add(max(add(apps.requests, sidecars.requests), init.requests), extra),
    nonZero: add(max(add(apps.nonZero, sidecars.nonZero), init.nonZero), extra),
  };
}
