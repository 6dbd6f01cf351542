import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { encodeDataUrl, IgnitionConfigError, type IgnitionConfig } from '../api/ignition/index.ts';
import { applyIgnition, hasRun, readResult, runFirstBoot } from './first-boot.ts';
import { createLoopbackFetcher } from './ignition-fetch.ts';
import { configAcceptHeader } from './ignition-render.ts';
import { selfSignedCertificate } from './testing.ts';

// Short backoffs; a deadline no retry sequence in these tests comes near, however busy the machine.
const fastFetch = createLoopbackFetcher({ deadlineMs: 30_000, initialBackoffMs: 10, maxBackoffMs: 50 });
/**
 * For tests that wait for the fetcher to give up: long enough that a first attempt always gets
 * its answer before the deadline (cut short, it would report a timeout instead of that answer).
 */
const GIVE_UP_MS = 2_000;

const dirs: string[] = [];
/** Removes the directories made so far; each suite calls it when it ends. */
const removeDirs = () => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));

async function tmpDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'shipyard-ign-'));
  dirs.push(dir);
  return dir;
}

async function tmpRoot(): Promise<string> {
  const dir = await tmpDir();
  const root = join(dir, 'root');
  await mkdir(root);
  return root;
}

const cfg = (rest: Omit<IgnitionConfig, 'ignition'> & { ignition?: Partial<IgnitionConfig['ignition']> }): IgnitionConfig => ({ ...rest, ignition: { version: '3.4.0', ...rest.ignition } });

