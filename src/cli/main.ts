/**
 * The `shipyard` command line: the composition root that starts components.
 * `shipyard apiserver` runs the embedded API server on its own.
 */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startApiServer } from '../apiserver/server.ts';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number between 0 and 65535');
  return n;
}

function loopback(value: string): string {
  // Every address the datacenter binds or dials is loopback (ARCHITECTURE.md, "Addresses").
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(value) && value !== 'localhost') throw new InvalidArgumentError('must be a loopback address in 127.0.0.0/8');
  return value;
}

const program = new Command('shipyard').description('An OpenShift-style, operator-managed Kubernetes control plane').showHelpAfterError();

program
  .command('apiserver')
  .description('run the embedded Kubernetes-compatible API server on a revisioned SQLite store')
  .option('--data-dir <dir>', 'data directory (PKI, kubeconfig, store)', './.shipyard')
  .option('--port <port>', 'HTTPS port', port, 6443)
  .option('--bind <address>', 'loopback address to listen on', loopback, '127.0.0.1')
  .action(async (opts: { dataDir: string; port: number; bind: string }) => {
    const dataDir = resolve(opts.dataDir);
    const server = await startApiServer({ dataDir, port: opts.port, bind: opts.bind });
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
