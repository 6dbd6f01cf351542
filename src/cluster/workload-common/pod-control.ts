/**
 * Creating and deleting a controller's pods, with the Events kube's pod control records on
 * the controller ("Created pod: web-7c9f4-x2k8q", "Error creating: …", "Deleted pod: …"), so
 * `kubectl describe rs` and `describe ds` tell the same story they tell on a real cluster.
 * Pods are named by `generateName` (`<owner>-` plus five random characters from the server).
 */
import type { V1ObjectMeta, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { ApiClient } from '../../runtime/client.ts';
import { isConflict, isNotFound } from '../../runtime/client.ts';
import type { EventSink } from '../../runtime/context.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources, type ResourceRef } from '../../runtime/resources.ts';
import { errorMessage } from './errors.ts';
import { controllerRef, subjectOf, type OwnerLike } from './owners.ts';
import type { Pod } from './pods.ts';

export interface PodControlOptions {
  readonly client: ApiClient;
  readonly recorder: EventSink;
}

/** The pod a controller would create from `template`, before any caller-specific changes. */
export function podFromTemplate(ownerResource: ResourceRef, owner: OwnerLike, template: DeepReadonly<V1PodTemplateSpec>): V1Pod {
  const t = structuredClone(template) as V1PodTemplateSpec;
  const metadata: V1ObjectMeta = {
    generateName: `${owner.metadata?.name ?? ''}-`,
    namespace: owner.metadata?.namespace,
    labels: t.metadata?.labels,
    annotations: t.metadata?.annotations,
    finalizers: t.metadata?.finalizers,
    ownerReferences: [controllerRef(ownerResource, owner)],
  };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: t.spec };
}

export class PodControl {
  private readonly client: ApiClient;
  private readonly recorder: EventSink;

  constructor(options: PodControlOptions) {
    this.client = options.client;
    this.recorder = options.recorder;
  }

  async create(ownerResource: ResourceRef, owner: OwnerLike, pod: V1Pod): Promise<V1Pod> {
    const subject = subjectOf(ownerResource, owner);
    try {
      if (!pod.metadata?.labels || Object.keys(pod.metadata.labels).length === 0) throw new Error('unable to create pods, no labels');
      const created = await this.client.create(resources.pods, pod, { namespace: owner.metadata?.namespace });
      this.recorder.event(subject, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
      return created;
    } catch (err) {
      this.recorder.event(subject, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      throw err;
    }
  }

  /**
   * Deletes by name with the pod's uid as a precondition, so a same-named successor is never
   * hit. Resolves false when the pod was already gone (or replaced): the caller's goal is met.
   */
  async delete(ownerResource: ResourceRef, owner: OwnerLike, pod: Pod): Promise<boolean> {
    const subject = subjectOf(ownerResource, owner);
    const name = pod.metadata?.name ?? '';
    try {
      await this.client.delete(resources.pods, pod.metadata?.namespace, name, { preconditions: { uid: pod.metadata?.uid } });
    } catch (err) {
      if (isNotFound(err) || isConflict(err)) return false;
      this.recorder.event(subject, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
      throw err;
    }
    this.recorder.event(subject, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    return true;
  }
}
