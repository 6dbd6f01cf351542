/**
 * `pods/eviction`: deletes a pod unless that would violate its PodDisruptionBudget, in which
 * case it answers 429 naming the budget, as kube-apiserver's eviction REST does. The budget's
 * `disruptionsAllowed` is decremented with a compare-and-swap write, so two concurrent
 * evictions cannot both spend the last allowed disruption. A dry run (`dryRun=All` in the query or
 * in the body's DeleteOptions, where `kubectl drain --dry-run=server` puts it) makes every check
 * and answers as the eviction would, but writes nothing: no DisruptionTarget condition, no
 * budget decrement, no deletion.
 */
import { matchLabelSelector } from '../../api/label-selector.ts';
import { isPodReady } from '../../api/pod-status.ts';
import { ApiError, errors, isConflict } from '../errors.ts';
import { readBody, decodeBody, mediaType } from '../http/body.ts';
import { writeBody } from '../http/respond.ts';
import type { KubeObject } from '../registry/resource.ts';
import { nowTimestamp } from '../registry/store.ts';
import { dryRunInBody, parseDryRun, type RequestScope, type ServerContext } from './context.ts';

const maxDisruptedPods = 2000;

/**
 * kube-apiserver puts the budget's name only in `details.causes`, which `kubectl drain` never
 * prints, so an administrator sees "would violate the pod's disruption budget" without being
 * told which one. The cause is appended to the message as well; the structured cause stays.
 */
function tooMany(message: string, cause?: string, retryAfterSeconds?: number): ApiError {
  return errors.tooManyRequests(cause ? `${message} ${cause}.` : message, { causes: cause ? [{ reason: 'DisruptionBudget', message: cause }] : undefined, retryAfterSeconds });
}

/**
 * The dry run of an eviction, from the query (CreateOptions) and the body's DeleteOptions, as
 * kube's propagateDryRun merges them: either may ask, and when both do they must agree.
 */
function evictionDryRun(query: readonly string[], deleteOptions: KubeObject): boolean {
  const inBody = dryRunInBody(deleteOptions);
  const fromQuery = parseDryRun(query, 'CreateOptions');
  const fromBody = parseDryRun(inBody, 'DeleteOptions');
  if (query.length && inBody.length && (query.length !== inBody.length || query.some((v, i) => v !== inBody[i]))) {
    throw errors.badRequest(`Non-matching dry-run options in request and content: [${query.join(' ')}] and [${inBody.join(' ')}]`);
  }
  return fromQuery || fromBody;
}

export async function handleEviction(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info } = scope;
  const name = info.name!;
  const ns = info.namespace!;
  const raw = await readBody(scope.req);
  const body = (raw.length ? decodeBody(raw, mediaType(scope.req.headers['content-type']) || 'application/json') : {}) as KubeObject;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the body must be an Eviction object');
  if (body.kind !== undefined && body.kind !== 'Eviction') throw errors.badRequest(`kind: Invalid value: ${JSON.stringify(body.kind)}: expected Eviction`);
  if (body.apiVersion !== undefined && !['policy/v1', 'policy/v1beta1'].includes(body.apiVersion)) {
    throw errors.badRequest(`apiVersion: Invalid value: ${JSON.stringify(body.apiVersion)}: expected policy/v1 or policy/v1beta1`);
  }
  if (body.metadata?.name && body.metadata.name !== name) throw errors.badRequest(`name in URL does not match name in Eviction object`, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: 'does not match the name in the URL' }]);
  const deleteOptions = (body.deleteOptions ?? {}) as KubeObject;
  const dryRun = evictionDryRun(scope.url.searchParams.getAll('dryRun'), deleteOptions);
  const wctx = { manager: 'eviction', dryRun };
  const pod = await ctx.store.get(def, ns, name);
  const phase = pod.status?.phase;
  const done = () => writeBody(scope.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const markDisruptionTarget = async () => {
    await ctx.store
      .guaranteedUpdate(def, ns, name, { ...wctx, subresource: 'status' }, (p) => {
        const conditions = (p.status?.conditions ?? []).filter((c: KubeObject) => c.type !== 'DisruptionTarget');
        conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: nowTimestamp() });
        p.status = { ...(p.status ?? {}), conditions };
        delete p.metadata.resourceVersion;
        return p;
      })
      .catch(() => undefined);
  };
  const evict = async () => {
    if (!dryRun) await markDisruptionTarget();
    await ctx.store.delete(def, ns, name, { gracePeriodSeconds: deleteOptions.gracePeriodSeconds, preconditions: deleteOptions.preconditions }, wctx);
  };
  if (pod.metadata.deletionTimestamp || phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed' || !phase) {
    await ctx.store.delete(def, ns, name, { gracePeriodSeconds: deleteOptions.gracePeriodSeconds }, wctx);
    return done();
  }
  const pdbDef = ctx.registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;
  const pdbs = (await ctx.store.list(pdbDef, ns)).items.filter((b) => b.spec?.selector && matchLabelSelector(b.spec.selector, pod.metadata.labels ?? {}));
  if (pdbs.length === 0) {
    await evict();
    return done();
  }
  if (pdbs.length > 1) throw errors.internal('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const pdbName = pdbs[0]!.metadata.name as string;
  // Unready pods do not count against a budget that is already met (IfHealthyBudget) or when AlwaysAllow is set.
  const ready = isPodReady(pod);
  for (let attempt = 0; ; attempt++) {
    const pdb = await ctx.store.get(pdbDef, ns, pdbName);
    const st = pdb.status ?? {};
    if (!ready) {
      const policy = pdb.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
      if (policy === 'AlwaysAllow' || (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0)) {
        await evict();
        return done();
      }
    }
    if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) {
      throw tooMany('Cannot evict pod as it would violate the pod\'s disruption budget.', `The disruption budget ${pdbName} is still being processed by the server.`, 10);
    }
    if ((st.disruptionsAllowed ?? 0) < 0) throw errors.forbidden(def, name, 'pod disruption budget ' + pdbName + ' is misconfigured and needs to be fixed');
    if (Object.keys(st.disruptedPods ?? {}).length > maxDisruptedPods) throw errors.forbidden(def, name, `DisruptedPods map too big - too many evictions not confirmed by PDB controller`);
    if ((st.disruptionsAllowed ?? 0) === 0) {
      throw tooMany('Cannot evict pod as it would violate the pod\'s disruption budget.', `The disruption budget ${pdbName} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`);
    }
    // As kube's checkAndDecrement: a dry run stops once the budget is known to allow it.
    if (dryRun) break;
    const next = structuredClone(pdb);
    next.status = { ...st, disruptionsAllowed: st.disruptionsAllowed - 1, disruptedPods: { ...(st.disruptedPods ?? {}), [name]: nowTimestamp() } };
    try {
      await ctx.store.update(pdbDef, ns, pdbName, next, { manager: 'eviction', subresource: 'status' });
      break;
    } catch (e) {
      if (isConflict(e) && attempt < 20) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      throw e;
    }
  }
  await evict();
  done();
}
