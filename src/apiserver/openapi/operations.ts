/**
 * The REST operations of one resource, described once and rendered by both the v3 and the v2
 * document builders: the collection (list, create, deletecollection), the all-namespaces list
 * of a namespaced resource, the item (get, replace, patch, delete) and the `status` and
 * `scale` subresources, each with kube's `x-kubernetes-action`, its group-version-kind, query
 * parameters, request body and response schemas.
 */
import { pkg } from '../../api/builtin/model-names.ts';
import { names } from '../../api/builtin/special-types.ts';
import { operationPrefix, operationTag, type OpenApiResource, type PatchMediaType } from './resources.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

export interface QueryParam {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'boolean';
  readonly description: string;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface OperationSpec {
  readonly path: string;
  readonly method: HttpMethod;
  readonly action: Action;
  readonly operationId: string;
  readonly description: string;
  readonly tag: string;
  readonly gvk: GroupVersionKind;
  /** Path parameters, in path order. */
  readonly pathParams: ReadonlyArray<'namespace' | 'name'>;
  readonly query: readonly QueryParam[];
  readonly body?: { readonly component: string; readonly mediaTypes: readonly string[] };
  /** Response code → component name of the body. */
  readonly responses: Readonly<Record<string, string>>;
}

const q = (name: string, type: QueryParam['type'], description: string): QueryParam => ({ name, type, description });

export const queryParams = {
  pretty: q('pretty', 'string', "If 'true', the output is pretty printed."),
  dryRun: q('dryRun', 'string', 'When present (All), the request is validated and processed but nothing is stored.'),
  fieldManager: q('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields.'),
  fieldValidation: q('fieldValidation', 'string', 'What to do with unknown or duplicate fields: Ignore (drop them), Warn (drop them and send a warning) or Strict (fail the request).'),
  force: q('force', 'boolean', 'Force an apply request, taking ownership of fields other managers own. Only for apply patches.'),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'Ask a watch for BOOKMARK events carrying the current resourceVersion.'),
  continue: q('continue', 'string', 'The continue token of the previous page of a limited list.'),
  fieldSelector: q('fieldSelector', 'string', 'Restrict the objects by their fields, e.g. metadata.name=web.'),
  labelSelector: q('labelSelector', 'string', 'Restrict the objects by their labels, e.g. app=web,tier!=db.'),
  limit: q('limit', 'integer', 'The most objects to return; follow metadata.continue for more.'),
  resourceVersion: q('resourceVersion', 'string', 'Which version of the collection to read or watch from.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: NotOlderThan or Exact.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'Start a watch with the current objects, then a bookmark.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'End a list or watch after this many seconds.'),
  watch: q('watch', 'boolean', 'Watch for changes instead of listing.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes at once.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.'),
  propagationPolicy: q('propagationPolicy', 'string', 'What happens to dependents: Orphan, Background or Foreground.'),
} as const;

const p = queryParams;
const listQuery = [p.allowWatchBookmarks, p.continue, p.fieldSelector, p.labelSelector, p.limit, p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds, p.watch];
const writeQuery = [p.dryRun, p.fieldManager, p.fieldValidation];
const patchQuery = [...writeQuery, p.force];
const deleteQuery = [p.dryRun, p.gracePeriodSeconds, p.orphanDependents, p.propagationPolicy];

export interface ResourceComponents {
  /** Component name of the kind. */
  readonly kind: string;
  /** Component name of the List kind. */
  readonly list: string;
}

const scaleGvk: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
export const scaleComponent = `${pkg.autoscaling}.Scale`;

