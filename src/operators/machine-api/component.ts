/**
 * What the machine-api-operator image runs: like OpenShift's, the image holds several programs,
 * and the container's first argument (its `command`) says which.
 *
 *   start ... | /machine-api-operator start ...   the operator (operator/component.ts)
 *   /machineset-controller ...                     the MachineSet controller
 *   /nodelink-controller ...                       the nodelink controller
 *   /machine-healthcheck ...                       the MachineHealthCheck controller
 *
 * The process runtime hands a container's `command` then `args` to the image's launcher, so
 * the Deployment the operator renders (operator/controllers.ts) reaches each controller with
 * its flags. Each part is loaded only when asked for: a controller process never loads the
 * others' code.
 */
import type { ComponentContext, ComponentStart } from '../../runtime/component.ts';

const programs: Readonly<Record<string, () => Promise<ComponentStart>>> = {
  '/machineset-controller': async () => (await import('./machineset/component.ts')).start,
  '/nodelink-controller': async () => (await import('./nodelink/component.ts')).start,
  '/machine-healthcheck': async () => (await import('./healthcheck/component.ts')).start,
};

export async function start(ctx: ComponentContext): Promise<void> {
  const [first, ...rest] = ctx.args;
  if (first === 'start') return (await import('./operator/component.ts')).start(ctx);
  if (first === '/machine-api-operator') return (await import('./operator/component.ts')).start({ ...ctx, args: rest });
  const load = first === undefined ? undefined : programs[first];
  if (!load) {
    const known = ['start', '/machine-api-operator start', ...Object.keys(programs)].map((p) => `"${p}"`).join(', ');
    throw new Error(`machine-api-operator: unknown program "${first ?? ''}" (this image runs ${known})`);
  }
  return (await load())({ ...ctx, args: rest });
}
