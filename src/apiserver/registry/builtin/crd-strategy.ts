/** The CustomResourceDefinition strategy: apiextensions defaulting and validation. */
import type { Strategy } from '../resource.ts';
import { defaultCustomResourceDefinition, validateCustomResourceDefinition } from '../../crd/crd-validation.ts';

export const crdStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  tracksGeneration: true,
  prepareForCreate(obj) {
    defaultCustomResourceDefinition(obj);
    // Custom resources are cleaned up before the CRD goes (see the CRD controller).
    const finalizers: string[] = obj.metadata.finalizers ?? [];
    if (!finalizers.includes('customresourcecleanup.apiextensions.k8s.io')) obj.metadata.finalizers = [...finalizers, 'customresourcecleanup.apiextensions.k8s.io'];
    obj.status = { conditions: [], acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
  },
  prepareForUpdate(obj, old) {
    defaultCustomResourceDefinition(obj);
    obj.status = old.status;
  },
  validate: (obj) => validateCustomResourceDefinition(obj),
  validateUpdate: (obj, old) => validateCustomResourceDefinition(obj, old),
};
