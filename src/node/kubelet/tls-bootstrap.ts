/**
 * The kubelet's TLS bootstrap, as kube's kubelet does it with `--bootstrap-kubeconfig`: when
 * its own kubeconfig (`/var/lib/kubelet/kubeconfig`) is missing, unreadable or holds an expired
 * certificate, and the bootstrap kubeconfig (`/etc/kubernetes/kubeconfig`, which the
 * machine-config server hands a joining machine, carrying a token of the `node-bootstrapper`
 * ServiceAccount) is there, the kubelet makes an EC P-256 key, asks for a client certificate
 * for `system:node:<name>` in `system:nodes` with a CertificateSigningRequest to signer
 * `kubernetes.io/kube-apiserver-client-kubelet`, waits (watching) until it is issued, and writes
 * its kubeconfig with that certificate and key. The approver and the signer decide; the
 * bootstrap credential can do nothing but ask, so a leaked one cannot act as a node.
 *
 * The wait ends with the certificate, with an error when the request is denied, fails or is
 * deleted, after `waitTimeoutMs` (kube's kubelet gives up after an hour; systemd then starts
 * it again), or when the signal aborts (the node stopping).
 */
import { X509Certificate, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { hasFailed, isDenied, signerNames, type CertificateSigningRequest } from '../../api/certificates.ts';
import { createCertificateRequest, splitPemBundle } from '../../api/x509.ts';
import { ApiClient, isNotFound } from '../../runtime/client.ts';
import { realClock, type Clock } from '../../runtime/clock.ts';
import { ClientConfig } from '../../runtime/kubeconfig.ts';
import { collectionPath, resources } from '../../runtime/resources.ts';
import { WatchClient } from '../../runtime/watch.ts';
import { writeFileAtomic } from '../../api/files.ts';

/** The kubelet's own credential (`--kubeconfig`), a node path. */
export const kubeletKubeconfigPath = '/var/lib/kubelet/kubeconfig';
/** The credential it bootstraps from (`--bootstrap-kubeconfig`), a node path. */
export const bootstrapKubeconfigPath = '/etc/kubernetes/kubeconfig';

/** Kube's kubelet waits an hour for its certificate before it exits (and systemd starts it again). */
const DEFAULT_WAIT_MS = 3600_000;

export type CredentialState =
  | { readonly kind: 'valid'; readonly notAfter: string }
  /** Ask for a certificate with the bootstrap kubeconfig, for this reason. */
  | { readonly kind: 'bootstrap'; readonly reason: string }
  /** Neither a usable credential nor a bootstrap kubeconfig. */
  | { readonly kind: 'none'; readonly reason: string };

export interface CredentialFacts {
  /** The kubeconfig's client certificate chain (PEM), `null` when the kubeconfig has none or cannot be read, undefined when there is no kubeconfig. */
  readonly certPem: string | null | undefined;
  readonly bootstrapAvailable: boolean;
  readonly nowMs: number;
}

/**
 * Whether the kubelet's credential will do, as kube's `isClientConfigStillValid` decides: a
 * kubeconfig whose client certificates all parse and none of which has expired.
 */
export function credentialState(f: CredentialFacts): CredentialState {
  let why: string;
  if (f.certPem === undefined) why = `${kubeletKubeconfigPath} does not exist`;
  else if (f.certPem === null) why = `${kubeletKubeconfigPath} holds no client certificate`;
  else {
    const certs = splitPemBundle(f.certPem);
    let parsed: X509Certificate[] = [];
    try {
      parsed = certs.map((pem) => new X509Certificate(pem));
    } catch {
      parsed = [];
    }
    const expired = parsed.find((c) => Date.parse(c.validTo) <= f.nowMs);
    if (parsed.length === 0) why = `${kubeletKubeconfigPath} holds no readable client certificate`;
    else if (expired) why = `the client certificate in ${kubeletKubeconfigPath} expired at ${new Date(Date.parse(expired.validTo)).toISOString()}`;
    else return { kind: 'valid', notAfter: new Date(Math.min(...parsed.map((c) => Date.parse(c.validTo)))).toISOString() };
  }
  return f.bootstrapAvailable ? { kind: 'bootstrap', reason: why } : { kind: 'none', reason: `${why}, and there is no ${bootstrapKubeconfigPath} to bootstrap from` };
}

export class TlsBootstrapError extends Error {}

/**
 * A kubeconfig of the node root as the node reads it: file paths in it (absolute, or relative
 * to the file) are node paths, so they are taken inside the root.
 */
export function readNodeKubeconfig(root: string, nodePath: string): ClientConfig {
  const loaded = new ClientConfig();
  loaded.loadFromString(readFileSync(join(root, nodePath), 'utf8'), posix.dirname(nodePath));
  const inRoot = (p: string | undefined): string | undefined => (p === undefined ? undefined : join(root, p));
  const config = new ClientConfig();
  config.loadFromOptions({
    clusters: loaded.clusters.map((c) => ({ ...c, caFile: inRoot(c.caFile) })),
    users: loaded.users.map((u) => ({ ...u, certFile: inRoot(u.certFile), keyFile: inRoot(u.keyFile), tokenFile: inRoot(u.tokenFile) })),
    contexts: loaded.contexts,
    currentContext: loaded.currentContext,
  });
  return config;
}

/** The client certificate chain the kubelet's kubeconfig holds (see CredentialFacts.certPem). */
function currentCertificate(root: string): string | null | undefined {
  if (!existsSync(join(root, kubeletKubeconfigPath))) return undefined;
  try {
    const user = readNodeKubeconfig(root, kubeletKubeconfigPath).getCurrentUser();
    if (user?.certData) return Buffer.from(user.certData, 'base64').toString('utf8');
    if (user?.certFile) return readFileSync(user.certFile, 'utf8');
    return null;
  } catch {
    return null;
  }
}

export interface TlsBootstrapOptions {
  readonly nodeName: string;
  /** The node's filesystem root (`nodes/<name>/root`). */
  readonly nodeRoot: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Wall time tells an expired certificate. */
  readonly clock?: Clock;
  readonly waitTimeoutMs?: number;
}

export interface TlsBootstrapResult {
  /** The kubelet's kubeconfig on this host. */
  readonly kubeconfigPath: string;
  /** The CertificateSigningRequest it was issued through; absent when the existing one would do. */
  readonly requestName?: string;
}

/**
 * Makes sure the kubelet of `nodeName` has a credential of its own, bootstrapping one when
 * needed (see the module header). Throws `TlsBootstrapError` saying why when it cannot.
 */
export async function ensureKubeletCredential(o: TlsBootstrapOptions): Promise<TlsBootstrapResult> {
  const clock = o.clock ?? realClock;
  const kubeconfigPath = join(o.nodeRoot, kubeletKubeconfigPath);
  const state = credentialState({ certPem: currentCertificate(o.nodeRoot), bootstrapAvailable: existsSync(join(o.nodeRoot, bootstrapKubeconfigPath)), nowMs: clock.wallNow() });
  if (state.kind === 'valid') return { kubeconfigPath };
  if (state.kind === 'none') throw new TlsBootstrapError(`node ${o.nodeName} has no credential: ${state.reason}`);
  o.logger.info({ node: o.nodeName, reason: state.reason }, 'kubelet TLS bootstrap: asking for a client certificate with the bootstrap kubeconfig');

  const bootstrap = readNodeKubeconfig(o.nodeRoot, bootstrapKubeconfigPath);
  const cluster = bootstrap.getCurrentCluster();
  if (!cluster?.server) throw new TlsBootstrapError(`${bootstrapKubeconfigPath} of node ${o.nodeName} names no server`);
  const caData = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined);
  const client = new ApiClient(bootstrap, { userAgent: `kubelet/${o.nodeName} (bootstrap)`, maxSockets: 2 });
  try {
    const { csrPem, keyPem } = await createCertificateRequest(`CN=system:node:${o.nodeName}, O=system:nodes`);
    const request: CertificateSigningRequest = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { generateName: 'csr-' },
      spec: {
        request: Buffer.from(csrPem).toString('base64'),
        signerName: signerNames.kubeAPIServerClientKubelet,
        // An EC key signs; only an RSA key would also need key encipherment (kube's kubelet asks the same).
        usages: ['digital signature', 'client auth'],
      },
    };
    // api/certificates.ts types its own metadata (string timestamps); the client's generics want client-node's.
    const created = (await client.create(resources.certificateSigningRequests, request as KubernetesObject)) as unknown as CertificateSigningRequest;
    const name = created.metadata?.name ?? '';
    o.logger.info({ node: o.nodeName, csr: name }, 'kubelet TLS bootstrap: waiting for the certificate signing request to be approved and signed');
    const certPem = await waitForCertificate({ client, bootstrap, name, uid: created.metadata?.uid, signal: o.signal, timeoutMs: o.waitTimeoutMs ?? DEFAULT_WAIT_MS, clock });
    const issued = new X509Certificate(splitPemBundle(certPem)[0] ?? certPem);
    const ours = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
    if (!issued.publicKey.export({ type: 'spki', format: 'der' }).equals(ours)) {
      throw new TlsBootstrapError(`the certificate issued for certificate signing request ${name} is not for the key node ${o.nodeName} asked with`);
    }
    writeKubeletKubeconfig(kubeconfigPath, { server: cluster.server, caData, certPem, keyPem, tlsServerName: cluster.tlsServerName });
    o.logger.info({ node: o.nodeName, csr: name, subject: issued.subject.replace(/\n/g, ', '), notAfter: issued.validTo }, 'kubelet TLS bootstrap: client certificate issued');
    return { kubeconfigPath, requestName: name };
  } catch (err) {
    if (o.signal.aborted) throw o.signal.reason ?? err;
    if (err instanceof TlsBootstrapError) throw err;
    throw new TlsBootstrapError(`kubelet TLS bootstrap of node ${o.nodeName} failed: ${(err as Error).message}`);
  } finally {
    client.close();
  }
}