async function text(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o7777;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('first boot: writing a config into a node root', () => {
  after(removeDirs);

  it('writes files, directories, links, units and ssh keys, then records the run', async () => {
    const root = await tmpRoot();
    const gz = gzipSync('compressed contents\n');
    const config = cfg({
      storage: {
        directories: [{ path: '/var/lib/kubelet', mode: 0o700 }],
        files: [
          { path: '/etc/kubernetes/kubelet.conf', mode: 0o600, contents: { source: encodeDataUrl('kind: KubeletConfiguration\n') } },
          { path: '/etc/b64', contents: { source: 'data:;base64,aGVsbG8=' } },
          { path: '/etc/gz', contents: { source: encodeDataUrl(gz), compression: 'gzip' } },
          { path: '/etc/log', contents: { source: 'data:,one%0A' }, append: [{ source: 'data:,two%0A' }] },
          { path: '/etc/empty' },
        ],
        links: [
          { path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC' },
          { path: '/etc/hard', target: '/etc/b64', hard: true },
        ],
      },
      systemd: {
        units: [
          { name: 'kubelet.service', enabled: true, contents: '[Service]\nExecStart=/usr/bin/kubelet\n[Install]\nWantedBy=multi-user.target graphical.target\n', dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }] },
          { name: 'crio.service', enabled: true },
          { name: 'bad.service', mask: true },
        ],
      },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA1 a', 'ssh-ed25519 AAAA2 b'], passwordHash: '$6$x' }] },
    });
    const result = await applyIgnition(config, root, { fetch: fastFetch, now: () => new Date('2026-01-02T03:04:05Z') });

    assert.equal(await text(join(root, 'etc/kubernetes/kubelet.conf')), 'kind: KubeletConfiguration\n');
    assert.equal(await modeOf(join(root, 'etc/kubernetes/kubelet.conf')), 0o600);
    assert.equal(await modeOf(join(root, 'etc/kubernetes')), 0o755);
    assert.equal(await text(join(root, 'etc/b64')), 'hello');
    assert.equal(await modeOf(join(root, 'etc/b64')), 0o644);
    assert.equal(await text(join(root, 'etc/gz')), 'compressed contents\n');
    assert.equal(await text(join(root, 'etc/log')), 'one\ntwo\n');
    assert.equal(await text(join(root, 'etc/empty')), '');
    assert.equal(await modeOf(join(root, 'var/lib/kubelet')), 0o700);
    assert.equal(await readlink(join(root, 'etc/localtime')), '../usr/share/zoneinfo/UTC');
    assert.equal((await stat(join(root, 'etc/hard'))).ino, (await stat(join(root, 'etc/b64'))).ino);

    const units = join(root, 'etc/systemd/system');
    assert.match(await text(join(units, 'kubelet.service')), /ExecStart=\/usr\/bin\/kubelet/);
    assert.equal(await text(join(units, 'kubelet.service.d/10-env.conf')), '[Service]\nEnvironment=A=1\n');
    assert.equal(await readlink(join(units, 'multi-user.target.wants/kubelet.service')), '../kubelet.service');
    assert.equal(await readlink(join(units, 'graphical.target.wants/kubelet.service')), '../kubelet.service');
    assert.equal(await readlink(join(units, 'multi-user.target.wants/crio.service')), '../../../../usr/lib/systemd/system/crio.service');
    assert.equal(await readlink(join(units, 'bad.service')), '/dev/null');

    const keys = join(root, 'home/core/.ssh/authorized_keys.d/ignition');
    assert.equal(await text(keys), 'ssh-ed25519 AAAA1 a\nssh-ed25519 AAAA2 b\n');
    assert.equal(await modeOf(keys), 0o600);
    assert.equal(await modeOf(join(root, 'home/core/.ssh')), 0o700);

    assert.deepEqual(result.skipped, ['passwd.users core: passwordHash']);
    const recorded = await readResult(root);
    assert.equal(recorded?.provisioningDate, '2026-01-02T03:04:05.000Z');
    assert.equal(recorded?.userConfigProvided, true);
    assert.equal(await modeOf(join(root, 'etc/.ignition-result.json')), 0o600);
  });

  it('follows Ignition overwrite rules', async () => {
    const root = await tmpRoot();
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(join(root, 'etc/kept'), 'old\n', { mode: 0o640 });
    await writeFile(join(root, 'etc/replaced'), 'old\n');
    await writeFile(join(root, 'etc/conflict'), 'old\n');
    await mkdir(join(root, 'etc/was-a-dir/sub'), { recursive: true });

    await applyIgnition(
      cfg({
        storage: {
          files: [
            { path: '/etc/kept', append: [{ source: 'data:,new%0A' }] },
            { path: '/etc/replaced', overwrite: true, contents: { source: 'data:,new' } },
            { path: '/etc/was-a-dir', overwrite: true, contents: { source: 'data:,file' } },
          ],
        },
      }),
      root,
      { fetch: fastFetch },
    );
    assert.equal(await text(join(root, 'etc/kept')), 'old\nnew\n');
    assert.equal(await modeOf(join(root, 'etc/kept')), 0o640, 'a kept file keeps its mode');
    assert.equal(await text(join(root, 'etc/replaced')), 'new');
    assert.equal(await text(join(root, 'etc/was-a-dir')), 'file', 'overwrite replaces a directory too');

    await assert.rejects(applyIgnition(cfg({ storage: { files: [{ path: '/etc/conflict', contents: { source: 'data:,x' } }] } }), root, { fetch: fastFetch }), {
      message: /\/etc\/conflict: a file already exists and overwrite is false/,
    });
    await assert.rejects(applyIgnition(cfg({ storage: { directories: [{ path: '/etc/conflict' }] } }), root, { fetch: fastFetch }), {
      message: /a non-directory already exists and overwrite is false/,
    });
    await assert.rejects(applyIgnition(cfg({ storage: { links: [{ path: '/etc/conflict', target: '/x' }] } }), root, { fetch: fastFetch }), {
      message: /a non-symlink already exists at that path and overwrite is false/,
    });
  });

  it('never writes outside the root, whatever links the root already holds', async () => {
    const base = await tmpDir();
    const root = join(base, 'root');
    await mkdir(join(root, 'etc'), { recursive: true });
    await symlink('../../../..', join(root, 'etc/up'));
    await symlink('/srv', join(root, 'etc/abs'));

    await assert.rejects(applyIgnition(cfg({ storage: { files: [{ path: '/etc/up/escaped', contents: { source: 'data:,x' } }] } }), root, { fetch: fastFetch }), {
      message: /escapes the node root/,
    });
    await assert.rejects(lstat(join(base, 'escaped')));

    // An absolute link target means the node's /srv, not the host's.
    await applyIgnition(cfg({ storage: { files: [{ path: '/etc/abs/inside', contents: { source: 'data:,x' } }] } }), root, { fetch: fastFetch });
    assert.equal(await text(join(root, 'srv/inside')), 'x');
  });

  it('checks verification hashes of the decompressed contents', async () => {
    const root = await tmpRoot();
    const body = 'verified';
    const good = `sha512-${createHash('sha512').update(body).digest('hex')}`;
    const gz = gzipSync(body);
    await applyIgnition(cfg({ storage: { files: [{ path: '/ok', contents: { source: encodeDataUrl(gz), compression: 'gzip', verification: { hash: good } } }] } }), root, { fetch: fastFetch });
    assert.equal(await text(join(root, 'ok')), body);
    const bad = `sha512-${'0'.repeat(128)}`;
    await assert.rejects(applyIgnition(cfg({ storage: { files: [{ path: '/bad', contents: { source: 'data:,x', verification: { hash: bad } } }] } }), root, { fetch: fastFetch }), {
      message: /\/bad: inline data: content does not match verification hash/,
    });
  });

  it('runs once: a second boot of the same root does nothing', async () => {
    const root = await tmpRoot();
    const userData = JSON.stringify(cfg({ storage: { files: [{ path: '/etc/first', contents: { source: 'data:,1' } }] } }));
    assert.equal((await runFirstBoot(userData, root, { fetch: fastFetch })).ran, true);
    await rm(join(root, 'etc/first'));
    assert.deepEqual(await runFirstBoot(userData, root, { fetch: fastFetch }), { ran: false });
    await assert.rejects(stat(join(root, 'etc/first')));
  });

  it('no user data still records a first boot; bad user data fails without a record', async () => {
    const root = await tmpRoot();
    const first = await runFirstBoot(undefined, root);
    assert.equal(first.result?.userConfigProvided, false);

    const other = await tmpRoot();
    await assert.rejects(runFirstBoot('{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative"}]}}', other), (err: Error) => {
      assert.ok(err instanceof IgnitionConfigError);
      assert.match(err.message, /storage\.files\[0\]\.path: must be absolute/);
      return true;
    });
    assert.equal(await hasRun(other), false);
  });
});

