/**
 * The `installer` command an installer pod runs (issue 17, item 5; reference §8): on its node
 * (`NODE_NAME`), it first lets other installers there finish — a newer revision's installer
 * makes this one moot and it stops, an older one still running would race it for the manifest —
 * then reads revision N's copies `<name>-N` (and the unrevisioned cert inputs) with its client,
 * has `installRevision` write them under the node's `/etc/kubernetes/`, and records
 * `StaticPodInstallerCompleted` or `StaticPodInstallerFailed` in the operand namespace. A
 * failure is thrown, so the process exits non-zero, the pod ends Failed, and the error (the
 * log's last lines, through FallbackToLogsOnError) becomes the node's lastFailedRevisionErrors.
 *
 * The node's root is found through the container's `/etc/kubernetes/` hostPath mount: where that
 * mount really is on this host, less `/etc/kubernetes`. In a real container that is `/`.
 */
import { realpath } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { KubeConfig, V1ConfigMap, V1Pod, V1Secret } from '@kubernetes/client-node';
import { kubeAPIServerNamespace, revisionedName, revisionLabels } from '../../../api/operator/index.ts';
import { parseDuration } from '../../../api/duration.ts';
import { ApiClient, errorText, isNotFound } from '../../../runtime/client.ts';
import { realClock, sleep, type Clock } from '../../../runtime/clock.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import { createEventRecorder, type ObjectRefLike } from '../../../runtime/events.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { resources } from '../../../runtime/resources.ts';
import { certDirName, InstallError, installerFailedMessage, installRevision, podManifestDir, podResourceName, resourceDir, type InstallInput } from './install.ts';

export const installerComponent = 'static-pod-installer';

/** How long to wait for other installers on the node (reference §8 step 2); settable for tests. */
export interface InstallerWaits {
  /** Between two looks at the node's installer pods. Upstream: 10 s. */
  readonly pollMs: number;
  /** At most this long for older installers to finish. Upstream: 60 s. */
  readonly timeoutMs: number;
  /** After waiting for one, before looking again: the kubelet's time to act on its manifest. Upstream: 30 s. */
  readonly settleMs: number;
}

export const defaultInstallerWaits: InstallerWaits = { pollMs: 10_000, timeoutMs: 60_000, settleMs: 30_000 };

export interface InstallerContext extends ComponentContext {
  /** The client's config; `--kubeconfig`, KUBECONFIG or the pod's service account unless given. */
  readonly kubeConfig?: KubeConfig;
  readonly clock?: Clock;
  readonly waits?: InstallerWaits;
}

export interface InstallerArgs {
  readonly revision: number;
  readonly namespace: string;
  readonly inputs: readonly { kind: 'configmap' | 'secret'; name: string; optional: boolean }[];
  readonly certInputs: readonly { kind: 'configmap' | 'secret'; name: string; optional: boolean }[];
  readonly kubeconfig?: string;
  readonly timeoutMs: number;
}

const list = { type: 'string', multiple: true } as const;

