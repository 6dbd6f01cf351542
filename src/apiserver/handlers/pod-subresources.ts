/** `pods/binding` (what a scheduler posts) and `pods/log` (served from the node's log files). */
import { errors } from '../errors.ts';
import { decodeBody, mediaType, readBody } from '../http/body.ts';
import { writeBody } from '../http/respond.ts';
import type { KubeObject } from '../registry/resource.ts';
import { nowTimestamp } from '../registry/store.ts';
import { writeContext, type RequestScope, type ServerContext } from './context.ts';

export async function handleBinding(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info } = scope;
  const raw = await readBody(scope.req);
  const body = decodeBody(raw, mediaType(scope.req.headers['content-type']) || 'application/json') as KubeObject;
  const target = body?.target?.name;
  if (typeof target !== 'string' || !target) {
    throw errors.invalid('Binding', '', info.name!, [{ type: 'FieldValueRequired', field: 'target.name', message: 'target.name: Required value' }]);
  }
  const { dryRun } = writeContext(scope);
  await ctx.store.guaranteedUpdate(def, info.namespace, info.name!, { manager: 'binding', subresource: 'binding', dryRun }, (pod) => {
    if (pod.metadata.deletionTimestamp) throw errors.conflict(def, info.name!, 'pod is being deleted, cannot be assigned to a host');
    if (pod.spec?.nodeName) throw errors.conflict(def, info.name!, `pod ${info.name} is already assigned to node "${pod.spec.nodeName}"`);
    pod.spec.nodeName = target;
    const conditions = (pod.status?.conditions ?? []).filter((c: KubeObject) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp() });
    pod.status = { ...(pod.status ?? {}), conditions };
    delete pod.metadata.resourceVersion;
    return pod;
  });
  writeBody(scope.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

export async function handleLog(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info, url, res } = scope;
  const pod = await ctx.store.get(def, info.namespace, info.name!);
  const containers: KubeObject[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  let container = url.searchParams.get('container') ?? undefined;
  if (!container) {
    if ((pod.spec?.containers ?? []).length !== 1) {
      const names = (pod.spec?.containers ?? []).map((c: KubeObject) => c.name).join(' ');
      throw errors.badRequest(`a container name must be specified for pod ${info.name}, choose one of: [${names}]`);
    }
    container = pod.spec.containers[0].name as string;
  }
  if (!containers.some((c) => c.name === container)) throw errors.badRequest(`container ${container} is not valid for pod ${info.name}`);
  if (!pod.spec?.nodeName) throw errors.badRequest(`pod ${info.name} does not have a host assigned`);
  const tail = url.searchParams.get('tailLines');
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const stream = await ctx.logs?.open(pod, container, {
    previous: url.searchParams.get('previous') === 'true',
    follow: url.searchParams.get('follow') === 'true',
    timestamps: url.searchParams.get('timestamps') === 'true',
    tailLines: tail !== null && /^\d+$/.test(tail) ? Number(tail) : undefined,
    signal: controller.signal,
  });
  if (!stream) throw errors.badRequest(`container "${container}" in pod "${info.name}" is waiting to start: no logs are available on node ${pod.spec.nodeName}`);
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  for await (const chunk of stream) {
    if (controller.signal.aborted) break;
    if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
  }
  res.end();
}

export async function handleFinalize(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info } = scope;
  const raw = await readBody(scope.req);
  const body = decodeBody(raw, mediaType(scope.req.headers['content-type']) || 'application/json') as KubeObject;
  const finalizers = body?.spec?.finalizers ?? [];
  if (!Array.isArray(finalizers)) throw errors.badRequest('spec.finalizers: Invalid value: must be a list');
  const { dryRun } = writeContext(scope);
  const { object } = await ctx.store.guaranteedUpdate(def, undefined, info.name!, { manager: 'namespace-finalize', subresource: 'finalize', dryRun }, (ns) => {
    ns.spec = { ...(ns.spec ?? {}), finalizers };
    if (body?.metadata?.resourceVersion) ns.metadata.resourceVersion = body.metadata.resourceVersion;
    else delete ns.metadata.resourceVersion;
    return ns;
  });
  writeBody(scope.res, 200, object);
}
