/**
 * `shipyard explain mcp/<pool>`: for a pool that is stuck or degraded, which node is blocked,
 * on which step, what is in the way (the pod and the PodDisruptionBudget of a drain, the
 * unreconcilable change, the render failure) and why that pod cannot go elsewhere — the
 * diagnosis a user of OpenShift's MCO pieces together from `oc describe mcp`, daemon logs, the
 * budget and the scheduler's events, in one answer.
 */
import type { Blocker, NodeFacts, PoolFacts } from './pool-facts.ts';

type Condition = { type: string; status: string; reason?: string; message?: string };

function condition(f: PoolFacts, type: string): Condition | undefined {
  return (f.pool.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);
}

function nodeStatus(n: NodeFacts): string {
  return n.unschedulable ? `${n.ready},SchedulingDisabled` : n.ready;
}

/** Where a node is in its update, as far as its annotations and cordon tell. */
function step(n: NodeFacts, blocked: boolean): string {
  if (n.state === 'Unreconcilable') return 'refused the change (it cannot be applied in place)';
  if (blocked) return 'draining: an eviction is refused';
  if (n.state === 'Degraded') return 'degraded';
  if (n.desiredConfig && n.currentConfig !== n.desiredConfig) {
    if (n.state === 'Working') return n.unschedulable ? 'updating (cordoned: draining, writing files or rebooting)' : 'updating';
    return 'waiting for its daemon to start the update';
  }
  return 'up to date';
}

function budgetLine(b: Blocker): string {
  const s = b.budgetStatus;
  if (!s) return `PodDisruptionBudget ${b.budget}: not found (it may have been deleted since; the daemon retries every 5 s)`;
  const rule = s.minAvailable !== undefined ? `minAvailable ${s.minAvailable}` : s.maxUnavailable !== undefined ? `maxUnavailable ${s.maxUnavailable}` : 'no rule';
  return `PodDisruptionBudget ${b.budget}: ${rule}; ${s.currentHealthy ?? 0} healthy of ${s.expectedPods ?? 0} expected (${s.desiredHealthy ?? 0} required), ${s.disruptionsAllowed ?? 0} disruptions allowed`;
}

function blockerLines(b: Blocker): string[] {
  const out = [`    blocked by: pod ${b.pod} cannot be evicted: it would violate PodDisruptionBudget ${b.budget}`, `    ${budgetLine(b)}`];
  if (b.owner) out.push(`    pod ${b.pod} belongs to ${b.owner.kind} ${b.owner.name}${b.owner.replicas !== undefined ? ` (${b.owner.replicas} replicas)` : ''}`);
  for (const s of b.pendingSiblings) out.push(`    its replica ${s.name} cannot be scheduled elsewhere: ${s.message}`);
  const ways = ['let another replica run elsewhere (more schedulable nodes, or relax its affinity or taints)', 'relax the PodDisruptionBudget'];
  if (b.owner?.kind === 'Deployment') ways.push(`scale ${b.owner.kind} ${b.owner.name} down`);
  out.push(`    the drain resumes by itself once one of these holds: ${ways.join('; ')}`);
  return out;
}

export function renderPoolExplanation(f: PoolFacts): string {
  const name = f.pool.metadata?.name ?? '';
  const target = f.pool.spec?.configuration?.name;
  const current = f.pool.status?.configuration?.name;
  const out: string[] = [];
  const flags = ['Updated', 'Updating', 'Degraded'].filter((t) => condition(f, t)?.status === 'True');
  out.push(`MachineConfigPool ${name}: ${flags.length ? flags.join(', ') : 'no status yet'}; ${f.nodes.length} node(s)`);
  out.push(`  current config: ${current ?? '(none)'}`);
  if (target && target !== current) out.push(`  target config:  ${target}`);
  if (f.pool.spec?.paused) out.push(`  paused: nodes will not be updated to ${target ?? 'the target'} until spec.paused is false`);
  const render = condition(f, 'RenderDegraded');
  if (render?.status === 'True') out.push(`  render failed: ${render.message ?? render.reason ?? ''}`, '    the pool keeps its previous target; fix or delete the MachineConfig named above');
  const stuck = f.nodes.filter((n) => n.state === 'Degraded' || n.state === 'Unreconcilable' || f.blockers.has(n.name) || (n.desiredConfig !== undefined && n.currentConfig !== n.desiredConfig));
  if (stuck.length === 0) {
    out.push(render?.status === 'True' || f.pool.spec?.paused ? '' : '  every node runs the current config; nothing is in the way');
    return `${out.filter((l) => l !== '').join('\n')}\n`;
  }
  for (const n of stuck) {
    const blocker = f.blockers.get(n.name);
    out.push(`  node ${n.name} (${nodeStatus(n)}): ${step(n, blocker !== undefined)}`);
    if (n.currentConfig !== n.desiredConfig) out.push(`    from ${n.currentConfig ?? '(none)'} to ${n.desiredConfig ?? '(none)'}`);
    if (n.state) out.push(`    state ${n.state}${n.reason ? `: ${n.reason}` : ''}`);
    if (blocker) out.push(...blockerLines(blocker));
    else if (n.state === 'Unreconcilable') out.push('    the node stays on its current config until the MachineConfig that asks for this is reverted or deleted');
  }
  const waiting = f.nodes.filter((n) => !stuck.includes(n) && n.currentConfig !== target && target !== undefined);
  if (waiting.length) out.push(`  ${waiting.length} more node(s) wait their turn (maxUnavailable ${String(f.pool.spec?.maxUnavailable ?? 1)})`);
  return `${out.join('\n')}\n`;
}