/** The flags upstream's installer takes; a flag it does not know, or a directory other than the ones `install.ts` writes, is an error. */
export function parseInstallerArgs(args: readonly string[]): InstallerArgs {
  const { values } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      v: { type: 'string' },
      kubeconfig: { type: 'string' },
      revision: { type: 'string' },
      namespace: { type: 'string', default: kubeAPIServerNamespace },
      pod: { type: 'string', default: podResourceName },
      'resource-dir': { type: 'string', default: resourceDir },
      'pod-manifest-dir': { type: 'string', default: podManifestDir },
      'cert-dir': { type: 'string' },
      'timeout-duration': { type: 'string', default: '120s' },
      configmaps: list,
      'optional-configmaps': list,
      secrets: list,
      'optional-secrets': list,
      'cert-configmaps': list,
      'optional-cert-configmaps': list,
      'cert-secrets': list,
      'optional-cert-secrets': list,
    },
  });
  const revision = Number(values.revision);
  if (!values.revision || !Number.isInteger(revision) || revision < 1) throw new Error(`installer: --revision must be a positive integer, got ${JSON.stringify(values.revision ?? '')}`);
  const fixed: [string, string | undefined, string][] = [
    ['pod', values.pod, podResourceName],
    ['resource-dir', values['resource-dir']?.replace(/\/$/, ''), resourceDir],
    ['pod-manifest-dir', values['pod-manifest-dir']?.replace(/\/$/, ''), podManifestDir],
  ];
  if (values['cert-dir'] !== undefined) fixed.push(['cert-dir', values['cert-dir'].replace(/\/$/, ''), `${resourceDir}/${certDirName}`]);
  for (const [flag, got, want] of fixed) if (got !== want) throw new Error(`installer: --${flag}=${got}: only ${want} is supported`);
  const of = (kind: 'configmap' | 'secret', optional: boolean, names: string[] | undefined) => (names ?? []).map((name) => ({ kind, name, optional }));
  return {
    revision,
    namespace: values.namespace!,
    inputs: [...of('configmap', false, values.configmaps), ...of('configmap', true, values['optional-configmaps']), ...of('secret', false, values.secrets), ...of('secret', true, values['optional-secrets'])],
    certInputs: [
      ...of('configmap', false, values['cert-configmaps']),
      ...of('configmap', true, values['optional-cert-configmaps']),
      ...of('secret', false, values['cert-secrets']),
      ...of('secret', true, values['optional-cert-secrets']),
    ],
    ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
    timeoutMs: parseDuration(values['timeout-duration']!),
  };
}

/** The revision an installer pod installs, from its name `installer-N[-retry-K]-<node>`. */
export const installerPodRevision = (name: string): number | undefined => {
  const m = /^installer-(\d+)-/.exec(name);
  return m ? Number(m[1]) : undefined;
};

export type OtherInstallers = { readonly kind: 'newer'; readonly revision: number } | { readonly kind: 'running'; readonly names: string[] } | { readonly kind: 'settled' };

