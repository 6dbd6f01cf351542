/** The config-operator component: `start`, under leader election on `openshift-config-operator/config-operator-lock`. */
import type { ComponentContext } from '../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../runtime/component-flags.ts';
import { loadKubeConfig } from '../../runtime/kubeconfig.ts';
import { startManager } from '../../runtime/manager.ts';
import { createConfigOperator, OPERATOR_NAMESPACE } from './operator.ts';

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command !== 'start') throw new Error(`config-operator: unknown command "${command ?? ''}" (expected start)`);
  const { common } = parseComponentFlags('config-operator', rest, { v: { type: 'string' } });
  const releaseVersion = ctx.env.RELEASE_VERSION;
  if (!releaseVersion) throw new Error('config-operator: RELEASE_VERSION is not set (the payload sets it in the Deployment)');
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const manager = startManager({
    component: 'config-operator',
    kubeConfig,
    signal: ctx.signal,
    leaderElection: leaderElectionFor(OPERATOR_NAMESPACE, 'config-operator-lock', common, ctx.env),
    controllers: (c) => [createConfigOperator(c, { releaseVersion })],
  });
  await manager.done;
}
