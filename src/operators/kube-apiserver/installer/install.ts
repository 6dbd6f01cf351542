/**
 * What an installer pod does on its node (issue 17, item 5; library-go's static-pod installer
 * command): revision N's copies `<name>-N` become files under
 * `/etc/kubernetes/static-pod-resources/kube-apiserver-pod-N/{configmaps,secrets}/<name>/<key>`,
 * the unrevisioned cert inputs files under `…/kube-apiserver-certs/`, and the revision's pod
 * becomes the kubelet's manifest `/etc/kubernetes/manifests/kube-apiserver-pod.yaml`. Paths are
 * the node's, resolved inside its root (`noderoot/`), so an installer can never write outside it.
 *
 * The revision directory is written under a hidden staging name and renamed into place, so the
 * kubelet (or a server of that revision restarting) never reads half a revision; the manifest is
 * removed before it is written, so the kubelet sees the old pod go and the new one come rather
 * than an edit. Fetching the objects is the caller's: this module touches files only.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { kubeAPIServerRenderedConfigMaps, revisionedName } from '../../../api/operator/index.ts';
import { lstatOrUndefined, removeFile, resolveInRoot, writeFileAtomic } from '../../../noderoot/index.ts';

export const resourceDir = '/etc/kubernetes/static-pod-resources';
export const podManifestDir = '/etc/kubernetes/manifests';
export const certDirName = 'kube-apiserver-certs';
/** The pod ConfigMap's name, which is also the revision directory's prefix and the manifest's name. */
export const podResourceName = kubeAPIServerRenderedConfigMaps.pod;

export const revisionDir = (revision: number): string => `${resourceDir}/${podResourceName}-${revision}`;
export const manifestPath = (): string => `${podManifestDir}/${podResourceName}.yaml`;

/** A ConfigMap or Secret as fetched: Secret data base64, as the API returns it. */
export interface FetchedObject {
  readonly data?: Readonly<Record<string, string>>;
  readonly binaryData?: Readonly<Record<string, string>>;
}

export interface InstallInput {
  readonly kind: 'configmap' | 'secret';
  /** The input's name without the revision suffix. */
  readonly name: string;
  readonly optional?: boolean;
  /** `<name>-N` (for cert inputs, `<name>`) as fetched; undefined when it does not exist. */
  readonly object: FetchedObject | undefined;
}

export interface InstallOptions {
  /** The node's root directory on the host. */
  readonly root: string;
  readonly revision: number;
  readonly nodeName: string;
  /** Every input of the revision; the pod ConfigMap among them. */
  readonly inputs: readonly InstallInput[];
  /** Cert inputs, copied unrevisioned (overwritten in place). */
  readonly certInputs?: readonly InstallInput[];
}

export class InstallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallError';
  }
}

/** `NODE_ENVVAR_NAME`: the node name as an environment variable name may spell it. */
export const nodeEnvVarName = (nodeName: string): string => nodeName.replace(/[-.]/g, '_');

/** The template placeholders upstream's installer fills in: the revision and the node. */
export function substitute(content: string, revision: number, nodeName: string): string {
  // NODE_ENVVAR_NAME first: NODE_NAME is a substring of it.
  return content.replaceAll('REVISION', String(revision)).replaceAll('NODE_ENVVAR_NAME', nodeEnvVarName(nodeName)).replaceAll('NODE_NAME', nodeName);
}

const fileMode = (key: string): number => (key.endsWith('.sh') ? 0o700 : 0o600);

/**
 * The files of one input, relative to its directory, with their bytes: ConfigMap text filled
 * in (binaryData as is), Secret data decoded. Keys are one path segment in the API, but a key
 * is checked here too, since it becomes a file name.
 */
function filesOf(input: InstallInput, revision: number, nodeName: string): { key: string; bytes: Uint8Array | string }[] {
  const files: { key: string; bytes: Uint8Array | string }[] = [];
  const check = (key: string) => {
    if (key === '' || key === '.' || key === '..' || key.includes('/')) throw new InstallError(`${input.kind} ${input.name}: key ${JSON.stringify(key)} is not a file name`);
    return key;
  };
  for (const [key, value] of Object.entries(input.object?.data ?? {})) {
    files.push({ key: check(key), bytes: input.kind === 'secret' ? Buffer.from(value, 'base64') : substitute(value, revision, nodeName) });
  }
  for (const [key, value] of Object.entries(input.object?.binaryData ?? {})) files.push({ key: check(key), bytes: Buffer.from(value, 'base64') });
  return files;
}

async function writeInputs(hostDir: string, inputs: readonly InstallInput[], revision: number, nodeName: string, copyName: (name: string) => string): Promise<void> {
  for (const input of inputs) {
    if (!input.object) {
      if (input.optional) continue;
      throw new InstallError(`${input.kind === 'configmap' ? 'configmaps' : 'secrets'} "${copyName(input.name)}" not found`);
    }
    const dir = join(hostDir, input.kind === 'configmap' ? 'configmaps' : 'secrets', input.name);
    await mkdir(dir, { recursive: true, mode: 0o755 });
    for (const f of filesOf(input, revision, nodeName)) await writeFileAtomic(join(dir, f.key), f.bytes, fileMode(f.key));
  }
}

/** Installs revision N on the node; returns the manifest's path on the host. Throws InstallError (or an I/O error) and leaves the previous manifest alone. */
export async function installRevision(o: InstallOptions): Promise<string> {
  const pod = o.inputs.find((i) => i.kind === 'configmap' && i.name === podResourceName);
  const podYaml = pod?.object?.data?.['pod.yaml'];
  if (!pod?.object) throw new InstallError(`configmaps "${revisionedName(podResourceName, o.revision)}" not found`);
  if (podYaml === undefined) throw new InstallError("required 'pod.yaml' key does not exist in configmap");
  const manifest = substitute(podYaml, o.revision, o.nodeName);

  const finalDir = await resolveInRoot(o.root, revisionDir(o.revision));
  await mkdir(dirname(finalDir), { recursive: true, mode: 0o755 });
  const staging = join(dirname(finalDir), `.${podResourceName}-${o.revision}.shipyard-staging`);
  const previous = join(dirname(finalDir), `.${podResourceName}-${o.revision}.shipyard-previous`);
  await rm(staging, { recursive: true, force: true });
  await rm(previous, { recursive: true, force: true });
  try {
    await mkdir(staging, { mode: 0o755 });
    await writeInputs(staging, o.inputs, o.revision, o.nodeName, (name) => revisionedName(name, o.revision));
    await writeFileAtomic(join(staging, `${podResourceName}.yaml`), manifest, 0o600);
    // A reinstall of the same revision replaces the directory whole: moved aside, then removed.
    if (await lstatOrUndefined(finalDir)) await rename(finalDir, previous);
    await rename(staging, finalDir);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(previous, { recursive: true, force: true });
  }

  if (o.certInputs?.length) {
    const certDir = await resolveInRoot(o.root, `${resourceDir}/${certDirName}`);
    await writeInputs(certDir, o.certInputs, o.revision, o.nodeName, (name) => name);
  }

  const host = await resolveInRoot(o.root, manifestPath());
  await mkdir(dirname(host), { recursive: true, mode: 0o755 });
  await removeFile(host);
  await writeFileAtomic(host, manifest, 0o600);
  return host;
}

/** The installer's events in the operand namespace, upstream's wording. */
export const installerCompletedMessage = (revision: number): string => `Successfully installed revision ${revision}`;
export const installerFailedMessage = (revision: number, err: unknown): string => `Installing revision ${revision}: ${err instanceof Error ? err.message : String(err)}`;
