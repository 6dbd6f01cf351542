/**
 * The `shipyard` command line: the composition root that starts components.
 *   shipyard up                      the local datacenter (what `npm start` runs)
 *   shipyard status                  ClusterVersion, ClusterOperators and nodes on one screen
 *   shipyard explain mcp/<pool>      why a MachineConfigPool is stuck or degraded
 *   shipyard node <action> NODE      acts on a running datacenter's node
 *   shipyard image list|import       the local image store
 *   shipyard release new|list|info   release images (custom ones for `up --release-image`)
 *   shipyard component <name> ...    one component as this process (what a process pod runs)
 *   shipyard apiserver               the embedded API server on its own
 *   shipyard render                  the bootstrap API server's assets (kube-apiserver operator's render)
 */
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { StoreDurability } from '../storage/sqlite.ts';
import { BLOCK_COUNT } from './up/address-block.ts';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number between 0 and 65535');
  return n;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number, 0 or more');
  return n;
}

function block(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n >= BLOCK_COUNT) throw new InvalidArgumentError(`must be one of 0-${BLOCK_COUNT - 1}`);
  return n;
}

function loopback(value: string): string {
  // Every address the datacenter binds or dials is loopback (ARCHITECTURE.md, "Addresses").
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(value) && value !== 'localhost') throw new InvalidArgumentError('must be a loopback address in 127.0.0.0/8');
  return value;
}

const dataDirOption = (): Option => new Option('--data-dir <dir>', 'data directory of the cluster').default('./.shipyard');

const program = new Command('shipyard').description('An OpenShift-style, operator-managed Kubernetes control plane').showHelpAfterError();

program
  .command('up')
  .description('create or resume a local datacenter: a cloud, nodes with kubelets, and the control plane as static pods')
  .addOption(dataDirOption())
  .addOption(new Option('--masters <n>', 'control-plane nodes (first start only)').argParser(count).default(3))
  .addOption(new Option('--workers <n>', 'worker nodes (first start only)').argParser(count).default(2))
  .option('--masters-schedulable', 'let ordinary pods run on masters (no NoSchedule taint)', false)
  .addOption(new Option('--api-port <port>', 'port of the API load balancer on 127.0.0.1').argParser(port).default(6443))
  .addOption(new Option('--cloud-port <port>', 'port of the cloud API on 127.0.0.1').argParser(port).default(6080))
  .addOption(new Option('--address-block <k>', `the address block of a new cluster, 0-${BLOCK_COUNT - 1} (first start only; default the first one free): 127.0.k.1 for the load balancer, 127.(1+k).0.0/16 for nodes`).argParser(block))
  .option('--node-monitor-grace-period <duration>', 'how long a node may go without renewing its Lease before it is marked Unknown', '40s')
  .addOption(new Option('--cvo-reconcile-interval <duration>', 'how often the cluster-version-operator revisits every manifest (first start only; default 2-4 minutes, random)').hideHelp())
  .option('--release-image <ref>', 'install from this release image, e.g. one made by `shipyard release new` (first start only; overrides SHIPYARD_INSTALL_RELEASE_IMAGE_OVERRIDE)')
  .action(async (opts: { dataDir: string; masters: number; workers: number; mastersSchedulable: boolean; apiPort: number; cloudPort: number; nodeMonitorGracePeriod: string; cvoReconcileInterval?: string; releaseImage?: string; addressBlock?: number }, cmd: Command) => {
    const { runUp } = await import('./up/run.ts');
    const explicit = (name: string): boolean => cmd.getOptionValueSource(name) === 'cli';
    try {
      await runUp({ ...opts, dataDir: resolve(opts.dataDir), explicitShape: explicit('masters') || explicit('workers') });
    } catch (err) {
      // A refusal to start (taken address, directory in use, bad flag) is a message, not a stack trace.
      process.stderr.write(`shipyard up: ${err instanceof Error ? err.message : String(err)}\n`);
      // Not process.exit() at once: the log file's asynchronous writer must flush first.
      process.exitCode = 1;
      setTimeout(() => process.exit(1), 2000).unref();
    }
  });

