/**
 * The cluster-version-operator component, what a release image runs:
 *   start --release-image=REF [--reconcile-interval=DURATION]   the operator, under leader
 *       election on the `openshift-cluster-version/version` Lease (as OpenShift's CVO)
 *   copy-payload --to=DIR   copy this image's /release-manifests into DIR (how another
 *       release's payload reaches a running CVO; see payload-source.ts)
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '../../api/duration.ts';
import type { ComponentContext } from '../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../runtime/component-flags.ts';
import { containerPath } from '../../runtime/container-path.ts';
import { loadKubeConfig } from '../../runtime/kubeconfig.ts';
import { startManager } from '../../runtime/manager.ts';
import { ApiClient } from '../../runtime/client.ts';
import { createClusterVersionOperator, reportIfScaledDown } from './operator.ts';
import { createPayloadSource, UPDATE_PAYLOADS_PATH } from './payload-source.ts';
import { CVO_NAMESPACE } from './refs.ts';

export const RELEASE_MANIFESTS_PATH = '/release-manifests';

function copyPayload(args: readonly string[], rootfs: string | undefined): void {
  const { values } = parseArgs({ args: [...args], options: { to: { type: 'string' } }, strict: true });
  if (!values.to) throw new Error('copy-payload: --to=DIR is required');
  const source = containerPath(RELEASE_MANIFESTS_PATH, rootfs);
  if (!existsSync(join(source, 'release-metadata'))) throw new Error(`copy-payload: this image carries no payload at ${RELEASE_MANIFESTS_PATH}`);
  const target = join(containerPath(values.to, rootfs), 'release-manifests');
  // Copied beside, then renamed: a CVO never sees half a payload.
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(source, partial, { recursive: true, dereference: true });
  rmSync(target, { recursive: true, force: true });
  renameSync(partial, target);
  process.stdout.write(`copied the payload to ${values.to}\n`);
}

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command === 'copy-payload') return copyPayload(rest, ctx.rootfs);
  if (command !== 'start') throw new Error(`cluster-version-operator: unknown command "${command ?? ''}" (expected start or copy-payload)`);
  const { common, values } = parseComponentFlags('cluster-version-operator', rest, {
    'release-image': { type: 'string' },
    'reconcile-interval': { type: 'string' },
    'release-repository': { type: 'string', default: 'shipyard.local/release' },
    v: { type: 'string' },
  });
  const releaseImage = values['release-image'] as string | undefined;
  if (!releaseImage) throw new Error('cluster-version-operator: --release-image is required');
  const reconcileIntervalMs = values['reconcile-interval'] ? parseDuration(String(values['reconcile-interval'])) : undefined;
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  // Only a CVO that led speaks for the cluster as it goes.
  let led = false;
  const manager = startManager({
    component: 'cluster-version-operator',
    kubeConfig,
    signal: ctx.signal,
    leaderElection: leaderElectionFor(CVO_NAMESPACE, 'version', common, ctx.env),
    controllers: (c) => {
      led = true;
      const payloads = createPayloadSource({
        client: c.client,
        releaseImage,
        ownDir: containerPath(RELEASE_MANIFESTS_PATH, ctx.rootfs),
        updatePayloadsDir: containerPath(UPDATE_PAYLOADS_PATH, ctx.rootfs),
        nodeName: ctx.env.NODE_NAME,
        releaseRepository: String(values['release-repository']),
      });
      return [createClusterVersionOperator(c, { releaseImage, reconcileIntervalMs, payloads })];
    },
  });
  await manager.done;
  if (ctx.signal.aborted && led) {
    const client = new ApiClient(kubeConfig, { userAgent: 'cluster-version-operator', timeoutMs: 5000 });
    try {
      await reportIfScaledDown(client);
    } catch {
      // Best effort within the grace period; the next CVO rewrites status anyway.
    } finally {
      client.close();
    }
  }
}