export function resourceOperations(r: OpenApiResource, components: ResourceComponents): OperationSpec[] {
  const gv = { group: r.group, version: r.version };
  const prefix = operationPrefix(gv);
  const tag = operationTag(gv);
  const root = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const gvk: GroupVersionKind = { group: r.group, version: r.version, kind: r.kind };
  const scope = r.namespaced ? 'Namespaced' : '';
  const collection = r.namespaced ? `${root}/namespaces/{namespace}/${r.resource}` : `${root}/${r.resource}`;
  const collectionParams: OperationSpec['pathParams'] = r.namespaced ? ['namespace'] : [];
  const item = `${collection}/{name}`;
  const itemParams: OperationSpec['pathParams'] = [...collectionParams, 'name'];
  const patchBody = (mediaTypes: readonly PatchMediaType[]) => ({ component: names.patch, mediaTypes });
  const ops: OperationSpec[] = [];
  const op = (o: Omit<OperationSpec, 'tag'>) => ops.push({ ...o, tag });

  op({ path: collection, method: 'get', action: 'list', operationId: `list${prefix}${scope}${r.kind}`, description: `list or watch objects of kind ${r.kind}`, gvk, pathParams: collectionParams, query: listQuery, responses: { '200': components.list } });
  op({ path: collection, method: 'post', action: 'post', operationId: `create${prefix}${scope}${r.kind}`, description: `create a ${r.kind}`, gvk, pathParams: collectionParams, query: writeQuery, body: { component: components.kind, mediaTypes: ['*/*'] }, responses: { '200': components.kind, '201': components.kind, '202': components.kind } });
  op({ path: collection, method: 'delete', action: 'deletecollection', operationId: `delete${prefix}Collection${scope}${r.kind}`, description: `delete collection of ${r.kind}`, gvk, pathParams: collectionParams, query: [...listQuery, ...deleteQuery], body: { component: names.deleteOptions, mediaTypes: ['*/*'] }, responses: { '200': names.status } });
  if (r.namespaced) {
    op({ path: `${root}/${r.resource}`, method: 'get', action: 'list', operationId: `list${prefix}${r.kind}ForAllNamespaces`, description: `list or watch objects of kind ${r.kind} in every namespace`, gvk, pathParams: [], query: listQuery, responses: { '200': components.list } });
  }
  op({ path: item, method: 'get', action: 'get', operationId: `read${prefix}${scope}${r.kind}`, description: `read the specified ${r.kind}`, gvk, pathParams: itemParams, query: [], responses: { '200': components.kind } });
  op({ path: item, method: 'put', action: 'put', operationId: `replace${prefix}${scope}${r.kind}`, description: `replace the specified ${r.kind}`, gvk, pathParams: itemParams, query: writeQuery, body: { component: components.kind, mediaTypes: ['*/*'] }, responses: { '200': components.kind, '201': components.kind } });
  op({ path: item, method: 'patch', action: 'patch', operationId: `patch${prefix}${scope}${r.kind}`, description: `partially update the specified ${r.kind}`, gvk, pathParams: itemParams, query: patchQuery, body: patchBody(r.patchTypes), responses: { '200': components.kind, '201': components.kind } });
  op({ path: item, method: 'delete', action: 'delete', operationId: `delete${prefix}${scope}${r.kind}`, description: `delete a ${r.kind}`, gvk, pathParams: itemParams, query: deleteQuery, body: { component: names.deleteOptions, mediaTypes: ['*/*'] }, responses: { '200': components.kind, '202': components.kind } });

  const sub = (name: 'status' | 'scale' | 'approval', subGvk: GroupVersionKind, component: string) => {
    const Name = name[0]!.toUpperCase() + name.slice(1);
    const path = `${item}/${name}`;
    op({ path, method: 'get', action: 'get', operationId: `read${prefix}${scope}${r.kind}${Name}`, description: `read ${name} of the specified ${r.kind}`, gvk: subGvk, pathParams: itemParams, query: [], responses: { '200': component } });
    op({ path, method: 'put', action: 'put', operationId: `replace${prefix}${scope}${r.kind}${Name}`, description: `replace ${name} of the specified ${r.kind}`, gvk: subGvk, pathParams: itemParams, query: writeQuery, body: { component, mediaTypes: ['*/*'] }, responses: { '200': component, '201': component } });
    op({ path, method: 'patch', action: 'patch', operationId: `patch${prefix}${scope}${r.kind}${Name}`, description: `partially update ${name} of the specified ${r.kind}`, gvk: subGvk, pathParams: itemParams, query: patchQuery, body: patchBody(r.patchTypes), responses: { '200': component, '201': component } });
  };
  if (r.subresources?.status) sub('status', gvk, components.kind);
  if (r.subresources?.scale) sub('scale', scaleGvk, scaleComponent);
  if (r.subresources?.approval) sub('approval', gvk, components.kind);
  return ops;
}
