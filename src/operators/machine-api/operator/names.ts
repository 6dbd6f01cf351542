/**
 * The names the Machine API operator and what it deploys agree on, OpenShift's own, so `oc`-style
 * commands, runbooks and the seed's component swap read the same here: the ClusterOperator, the
 * operator's Lease and Deployment, the images ConfigMap of the payload, and the controllers'
 * Deployment and ServiceAccount.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';

export const MAO_NAMESPACE = machineAPINamespace;
/** The ClusterOperator, as `oc get co` lists it. */
export const CLUSTER_OPERATOR = 'machine-api';
/** The operator's Deployment, its ServiceAccount, its leader Lease (OpenShift's lock name) and its component name. */
export const OPERATOR = 'machine-api-operator';
/** The payload's ConfigMap holding `images.json`, mounted into the operator's pod. */
export const IMAGES_CONFIGMAP = 'machine-api-operator-images';
/** Where the payload's Deployment mounts it (OpenShift's path); `--images-json` defaults to it. */
export const DEFAULT_IMAGES_JSON = '/etc/machine-api-operator-config/images/images.json';

/** The one Deployment running the four controllers, and the ServiceAccount they run as. */
export const CONTROLLERS = 'machine-api-controllers';
/**
 * Marks what the operator deploys (OpenShift's `maoOwnedAnnotation`): an update or delete of a
 * Deployment without it is none of the operator's business.
 */
export const OWNED_ANNOTATION = 'machine.openshift.io/owned';

/**
 * The controllers' containers, as OpenShift names them, and the program each runs: one of the
 * MAO image's (its first argument; see ../component.ts), or the provider image's.
 */
export const containers = {
  machineSet: { name: 'machineset-controller', command: '/machineset-controller' },
  machine: { name: 'machine-controller', command: '/machine-controller-manager' },
  nodeLink: { name: 'nodelink-controller', command: '/nodelink-controller' },
  healthCheck: { name: 'machine-healthcheck-controller', command: '/machine-healthcheck' },
} as const;

/** `/metrics` of each process, on its pod's IP (every controller of the pod shares that IP). */
export const metricsPorts = {
  machineSet: 9441,
  machine: 9442,
  nodeLink: 9443,
  healthCheck: 9444,
  operator: 9445,
} as const;
