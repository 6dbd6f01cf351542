/**
 * The machine-config-controller's controllers over one context, as the component runs them
 * (and tests do, on a real API server): template, render (with the collection of unused
 * rendered configs), node and kubelet-config. They coordinate only through API objects: the
 * template and kubelet-config controllers write MachineConfigs, the render controller turns a
 * pool's MachineConfigs into its target, the node controller rolls the target out.
 */
import { machineConfigOperatorNamespace } from '../../../api/machineconfiguration/index.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import type { Controller } from '../../../runtime/controller.ts';
import { createKubeletConfigController } from './kubelet-config-controller.ts';
import { createNodeController } from './node-controller.ts';
import { createRenderController } from './render-controller.ts';
import { createRenderedConfigGc } from './rendered-gc.ts';
import { createTemplateController } from './template-controller.ts';

/** The namespace the Machine Config Operator's components run in, and hold their Leases in. */
export const MCO_NAMESPACE = machineConfigOperatorNamespace;
export const COMPONENT = 'machine-config-controller';

export interface MachineConfigControllerOptions {
  /** Stamped on every MachineConfig these controllers generate, and compared with the ControllerConfig's. */
  readonly controllerVersion: string;
  /** See RenderControllerOptions. */
  readonly renderDelayMs?: number;
  /** See RenderedConfigGcOptions. */
  readonly renderedConfigGracePeriodMs?: number;
  /** See TemplateControllerOptions. */
  readonly templateResyncMs?: number;
}

export function machineConfigControllers(ctx: ControllerContext, o: MachineConfigControllerOptions): Controller[] {
  return [
    createTemplateController(ctx, { controllerVersion: o.controllerVersion, resyncMs: o.templateResyncMs }),
    createRenderController(ctx, { controllerVersion: o.controllerVersion, renderDelayMs: o.renderDelayMs }),
    createRenderedConfigGc(ctx, { gracePeriodMs: o.renderedConfigGracePeriodMs }),
    createNodeController(ctx),
    createKubeletConfigController(ctx, { controllerVersion: o.controllerVersion }),
  ];
}
