/**
 * Printers for the apps/v1 workloads: deployments (`READY 2/3`, UP-TO-DATE, AVAILABLE),
 * replicasets (DESIRED, CURRENT, READY) and daemonsets (DESIRED ... NODE SELECTOR), each
 * with the wide columns CONTAINERS, IMAGES and SELECTOR, as kube-apiserver prints them.
 */
import { formatLabelSelector, formatLabels, labelSelectorToString } from '../../api/label-selector.ts';
import { ageColumn, column, containerCells, containersColumn, imagesColumn, int, nameColumn, text, wide } from './columns.ts';
import { ageSince } from './human-duration.ts';
import type { PrintedObject, TableConvertor } from './types.ts';

const selectorColumn = wide('Selector', 'string', 'The label selector that picks the pods this object manages.');

/** `spec.replicas`, which defaulting sets to 1 when it is left out. */
const desired = (o: PrintedObject): number => (typeof o.spec?.replicas === 'number' ? int(o.spec.replicas) : 1);
const age = (o: PrintedObject, now: number): string => ageSince(o.metadata?.creationTimestamp, now);

export const deploymentTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Ready pods out of the desired number.'),
    column('Up-to-date', 'string', 'Pods that run the latest pod template.'),
    column('Available', 'string', 'Pods that have been ready for at least minReadySeconds.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(d, now) {
    const [names, images] = containerCells(d.spec?.template?.spec?.containers);
    const status = d.status ?? {};
    // Deployments print the bare selector string (empty when there is none), not `<none>`.
    return [text(d.metadata?.name), `${int(status.readyReplicas)}/${desired(d)}`, int(status.updatedReplicas), int(status.availableReplicas), age(d, now), names, images, labelSelectorToString(d.spec?.selector)];
  },
};

export const replicaSetTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'How many pods the replica set should run.'),
    column('Current', 'integer', 'How many pods the replica set runs.'),
    column('Ready', 'integer', 'How many of its pods are ready.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(rs, now) {
    const [names, images] = containerCells(rs.spec?.template?.spec?.containers);
    const status = rs.status ?? {};
    return [text(rs.metadata?.name), desired(rs), int(status.replicas), int(status.readyReplicas), age(rs, now), names, images, formatLabelSelector(rs.spec?.selector)];
  },
};

export const daemonSetTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'How many nodes should run the daemon pod.'),
    column('Current', 'integer', 'How many nodes run at least one daemon pod.'),
    column('Ready', 'integer', 'How many nodes have a ready daemon pod.'),
    column('Up-to-date', 'integer', 'How many nodes run the latest pod template.'),
    column('Available', 'integer', 'How many nodes have an available daemon pod.'),
    column('Node Selector', 'string', 'The node labels the pod template requires.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(ds, now) {
    const [names, images] = containerCells(ds.spec?.template?.spec?.containers);
    const s = ds.status ?? {};
    return [
      text(ds.metadata?.name),
      int(s.desiredNumberScheduled),
      int(s.currentNumberScheduled),
      int(s.numberReady),
      int(s.updatedNumberScheduled),
      int(s.numberAvailable),
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      age(ds, now),
      names,
      images,
      formatLabelSelector(ds.spec?.selector),
    ];
  },
};