/** The certificate once issued (PEM); a TlsBootstrapError, worded as kube's, when the request is denied or failed. */
export function outcome(csr: CertificateSigningRequest, name: string): string | undefined {
  for (const [type, word] of [['Denied', 'denied'], ['Failed', 'failed']] as const) {
    if (!(type === 'Denied' ? isDenied(csr) : hasFailed(csr))) continue;
    const c = csr.status?.conditions?.find((x) => x.type === type);
    throw new TlsBootstrapError(`certificate signing request ${name} is ${word}, reason: ${c?.reason ?? ''}, message: ${c?.message ?? ''}`);
  }
  const cert = csr.status?.certificate;
  return cert ? Buffer.from(cert, 'base64').toString('utf8') : undefined;
}

interface WaitInput {
  readonly client: ApiClient;
  readonly bootstrap: ClientConfig;
  readonly name: string;
  readonly uid: string | undefined;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly clock: Clock;
}

/** Reads the request, then watches it from there; a watch that ends is started again from a fresh read. */
async function waitForCertificate(w: WaitInput): Promise<string> {
  const deadline = w.clock.now() + w.timeoutMs;
  const watcher = new WatchClient(w.bootstrap);
  const timedOut = (): TlsBootstrapError => new TlsBootstrapError(`timed out after ${Math.round(w.timeoutMs / 1000)} s waiting for certificate signing request ${w.name} to be approved and signed`);
  for (;;) {
    if (w.signal.aborted) throw w.signal.reason;
    if (w.clock.now() >= deadline) throw timedOut();
    let current: CertificateSigningRequest;
    try {
      current = (await w.client.get(resources.certificateSigningRequests, undefined, w.name, { signal: w.signal })) as unknown as CertificateSigningRequest;
    } catch (err) {
      if (isNotFound(err)) throw new TlsBootstrapError(`certificate signing request ${w.name} was deleted before it was signed`);
      throw err;
    }
    if (w.uid && current.metadata?.uid !== w.uid) throw new TlsBootstrapError(`certificate signing request ${w.name} was replaced by another of the same name`);
    const now = outcome(current, w.name);
    if (now !== undefined) return now;
    const found = await new Promise<string | undefined>((resolve, reject) => {
      let controller: AbortController | undefined;
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        cancelTimer();
        w.signal.removeEventListener('abort', onAbort);
        controller?.abort();
        fn();
      };
      const onAbort = (): void => settle(() => reject(w.signal.reason));
      const cancelTimer = w.clock.setTimeout(() => settle(() => reject(timedOut())), deadline - w.clock.now());
      w.signal.addEventListener('abort', onAbort, { once: true });
      watcher
        .watch(
          collectionPath(resources.certificateSigningRequests),
          { fieldSelector: `metadata.name=${w.name}`, resourceVersion: current.metadata?.resourceVersion },
          (type, obj) => {
            const csr = obj as CertificateSigningRequest;
            if (csr?.metadata?.name !== w.name) return;
            if (type === 'DELETED') return settle(() => reject(new TlsBootstrapError(`certificate signing request ${w.name} was deleted before it was signed`)));
            try {
              const cert = outcome(csr, w.name);
              if (cert !== undefined) settle(() => resolve(cert));
            } catch (err) {
              settle(() => reject(err));
            }
          },
          // The stream ended or broke: read again and watch again (an error is not the request's fault).
          () => settle(() => resolve(undefined)),
        )
        .then(
          (c) => {
            controller = c;
            if (settled) c.abort();
          },
          () => settle(() => resolve(undefined)),
        );
    });
    if (found !== undefined) return found;
  }
}

/** The kubelet's kubeconfig, written whole (0600, in a directory only root may enter) or not at all. */
function writeKubeletKubeconfig(path: string, k: { server: string; caData?: string; certPem: string; keyPem: string; tlsServerName?: string }): void {
  const text = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: { server: k.server, ...(k.caData ? { 'certificate-authority-data': k.caData } : {}), ...(k.tlsServerName ? { 'tls-server-name': k.tlsServerName } : {}) } }],
    users: [{ name: 'default-auth', user: { 'client-certificate-data': Buffer.from(k.certPem).toString('base64'), 'client-key-data': Buffer.from(k.keyPem).toString('base64') } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' } }],
    'current-context': 'default-context',
  });
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, text, 0o600);
}
