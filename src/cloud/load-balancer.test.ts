import assert from 'node:assert/strict';
import { Agent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { startLoadBalancer, type LoadBalancer } from './load-balancer.ts';
import { selfSignedCertificate } from './testing.ts';

/** A TCP server that answers every connection with its name and echoes what it receives. */
async function namedServer(name: string, port = 0): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.write(`${name}:`);
    s.pipe(s);
    s.on('error', () => s.destroy());
  });
  live.set(server, sockets);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const live = new Map<Server, Set<Socket>>();

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    for (const s of live.get(server) ?? []) s.destroy();
  });
}

/** Connects through the balancer, sends `ping`, and returns what came back once the echo arrived. */
function roundTrip(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port });
    let got = '';
    s.on('data', (d) => {
      got += d.toString();
      if (got.endsWith('ping')) {
        s.end();
        resolve(got);
      }
    });
    s.on('error', reject);
    s.on('close', () => {
      if (!got.endsWith('ping')) reject(new Error(`connection closed after ${JSON.stringify(got)}`));
    });
    s.write('ping');
  });
}

/** Waits for `cond`, up to a deadline only a stuck balancer reaches, however busy the machine. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (!cond()) {
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('TCP load balancer', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(() => Promise.all(cleanups.map((c) => c())));

  it('spreads connections round-robin and fails over when a backend dies', async () => {
    const a = await namedServer('a');
    const b = await namedServer('b');
    const lb: LoadBalancer = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port: a.port }, { host: '127.0.0.1', port: b.port }], intervalMs: 60_000 });
    cleanups.push(() => lb.close(), () => close(a.server), () => close(b.server));

    const answers = [await roundTrip(lb.port), await roundTrip(lb.port), await roundTrip(lb.port), await roundTrip(lb.port)];
    assert.deepEqual(answers, ['a:ping', 'b:ping', 'a:ping', 'b:ping']);

    await close(a.server);
    const after = [await roundTrip(lb.port), await roundTrip(lb.port), await roundTrip(lb.port)];
    assert.deepEqual(after, ['b:ping', 'b:ping', 'b:ping'], 'a refused connection is retried on the other backend');
    assert.deepEqual(lb.backends().map((x) => x.healthy), [false, true]);

    // Back on the same port: the next health check brings it back into rotation.
    const revived = await namedServer('a2', a.port);
    cleanups.push(() => close(revived.server));
    await lb.checkNow();
    assert.deepEqual(lb.backends().map((x) => x.healthy), [true, true]);
    const mixed = new Set([await roundTrip(lb.port), await roundTrip(lb.port)]);
    assert.deepEqual([...mixed].sort(), ['a2:ping', 'b:ping']);
  });

  it('health checks run on their interval; setBackends swaps the pool', async () => {
    const a = await namedServer('a');
    const b = await namedServer('b');
    cleanups.push(() => close(a.server), () => close(b.server));
    const lb = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port: a.port }], intervalMs: 20, timeoutMs: 200 });
    cleanups.push(() => lb.close());
    await close(a.server);
    await until(() => lb.backends()[0]?.healthy === false, 'the interval check to mark the dead backend');
    lb.setBackends([{ host: 'localhost', port: b.port }]);
    assert.equal(await roundTrip(lb.port), 'b:ping');
    assert.deepEqual(lb.backends(), [{ host: 'localhost', port: b.port, healthy: true }]);
  });

  it('with no backend accepting, the client connection is closed', async () => {
    const dead = await namedServer('x');
    await close(dead.server);
    const lb = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port: dead.port }], intervalMs: 60_000 });
    cleanups.push(() => lb.close());
    // Closed outright or reset: either way the client learns at once that nothing is there.
    await assert.rejects(roundTrip(lb.port), /connection closed after ""|ECONNRESET/);
  });

  it('an https health check judges by the status of the probe path', async () => {
    // A plain TCP listener is not an HTTPS server: the probe fails even though connects succeed.
    const tcpOnly = await namedServer('t');
    cleanups.push(() => close(tcpOnly.server));
    const lb = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port: tcpOnly.port }], healthCheck: { kind: 'https', path: '/readyz' }, intervalMs: 60_000, timeoutMs: 300 });
    cleanups.push(() => lb.close());
    await lb.checkNow();
    assert.equal(lb.backends()[0]?.healthy, false);
  });

  it('an https health check passes on a 2xx answer from the probe path', async () => {
    const { cert, key } = await selfSignedCertificate();
    const paths: string[] = [];
    const https = createHttpsServer({ cert, key }, (req, res) => {
      paths.push(req.url ?? '');
      res.statusCode = req.url === '/readyz' ? 200 : 500;
      res.end();
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => https.close(() => resolve())));
    const port = (https.address() as AddressInfo).port;
    const ok = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port }], healthCheck: { kind: 'https', path: '/readyz', ca: cert }, intervalMs: 60_000 });
    const failing = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port }], healthCheck: { kind: 'https', path: '/livez' }, intervalMs: 60_000 });
    cleanups.push(() => ok.close(), () => failing.close());
    await ok.checkNow();
    await failing.checkNow();
    assert.equal(ok.backends()[0]?.healthy, true);
    assert.equal(failing.backends()[0]?.healthy, false);
    assert.ok(paths.includes('/readyz') && paths.includes('/livez'));
  });

  it('an https health check with a CA verifies the chain at every probe: another CA fails it', async () => {
    const { cert, key } = await selfSignedCertificate();
    const other = await selfSignedCertificate();
    const https = createHttpsServer({ cert, key }, (_req, res) => res.end());
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => (https.close(() => resolve()), https.closeAllConnections())));
    const port = (https.address() as AddressInfo).port;
    const backends = [{ host: '127.0.0.1', port }];
    const trusted = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends, healthCheck: { kind: 'https', path: '/readyz', ca: cert }, intervalMs: 60_000 });
    const untrusted = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends, healthCheck: { kind: 'https', path: '/readyz', ca: other.cert }, intervalMs: 60_000 });
    cleanups.push(() => trusted.close(), () => untrusted.close());
    // Several rounds: the CA's context is made once and serves every probe.
    for (let round = 0; round < 3; round++) {
      await trusted.checkNow();
      await untrusted.checkNow();
      assert.equal(trusted.backends()[0]?.healthy, true, `round ${round}`);
      assert.equal(untrusted.backends()[0]?.healthy, false, `round ${round}`);
    }
  });

  it('takes a backend out after unhealthyThreshold failed checks and back after healthyThreshold passes, never cutting a connection it carries', async () => {
    const { cert, key } = await selfSignedCertificate();
    /** An HTTPS backend that answers its name, and /readyz as the test says. */
    const backend = async (name: string) => {
      const state = { ready: true };
      const server = createHttpsServer({ cert, key }, (req, res) => {
        res.statusCode = req.url === '/readyz' && !state.ready ? 500 : 200;
        res.end(name);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())));
      return { state, port: (server.address() as AddressInfo).port };
    };
    const a = await backend('a');
    const b = await backend('b');
    const lb = await startLoadBalancer({
      host: '127.0.0.1',
      port: 0,
      backends: [{ host: '127.0.0.1', port: a.port }, { host: '127.0.0.1', port: b.port }],
      healthCheck: { kind: 'https', path: '/readyz', ca: cert },
      intervalMs: 60_000,
      unhealthyThreshold: 2,
      healthyThreshold: 2,
    });
    cleanups.push(() => lb.close());
    const kept = new Agent({ keepAlive: true, maxSockets: 1, ca: cert, checkServerIdentity: () => undefined });
    cleanups.push(async () => kept.destroy());
    const get = (agent: Agent | false) =>
      new Promise<string>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: lb.port, path: '/', agent, ...(agent ? {} : { ca: cert, checkServerIdentity: () => undefined }) }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
    assert.equal(await get(kept), 'a', 'the kept-alive connection goes to the first backend');
    const healthy = () => lb.backends().map((x) => x.healthy);

    a.state.ready = false;
    await lb.checkNow();
    assert.deepEqual(healthy(), [true, true], 'one failed check is below the threshold');
    await lb.checkNow();
    assert.deepEqual(healthy(), [false, true]);
    assert.deepEqual([await get(false), await get(false), await get(false)], ['b', 'b', 'b'], 'new connections avoid the failing backend');
    assert.equal(await get(kept), 'a', 'the established connection still reaches its backend');

    a.state.ready = true;
    await lb.checkNow();
    assert.deepEqual(healthy(), [false, true], 'one pass is below the threshold');
    await lb.checkNow();
    assert.deepEqual(healthy(), [true, true]);
    assert.deepEqual(new Set([await get(false), await get(false)]), new Set(['a', 'b']));
  });

  it('refuses a threshold that is not a whole number of checks', async () => {
    await assert.rejects(startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [], unhealthyThreshold: 0 }), /unhealthyThreshold must be a whole number of checks, at least 1 \(got 0\)/);
  });

  it('binds and forwards to loopback only', async () => {
    await assert.rejects(startLoadBalancer({ host: 'lb.example', port: 0, backends: [] }), /not a loopback address/);
    await assert.rejects(startLoadBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: 'api.example', port: 6443 }] }), /not a loopback address/);
  });
});
