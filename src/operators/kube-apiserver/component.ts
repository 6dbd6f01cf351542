/**
 * What the cluster-kube-apiserver-operator image runs: like upstream's image, one binary with
 * several programs, the first argument saying which (the binary's own name may come first, as
 * the installer pods' `command: [cluster-kube-apiserver-operator, installer]` has it):
 *
 *   operator [flags]    the operator (operator/component.ts); the default
 *   installer [flags]   an installer pod's work on its node (installer/command.ts)
 *   prune [flags]       a pruner pod's: old revisions' directories off its node (prune/command.ts)
 *
 * Each part is loaded only when asked for, so an installer pod never loads the controllers.
 */
import type { ComponentContext, ComponentStart } from '../../runtime/component.ts';

export const binaryName = 'cluster-kube-apiserver-operator';

const programs: Readonly<Record<string, () => Promise<ComponentStart>>> = {
  operator: async () => (await import('./operator/component.ts')).start,
  installer: async () => (await import('./installer/command.ts')).runInstaller,
  prune: async () => (await import('./prune/command.ts')).runPrune,
};

export async function start(ctx: ComponentContext): Promise<void> {
  const args = ctx.args[0] === binaryName ? ctx.args.slice(1) : ctx.args;
  const [first] = args;
  // No program named (or flags first): the operator, as the image's default.
  if (first === undefined || first.startsWith('-')) return (await programs.operator!())({ ...ctx, args });
  const load = programs[first];
  if (!load) throw new Error(`${binaryName}: unknown program "${first}" (this image runs ${Object.keys(programs).map((p) => `"${p}"`).join(', ')})`);
  return (await load())({ ...ctx, args: args.slice(1) });
}