describe('first boot: pointer configs', () => {
  let server: Server;
  let port: number;
  let handler: Handler = (_req, res) => res.end();
  before(async () => {
    server = createHttpServer((req, res) => handler(req, res));
    port = await listen(server);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  after(removeDirs);

  it('fetches merged configs with the Ignition Accept header, retrying while the server is not ready', async () => {
    const root = await tmpRoot();
    const seen: Array<{ url?: string; accept?: string }> = [];
    let calls = 0;
    handler = (req, res) => {
      seen.push({ url: req.url, accept: req.headers.accept });
      if (++calls <= 2) {
        res.statusCode = 503;
        return res.end('not yet');
      }
      res.setHeader('Content-Type', 'application/vnd.coreos.ignition+json');
      res.end(JSON.stringify(cfg({ storage: { files: [{ path: '/etc/from-server', contents: { source: 'data:,served' } }] } })));
    };
    const pointer = cfg({ ignition: { config: { merge: [{ source: `http://127.0.0.1:${port}/config/worker` }] } }, storage: { files: [{ path: '/etc/local', contents: { source: 'data:,local' } }] } });
    const result = await applyIgnition(pointer, root, { fetch: fastFetch });
    assert.equal(await text(join(root, 'etc/from-server')), 'served');
    assert.equal(await text(join(root, 'etc/local')), 'local');
    assert.equal(calls, 3);
    assert.deepEqual(seen[2], { url: '/config/worker', accept: configAcceptHeader });
    assert.equal(configAcceptHeader, 'application/vnd.coreos.ignition+json;version=3.4.0, */*;q=0.1');
    assert.deepEqual(result.fetched, [`http://127.0.0.1:${port}/config/worker`]);
  });

  it('replace takes the fetched config instead; a spec 2.2 answer is translated', async () => {
    const root = await tmpRoot();
    handler = (_req, res) => res.end(JSON.stringify({ ignition: { version: '2.2.0' }, storage: { files: [{ filesystem: 'root', path: '/etc/v2', contents: { source: 'data:,two' } }] } }));
    await applyIgnition(cfg({ ignition: { config: { replace: { source: `http://localhost:${port}/config/master` } } }, storage: { files: [{ path: '/etc/dropped', contents: { source: 'data:,x' } }] } }), root, { fetch: fastFetch });
    assert.equal(await text(join(root, 'etc/v2')), 'two');
    await assert.rejects(stat(join(root, 'etc/dropped')));
  });

  it('a 4xx answer fails at once; an invalid served config names where it came from', async () => {
    const root = await tmpRoot();
    let calls = 0;
    handler = (_req, res) => {
      calls++;
      res.statusCode = 404;
      res.end();
    };
    await assert.rejects(applyIgnition(cfg({ ignition: { config: { merge: [{ source: `http://127.0.0.1:${port}/config/nope` }] } } }), root, { fetch: fastFetch }), { message: /HTTP 404/ });
    assert.equal(calls, 1);
    handler = (_req, res) => res.end('{"ignition":{"version":"9.0.0"}}');
    await assert.rejects(applyIgnition(cfg({ ignition: { config: { merge: [{ source: `http://127.0.0.1:${port}/config/x` }] } } }), root, { fetch: fastFetch }), {
      message: new RegExp(`unsupported config version "9.0.0".*in config from http://127.0.0.1:${port}/config/x`),
    });
    assert.equal(await hasRun(root), false);
  });

  it('validates the merged result: two valid configs can merge into an invalid one', async () => {
    const root = await tmpRoot();
    handler = (_req, res) => res.end(JSON.stringify(cfg({ storage: { files: [{ path: '/opt/app/conf', contents: { source: 'data:,x' } }] } })));
    const pointer = cfg({ ignition: { config: { merge: [{ source: `http://127.0.0.1:${port}/config/worker` }] } }, storage: { links: [{ path: '/opt/app', target: '/srv/app' }] } });
    await assert.rejects(applyIgnition(pointer, root, { fetch: fastFetch }), { message: /storage\.files\[0\]: path "\/opt\/app\/conf" is beneath link "\/opt\/app"/ });
    await assert.rejects(lstat(join(root, 'opt')), 'nothing was written');
  });

  it('gives up at the deadline when the server never answers 2xx', async () => {
    handler = (_req, res) => {
      res.statusCode = 500;
      res.end();
    };
    const fetch = createLoopbackFetcher({ deadlineMs: GIVE_UP_MS, initialBackoffMs: 10, maxBackoffMs: 20 });
    await assert.rejects(fetch({ url: `http://127.0.0.1:${port}/config/worker` }), { message: /gave up after \d+ attempts: HTTP 500/ });
  });

  it('refuses hosts that are not loopback, also behind a redirect', async () => {
    const root = await tmpRoot();
    let calls = 0;
    const fetch = async () => {
      calls++;
      return Buffer.from('{}');
    };
    await assert.rejects(applyIgnition(cfg({ ignition: { config: { merge: [{ source: 'https://config.example:22623/config/worker' }] } } }), root, { fetch }), {
      message: /host "config.example" is not a loopback address \(127.x or localhost\)/,
    });
    assert.equal(calls, 0, 'an injected fetcher is never asked for a non-loopback URL');
    handler = (_req, res) => {
      res.statusCode = 302;
      res.setHeader('Location', 'http://config.example/elsewhere');
      res.end();
    };
    await assert.rejects(fastFetch({ url: `http://127.0.0.1:${port}/config/worker` }), { message: /redirect.*is not a loopback address/ });
  });

  it('can be cancelled while it waits for the server', async () => {
    const controller = new AbortController();
    // Cancelled once the server has said "not yet" twice: the fetcher is between retries, or in one.
    let calls = 0;
    handler = (_req, res) => {
      res.statusCode = 503;
      res.end();
      if (++calls === 2) controller.abort(new Error('stopped'));
    };
    const fetch = createLoopbackFetcher({ deadlineMs: 60_000, initialBackoffMs: 20, maxBackoffMs: 20 });
    await assert.rejects(fetch({ url: `http://127.0.0.1:${port}/config/worker`, signal: controller.signal }), { message: 'stopped' });
  });
});

describe('first boot: https with the config CA', () => {
  let server: Server;
  let port: number;
  let caPem: string;
  before(async () => {
    const { cert, key } = await selfSignedCertificate();
    caPem = cert;
    server = createHttpsServer({ cert, key }, (_req, res) => res.end(JSON.stringify(cfg({ storage: { files: [{ path: '/etc/tls', contents: { source: 'data:,secure' } }] } }))));
    port = await listen(server);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  after(removeDirs);

  it('trusts the certificate authorities the pointer names', async () => {
    const root = await tmpRoot();
    const pointer = cfg({
      ignition: {
        config: { merge: [{ source: `https://localhost:${port}/config/worker` }] },
        security: { tls: { certificateAuthorities: [{ source: encodeDataUrl(caPem) }] } },
      },
    });
    await applyIgnition(pointer, root, { fetch: fastFetch });
    assert.equal(await text(join(root, 'etc/tls')), 'secure');
  });

  it('fails without them', async () => {
    const root = await tmpRoot();
    const fetch = createLoopbackFetcher({ deadlineMs: GIVE_UP_MS, initialBackoffMs: 10, maxBackoffMs: 100 });
    await assert.rejects(applyIgnition(cfg({ ignition: { config: { merge: [{ source: `https://127.0.0.1:${port}/config/worker` }] } } }), root, { fetch }), {
      message: /gave up after \d+ attempts: .*(certificate|self.signed)/i,
    });
  });
});
