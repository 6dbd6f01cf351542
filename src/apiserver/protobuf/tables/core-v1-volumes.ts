/**
 * Message tables for core/v1 pod volumes: the common sources (emptyDir, hostPath, configMap,
 * secret, persistentVolumeClaim) are read; every other source is marked unsupported, so a body
 * using one is refused rather than stripped. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const coreV1Volumes: MessageTable = {
  Volume: {
    1: 'name: string!',
    2: '...: VolumeSource',
  },
  VolumeSource: {
    1: 'hostPath: HostPathVolumeSource',
    2: 'emptyDir: EmptyDirVolumeSource',
    3: 'gcePersistentDisk: unsupported',
    4: 'awsElasticBlockStore: unsupported',
    5: 'gitRepo: unsupported',
    6: 'secret: SecretVolumeSource',
    7: 'nfs: unsupported',
    8: 'iscsi: unsupported',
    9: 'glusterfs: unsupported',
    10: 'persistentVolumeClaim: PersistentVolumeClaimVolumeSource',
    11: 'rbd: unsupported',
    12: 'flexVolume: unsupported',
    13: 'cinder: unsupported',
    14: 'cephfs: unsupported',
    15: 'flocker: unsupported',
    16: 'downwardAPI: unsupported',
    17: 'fc: unsupported',
    18: 'azureFile: unsupported',
    19: 'configMap: ConfigMapVolumeSource',
    20: 'vsphereVolume: unsupported',
    21: 'quobyte: unsupported',
    22: 'azureDisk: unsupported',
    23: 'photonPersistentDisk: unsupported',
    24: 'portworxVolume: unsupported',
    25: 'scaleIO: unsupported',
    26: 'projected: unsupported',
    27: 'storageos: unsupported',
    28: 'csi: unsupported',
    29: 'ephemeral: unsupported',
    30: 'image: unsupported',
  },
  HostPathVolumeSource: {
    1: 'path: string!',
    2: 'type: string!',
  },
  EmptyDirVolumeSource: {
    1: 'medium: string',
    2: 'sizeLimit: Quantity',
  },
  SecretVolumeSource: {
    1: 'secretName: string',
    2: 'items: []KeyToPath',
    3: 'defaultMode: int32!',
    4: 'optional: bool!',
  },
  ConfigMapVolumeSource: {
    1: '...: LocalObjectReference',
    2: 'items: []KeyToPath',
    3: 'defaultMode: int32!',
    4: 'optional: bool!',
  },
  KeyToPath: {
    1: 'key: string!',
    2: 'path: string!',
    3: 'mode: int32!',
  },
  PersistentVolumeClaimVolumeSource: {
    1: 'claimName: string!',
    2: 'readOnly: bool',
  },
};