/** What the other installer pods on `nodeName` mean for revision `revision`: a newer one wins; an older one not finished is waited for. */
export function otherInstallers(pods: readonly V1Pod[], nodeName: string, revision: number): OtherInstallers {
  let newest = 0;
  const running: string[] = [];
  for (const p of pods) {
    if (p.spec?.nodeName !== nodeName) continue;
    const r = installerPodRevision(p.metadata?.name ?? '');
    if (r === undefined || r === revision) continue;
    if (r > revision) newest = Math.max(newest, r);
    else if (p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') running.push(p.metadata!.name!);
  }
  if (newest > 0) return { kind: 'newer', revision: newest };
  return running.length ? { kind: 'running', names: running.sort() } : { kind: 'settled' };
}

/** Where the node's root is on this host, from the container's `/etc/kubernetes/` mount. */
export async function nodeRootOf(rootfs: string | undefined): Promise<string> {
  const mounted = await realpath(containerPath('/etc/kubernetes', rootfs));
  const suffix = '/etc/kubernetes';
  if (!mounted.endsWith(suffix)) throw new Error(`installer: /etc/kubernetes is mounted from ${mounted}, not from a node's /etc/kubernetes`);
  return mounted.slice(0, -suffix.length) || '/';
}

export async function runInstaller(ctx: InstallerContext): Promise<void> {
  const args = parseInstallerArgs(ctx.args);
  const nodeName = ctx.env.NODE_NAME;
  if (!nodeName) throw new Error('installer: NODE_NAME is not set (the installer pod sets it from spec.nodeName)');
  const clock = ctx.clock ?? realClock;
  const waits = ctx.waits ?? defaultInstallerWaits;
  const kubeConfig = ctx.kubeConfig ?? loadKubeConfig({ kubeconfig: args.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const timer = clock.setTimeout(() => stop.abort(new Error(`installer: timed out after ${args.timeoutMs} ms`)), args.timeoutMs);
  const client = new ApiClient(kubeConfig, { userAgent: installerComponent });
  // Its own: a timeout or a stop must not drop the event saying why the install failed.
  const recorderStop = new AbortController();
  const events = createEventRecorder({ kubeConfig, component: installerComponent, host: nodeName, signal: recorderStop.signal });
  // The installer's own pod when the pod says who it is, else the namespace: where `kubectl get events -n` finds them.
  const subject: ObjectRefLike = ctx.env.POD_NAME
    ? { apiVersion: 'v1', kind: 'Pod', metadata: { name: ctx.env.POD_NAME, namespace: args.namespace } }
    : { apiVersion: 'v1', kind: 'Namespace', metadata: { name: args.namespace, namespace: args.namespace } };
  try {
    await waitForOtherInstallers(client, args, nodeName, waits, clock, stop.signal);
    const fetch = async (i: InstallerArgs['inputs'][number], name: string): Promise<InstallInput> => {
      try {
        const obj = await client.get<V1ConfigMap | V1Secret>(i.kind === 'configmap' ? resources.configMaps : resources.secrets, args.namespace, name, { signal: stop.signal });
        return { kind: i.kind, name: i.name, optional: i.optional, object: { ...(obj.data ? { data: obj.data } : {}), ...('binaryData' in obj && obj.binaryData ? { binaryData: obj.binaryData } : {}) } };
      } catch (err) {
        if (isNotFound(err)) return { kind: i.kind, name: i.name, optional: i.optional, object: undefined };
        throw err;
      }
    };
    const inputs = await Promise.all(args.inputs.map((i) => fetch(i, revisionedName(i.name, args.revision))));
    const certInputs = await Promise.all(args.certInputs.map((i) => fetch(i, i.name)));
    if (stop.signal.aborted) throw stop.signal.reason ?? new Error('installer: stopped');
    await installRevision({ root: await nodeRootOf(ctx.rootfs), revision: args.revision, nodeName, inputs, certInputs });
    events.event(subject, 'Normal', 'StaticPodInstallerCompleted', `Successfully installed revision ${args.revision}`);
  } catch (err) {
    events.event(subject, 'Warning', 'StaticPodInstallerFailed', installerFailedMessage(args.revision, err instanceof InstallError ? err : new Error(errorText(err))));
    throw err;
  } finally {
    timer();
    ctx.signal.removeEventListener('abort', onAbort);
    // Delivered before the process ends, but not waited for forever: the install's outcome is on the node already.
    const flushWait = new AbortController();
    await Promise.race([events.flush(), sleep(5_000, flushWait.signal)]);
    flushWait.abort();
    recorderStop.abort();
    stop.abort();
    client.close();
  }
}

async function waitForOtherInstallers(client: ApiClient, args: InstallerArgs, nodeName: string, waits: InstallerWaits, clock: Clock, signal: AbortSignal): Promise<void> {
  const deadline = clock.now() + waits.timeoutMs;
  let waited = false;
  for (;;) {
    if (signal.aborted) throw signal.reason ?? new Error('installer: stopped');
    const pods = await client.list<V1Pod>(resources.pods, args.namespace, { labelSelector: `${revisionLabels.app}=installer`, signal });
    const others = otherInstallers(pods.items, nodeName, args.revision);
    if (others.kind === 'newer') throw new InstallError(`more recent revision present on node: thisRevision=${args.revision}, moreRecentRevision=${others.revision}`);
    if (others.kind === 'settled') {
      if (!waited) return;
      // The older installer has just written its manifest: let the kubelet act on it before ours replaces it.
      waited = false;
      await sleep(waits.settleMs, signal, clock);
      continue;
    }
    if (clock.now() >= deadline) throw new InstallError(`timed out waiting for installer pods ${others.names.join(', ')} on node ${nodeName} to finish`);
    waited = true;
    await sleep(waits.pollMs, signal, clock);
  }
}
