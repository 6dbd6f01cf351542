/**
 * How a node of the datacenter gets its kubelet's credential (`/var/lib/kubelet/kubeconfig`,
 * `system:node:<name>` in `system:nodes`).
 *
 * A machine booted from the machine-config server holds the bootstrap kubeconfig the server
 * handed it (`/etc/kubernetes/kubeconfig`, a `node-bootstrapper` token that may only ask for a
 * certificate) and asks for its certificate with a CertificateSigningRequest, as an OpenShift
 * node does (node/kubelet/tls-bootstrap.ts): the machine approver and the controller-manager's
 * signer decide whether it joins. The machines `shipyard up` launches itself boot from the
 * Ignition it rendered, without one, and get their certificate issued directly from the cluster
 * CA: the installer is trusted, as openshift-install's bootstrap node is, and no approver runs
 * before the cluster it is installing exists.
 *
 * A bootstrap that fails (denied, failed, timed out, the API server out of reach) is logged
 * naming the node and the request, and tried again after 10 s, as systemd starts a kubelet
 * that exits again (`Restart=always`, `RestartSec=10` in kubelet.service).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ensureIdentityKubeconfig } from '../../apiserver/auth/identity-kubeconfig.ts';
import { bootstrapKubeconfigPath, ensureKubeletCredential, kubeletKubeconfigPath } from '../../node/kubelet/tls-bootstrap.ts';
import { sleep } from '../../runtime/clock.ts';

const RESTART_SEC_MS = 10_000;

/** Whether the node booted from the machine-config server (it holds the bootstrap kubeconfig the server serves). */
export function bootsFromConfigServer(nodeRoot: string): boolean {
  return existsSync(join(nodeRoot, bootstrapKubeconfigPath));
}

export interface KubeletCredentialOptions {
  readonly nodeName: string;
  readonly nodeRoot: string;
  /** The API server's URL, and `pki/` with the cluster CA, for the certificates the installer issues. */
  readonly apiUrl: string;
  readonly pkiDir: string;
  readonly logger: Logger;
  /** The node stopping: a bootstrap under way is abandoned. */
  readonly signal: AbortSignal;
  readonly restartDelayMs?: number;
}

/** The kubelet's kubeconfig on this host; rejects only when the signal aborts. */
export async function kubeletCredential(o: KubeletCredentialOptions): Promise<string> {
  if (!bootsFromConfigServer(o.nodeRoot)) {
    return ensureIdentityKubeconfig({ path: join(o.nodeRoot, kubeletKubeconfigPath), server: o.apiUrl, pkiDir: o.pkiDir, user: `system:node:${o.nodeName}`, groups: ['system:nodes'] });
  }
  for (;;) {
    try {
      return (await ensureKubeletCredential({ nodeName: o.nodeName, nodeRoot: o.nodeRoot, signal: o.signal, logger: o.logger })).kubeconfigPath;
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      o.logger.error({ node: o.nodeName, err: (err as Error).message }, `kubelet of node ${o.nodeName} could not get its client certificate; trying again in ${(o.restartDelayMs ?? RESTART_SEC_MS) / 1000} s`);
      await sleep(o.restartDelayMs ?? RESTART_SEC_MS, o.signal);
    }
  }
}
