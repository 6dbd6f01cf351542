/**
 * How `kubectl get pods` reads: READY (`1/2`, sidecars counted), the STATUS kubectl users
 * know (a phase, or what holds the pod back: `Init:0/2`, `Init:CrashLoopBackOff`,
 * `ContainerCreating`, `CrashLoopBackOff`, `Completed`, `Error`, `SchedulingGated`,
 * `Terminating`, ...), RESTARTS with the age of the last restart (`3 (5m ago)`), AGE, and the
 * wide columns. The rules follow kube-apiserver 1.32's pod printer, including restartable
 * init containers (sidecars).
 */
import { ageColumn, column, int, nameColumn, text, wide } from './columns.ts';
import { ageSince, humanDuration, parseTimestamp, zeroTime } from './human-duration.ts';
import type { PrintedObject, TableConvertor, TableRowCondition } from './types.ts';

const isSidecar = (c: PrintedObject | undefined): boolean => c?.restartPolicy === 'Always';

function hasCondition(pod: PrintedObject, type: string): boolean {
  return (pod.status?.conditions ?? []).some((c: PrintedObject) => c?.type === type && c?.status === 'True');
}

/** Only the first `Initialized` condition counts, as in Kubernetes. */
function initializedConditionTrue(pod: PrintedObject): boolean {
  const c = (pod.status?.conditions ?? []).find((x: PrintedObject) => x?.type === 'Initialized');
  return c?.status === 'True';
}

/** The `finishedAt` of a container's last termination, in ms, or undefined. */
function lastTerminated(status: PrintedObject): number | undefined {
  const t = parseTimestamp(status?.lastState?.terminated?.finishedAt);
  return t === zeroTime ? undefined : t;
}

/** `ExitCode:1` / `Signal:9` for a termination without a reason. */
function terminationText(terminated: PrintedObject, prefix: string): string {
  const reason = text(terminated.reason);
  if (reason) return prefix + reason;
  const signal = int(terminated.signal);
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${int(terminated.exitCode)}`;
}

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

export function summarizePod(pod: PrintedObject, now: number): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const initContainers: PrintedObject[] = Array.isArray(spec.initContainers) ? spec.initContainers : [];
  const initByName = new Map(initContainers.map((c) => [c?.name, c]));
  const phase = text(status.phase);

  let reason = text(status.reason) || phase;
  for (const c of status.conditions ?? []) {
    if (c?.type === 'PodScheduled' && c?.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const totalContainers = (Array.isArray(spec.containers) ? spec.containers.length : 0) + initContainers.filter(isSidecar).length;
  let readyContainers = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined): number | undefined => (b === undefined ? a : a === undefined || b > a ? b : a);

  let initializing = false;
  const initStatuses: PrintedObject[] = Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : [];
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i] ?? {};
    const state = cs.state ?? {};
    restarts += int(cs.restartCount);
    lastRestart = later(lastRestart, lastTerminated(cs));
    const sidecar = isSidecar(initByName.get(cs.name));
    if (sidecar) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, lastTerminated(cs));
    }
    if (state.terminated && int(state.terminated.exitCode) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready === true) readyContainers++;
      continue;
    }
    if (state.terminated) reason = terminationText(state.terminated, 'Init:');
    else if (state.waiting && text(state.waiting.reason) && state.waiting.reason !== 'PodInitializing') reason = `Init:${state.waiting.reason}`;
    else reason = `Init:${i}/${initContainers.length}`;
    initializing = true;
    break;
  }

  if (!initializing || initializedConditionTrue(pod)) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses: PrintedObject[] = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
    // Walked backwards so that the first container's state wins, as in Kubernetes.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] ?? {};
      const state = cs.state ?? {};
      restarts += int(cs.restartCount);
      lastRestart = later(lastRestart, lastTerminated(cs));
      if (state.waiting && text(state.waiting.reason)) reason = state.waiting.reason;
      else if (state.terminated) reason = terminationText(state.terminated, '');
      else if (cs.ready === true && state.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A completed container next to running ones means the pod still runs.
    if (reason === 'Completed' && hasRunning) reason = hasCondition(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = !!pod.metadata?.deletionTimestamp;
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartText = restarts !== 0 && lastRestart !== undefined ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  return { ready: `${readyContainers}/${totalContainers}`, status: reason, restarts: restartText };
}

function readinessGates(pod: PrintedObject): string {
  const gates: PrintedObject[] = Array.isArray(pod.spec?.readinessGates) ? pod.spec.readinessGates : [];
  if (gates.length === 0) return '<none>';
  const conditions: PrintedObject[] = pod.status?.conditions ?? [];
  const met = gates.filter((g) => conditions.find((c) => c?.type === g?.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

export const podTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'How many of the pod’s containers are ready.'),
    column('Status', 'string', 'The pod’s phase, or the state that keeps it from running.'),
    column('Restarts', 'string', 'How often the pod’s containers restarted, and when the last one did.'),
    ageColumn,
    wide('IP', 'string', 'The pod’s IP address.'),
    wide('Node', 'string', 'The node the pod is bound to.'),
    wide('Nominated Node', 'string', 'The node the scheduler plans to place the pod on after preemption.'),
    wide('Readiness Gates', 'string', 'How many of the pod’s readiness gates are met.'),
  ],
  cells(pod, now) {
    const s = summarizePod(pod, now);
    const ip = text(pod.status?.podIPs?.[0]?.ip) || text(pod.status?.podIP) || '<none>';
    return [
      text(pod.metadata?.name),
      s.ready,
      s.status,
      s.restarts,
      ageSince(pod.metadata?.creationTimestamp, now),
      ip,
      text(pod.spec?.nodeName) || '<none>',
      text(pod.status?.nominatedNodeName) || '<none>',
      readinessGates(pod),
    ];
  },
  conditions(pod): TableRowCondition[] | undefined {
    if (pod.status?.phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    if (pod.status?.phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
};