program
  .command('status')
  .description('the cluster on one screen: ClusterVersion, every ClusterOperator, the nodes')
  .addOption(dataDirOption())
  .action(async (opts: { dataDir: string }) => {
    const { printStatus } = await import('./cluster-status.ts');
    try {
      process.stdout.write(await printStatus(join(resolve(opts.dataDir), 'kubeconfig')));
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('explain <ref>')
  .description('why a MachineConfigPool is stuck or degraded (mcp/<pool>): the node, its step, the pod and PodDisruptionBudget in the way, and why that pod cannot go elsewhere')
  .addOption(dataDirOption())
  .option('--kubeconfig <file>', 'a kubeconfig to use instead of the data directory\'s')
  .action(async (ref: string, opts: { dataDir: string; kubeconfig?: string }) => {
    const { explain } = await import('./explain/explain.ts');
    try {
      process.stdout.write(await explain(ref, opts.kubeconfig ? resolve(opts.kubeconfig) : join(resolve(opts.dataDir), 'kubeconfig')));
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

const node = program.command('node').description('act on a node of the running datacenter');
for (const action of ['stop-kubelet', 'start-kubelet', 'reboot'] as const) {
  node
    .command(`${action} <node>`)
    .description(
      action === 'stop-kubelet'
        ? 'stop the node\'s kubelet (its Lease stops, the node goes NotReady; containers keep running)'
        : action === 'start-kubelet'
          ? 'start the node\'s kubelet again'
          : 'reboot the node: stop every pod, go NotReady, boot again re-reading kubelet.conf',
    )
    .addOption(dataDirOption())
    .action(async (name: string, opts: { dataDir: string }) => {
      const { sendNodeAction } = await import('./up/control.ts');
      try {
        process.stdout.write(`${await sendNodeAction(resolve(opts.dataDir), action, name)}\n`);
      } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}

const image = program.command('image').description('the local image store: images that run as real processes');
image
  .command('list')
  .description('list the images in the local store')
  .addOption(dataDirOption())
  .action(async (opts: { dataDir: string }) => {
    const { listImages } = await import('./images.ts');
    process.stdout.write(listImages(resolve(opts.dataDir)));
  });
image
  .command('import <ref>')
  .description('make a program a runnable image: pods using REF run FILE as a process')
  .requiredOption('--entrypoint <file>', 'the program (a .js/.mjs/.ts file run by Node, or an executable)')
  .option('--content <path=dir>', 'a directory the image carries at PATH (repeatable), e.g. /release-manifests=./payload', (v: string, acc: string[]) => [...acc, v], [] as string[])
  .addOption(dataDirOption())
  .action(async (ref: string, opts: { dataDir: string; entrypoint: string; content: string[] }) => {
    const { importImage } = await import('./images.ts');
    try {
      const content: Record<string, string> = {};
      for (const c of opts.content) {
        const eq = c.indexOf('=');
        if (eq <= 0) throw new Error(`--content ${c}: expected PATH=DIR`);
        content[c.slice(0, eq)] = resolve(c.slice(eq + 1));
      }
      process.stdout.write(importImage(resolve(opts.dataDir), ref, resolve(opts.entrypoint), content));
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

const release = program.command('release').description('release images: a payload of manifests and the images they name, which a cluster installs or updates to');
release
  .command('new <component=image...>')
  .description('derive a release image from another with the named components\' images replaced (as `oc adm release new --from-release`)')
  .requiredOption('--from-release <version|ref>', 'the release to start from: a version of Shipyard\'s own (e.g. 0.1.0) or a release image')
  .requiredOption('--to-image <ref>', 'the reference of the new release image')
  .option('--name <version>', 'the new release\'s version (default: the source\'s)')
  .addOption(dataDirOption())
  .action(async (images: string[], opts: { dataDir: string; fromRelease: string; toImage: string; name?: string }) => {
    const { newRelease } = await import('./release.ts');
    try {
      process.stdout.write(newRelease({ dataDir: resolve(opts.dataDir), from: opts.fromRelease, images, toImage: opts.toImage, name: opts.name }));
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });
release
  .command('list')
  .description('list the release images in the local store')
  .addOption(dataDirOption())
  .action(async (opts: { dataDir: string }) => {
    const { listReleases } = await import('./release.ts');
    process.stdout.write(listReleases(resolve(opts.dataDir)));
  });
release
  .command('info <version|ref>')
  .description('a release image\'s version, origin and component images')
  .addOption(dataDirOption())
  .action(async (ref: string, opts: { dataDir: string }) => {
    const { releaseInfo } = await import('./release.ts');
    try {
      process.stdout.write(releaseInfo(resolve(opts.dataDir), ref));
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('component <name> [args...]')
  .description('run one component as this process (what a process pod of its image runs)')
  .allowUnknownOption()
  .helpOption(false)
  .action(async (name: string, args: string[]) => {
    const { runComponentProcess } = await import('./run-component.ts');
    await runComponentProcess(name, args);
  });

program
  .command('render')
  .description("write the assets that start a cluster's bootstrap API server, as the kube-apiserver operator's render does: its static pod, its config, and the objects the operator observes")
  .requiredOption('--asset-input-dir <dir>', 'directory holding install-config.yaml (networking: clusterNetwork/serviceNetwork or podCIDR/serviceCIDR; platform.shipyard: apiServerURL, storeDir)')
  .requiredOption('--asset-output-dir <dir>', 'where bootstrap-manifests/kube-apiserver-pod.yaml and manifests/ (Namespace, Endpoints kube-system/host-etcd, ConfigMap kube-system/cluster-config-v1) are written')
  .requiredOption('--config-output-file <file>', 'where the bootstrap KubeAPIServerConfig is written (the pod reads it at /etc/kubernetes/config/kube-apiserver-config.yaml)')
  .option('--manifest-image <ref>', "the bootstrap pod's image (default: the built-in kube-apiserver image)")
  .addHelpText('after', '\nThe config is the kube-apiserver operator\'s default layer merged with what its observers make of the manifests, so revision 1 differs from it only where it must.')
  .action(async (opts: { assetInputDir: string; assetOutputDir: string; configOutputFile: string; manifestImage?: string }) => {
    const { runRender } = await import('../operators/kube-apiserver/render/write.ts');
    const { builtinImage } = await import('./components.ts');
    try {
      const { files } = runRender({ ...opts, image: opts.manifestImage ?? builtinImage('kube-apiserver'), securePort: 6443 });
      for (const f of files) process.stdout.write(`wrote ${f}\n`);
    } catch (err) {
      process.stderr.write(`shipyard render: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('apiserver')
  .description('run the embedded Kubernetes-compatible API server on its own')
  .addOption(dataDirOption())
  .option('--port <port>', 'HTTPS port', port, 6443)
  .option('--bind <address>', 'loopback address to listen on', loopback, '127.0.0.1')
  .addOption(
    new Option(
      '--store-durability <level>',
      'what an acknowledged write survives. fsync: also power loss and OS crash, as etcd (each group-commit batch is fsynced before its writes are answered). ' +
        'process-crash-only: faster, no fsync per commit; survives a killed process, but the last acknowledged writes may be lost on power loss or an OS crash',
    )
      .choices(['fsync', 'process-crash-only'] satisfies StoreDurability[])
      .default('fsync'),
  )
  .action(async (opts: { dataDir: string; port: number; bind: string; storeDurability: StoreDurability }) => {
    (await import('./heap-growth.ts')).applyHeapGrowthPolicy();
    const { startApiServer } = await import('../apiserver/server.ts');
    const dataDir = resolve(opts.dataDir);
    const server = await startApiServer({ dataDir, port: opts.port, bind: opts.bind, storeDurability: opts.storeDurability });
    process.stdout.write(
      [
        '',
        `Shipyard API server listening on ${server.url}`,
        `  data directory: ${dataDir}`,
        `  kubeconfig:     ${server.kubeconfigPath}`,
        '',
        'Point kubectl at it:',
        `  export KUBECONFIG=${server.kubeconfigPath}`,
        '  kubectl get namespaces',
        '',
        'Stop with Ctrl-C.',
        '',
      ].join('\n'),
    );
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void server.close().then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

await program.parseAsync(process.argv);
