/**
 * The kubelet's view of a container runtime (its CRI, much reduced). The kubelet core decides
 * *what* should run; a runtime only starts one container and reports how it ended. The core
 * never imports a concrete runtime: the composition root hands it a list, and the first whose
 * `handles(image)` is true runs the container (process for images in the local image store,
 * inline for components started in-process, simulated for anything else, as kwok does).
 */

export interface Mount {
  /** The volumeMount's mountPath, as the container sees it. */
  readonly containerPath: string;
  /** Where the kubelet materialized the volume on the host. */
  readonly hostPath: string;
  readonly readOnly: boolean;
}

export interface ContainerSpec {
  readonly podUid: string;
  readonly namespace: string;
  readonly podName: string;
  readonly nodeName: string;
  readonly containerName: string;
  readonly image: string;
  readonly command: readonly string[];
  readonly args: readonly string[];
  /** Fully resolved (valueFrom, KUBERNETES_SERVICE_HOST/PORT, and so on). */
  readonly env: Readonly<Record<string, string>>;
  readonly workingDir?: string;
  readonly mounts: readonly Mount[];
  /**
   * `<pod dir>/rootfs`: every mountPath appears under it (a symlink to the volume), so
   * `join(rootfs, mountPath)` is the host path of a container path (see runtime/container-path.ts).
   */
  readonly rootfs: string;
  /** The address the container binds: its pod IP, or the node's IP for hostNetwork pods. */
  readonly podIP: string;
  readonly hostNetwork: boolean;
  /** The file stdout and stderr go to (the kubelet rotates it to `previous` on restart). */
  readonly logPath: string;
  readonly restartCount: number;
}

export interface ContainerExit {
  readonly exitCode: number;
  readonly signal?: string;
  /** Kubernetes' words: Completed, Error, OOMKilled, ContainerCannotRun… */
  readonly reason: string;
  readonly message?: string;
  readonly finishedAt: Date;
}

export interface RunningContainer {
  /** A process id when there is a process (process runtime); undefined otherwise. */
  readonly pid?: number;
  readonly startedAt: Date;
  /** Resolves once the container has ended, however it ended; never rejects. */
  readonly exited: Promise<ContainerExit>;
  /** SIGTERM, then SIGKILL after `gracePeriodMs`; resolves once it has exited. */
  stop(gracePeriodMs: number): Promise<ContainerExit>;
  /** Runs a probe command inside the container's environment (exec probes). */
  exec?(command: readonly string[], timeoutMs: number): Promise<{ exitCode: number; output: string }>;
}

export interface ContainerRuntime {
  readonly name: 'process' | 'inline' | 'simulated';
  handles(image: string): boolean;
  /** Rejects when the container cannot start at all (ContainerCannotRun / image problems). */
  start(spec: ContainerSpec): Promise<RunningContainer>;
}
