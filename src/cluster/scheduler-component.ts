/**
 * The kube-scheduler component: the scheduler's controllers under leader election on the
 * `kube-system/kube-scheduler` Lease, so the copies on every master never bind at once.
 */
import type { ComponentContext } from '../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../runtime/component-flags.ts';
import { loadKubeConfig } from '../runtime/kubeconfig.ts';
import { startManager } from '../runtime/manager.ts';
import { createScheduler } from './scheduler/scheduler.ts';

export async function start(ctx: ComponentContext): Promise<void> {
  const { common, values } = parseComponentFlags('kube-scheduler', ctx.args, { 'scheduler-name': { type: 'string', default: 'default-scheduler' } });
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const manager = startManager({
    component: 'kube-scheduler',
    kubeConfig,
    signal: ctx.signal,
    leaderElection: leaderElectionFor('kube-system', 'kube-scheduler', common, ctx.env),
    controllers: (c) => createScheduler(c, { schedulerName: String(values['scheduler-name']) }).controllers,
  });
  await manager.done;
}
