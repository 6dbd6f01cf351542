/**
 * A component is a module exporting `start(ctx)`: the same code runs as a child process
 * (`shipyard component <name> [args]`, what a process pod's image runs) or in-process inside the
 * kubelet (the inline runtime, for simulations of thousands of nodes). Everything that differs
 * between the two lives in this context, so the component itself cannot tell them apart.
 */
export interface ComponentContext {
  /** Aborts when the component must stop (SIGTERM, or the kubelet stopping an inline pod). */
  readonly signal: AbortSignal;
  /** The container's arguments: the pod's `command` followed by its `args`. */
  readonly args: readonly string[];
  /** The container's environment (process.env for a process pod). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where container paths live on this host (see container-path.ts); undefined in a real container. */
  readonly rootfs?: string;
}

/** Resolves when the component has stopped; rejects if it failed. */
export type ComponentStart = (ctx: ComponentContext) => Promise<void>;
