import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, forController, forReconcile, REDACTED, scrubSecrets } from './logger.ts';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('binds the component and writes JSON lines', () => {
    const out = capture();
    const log = createLogger({ component: 'scheduler', level: 'info', destination: out.stream });
    log.info({ node: 'n1' }, 'bound');
    log.debug('not at info');
    const [line, ...rest] = out.lines();
    assert.equal(rest.length, 0);
    assert.equal(line.component, 'scheduler');
    assert.equal(line.node, 'n1');
    assert.equal(line.msg, 'bound');
  });

  it('takes its level from SHIPYARD_LOG_LEVEL when none is given', () => {
    const saved = process.env.SHIPYARD_LOG_LEVEL;
    try {
      process.env.SHIPYARD_LOG_LEVEL = 'debug';
      assert.equal(createLogger({ component: 'x', destination: capture().stream }).level, 'debug');
      delete process.env.SHIPYARD_LOG_LEVEL;
      assert.equal(createLogger({ component: 'x', destination: capture().stream }).level, 'info');
    } finally {
      if (saved === undefined) delete process.env.SHIPYARD_LOG_LEVEL;
      else process.env.SHIPYARD_LOG_LEVEL = saved;
    }
  });

  it('redacts credentials at the top level and nested', () => {
    const out = capture();
    const log = createLogger({ component: 'x', destination: out.stream });
    log.info({
      token: 'tok-1',
      user: { token: 'tok-2', name: 'admin' },
      req: { headers: { authorization: 'Bearer tok-3', 'set-cookie': 'c', accept: 'application/json' } },
      headers: { authorization: 'Bearer tok-4' },
      auth: { password: 'pw' },
      kubeconfig: { user: { 'client-key-data': 'LS0t' } },
    });
    const text = JSON.stringify(out.lines()[0]);
    for (const secret of ['tok-1', 'tok-2', 'tok-3', 'tok-4', '"pw"', 'LS0t', '"c"']) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
    const line = out.lines()[0] as { user: { name: string; token: string }; req: { headers: { accept: string } } };
    assert.equal(line.user.name, 'admin');
    assert.equal(line.user.token, REDACTED);
    assert.equal(line.req.headers.accept, 'application/json');
  });

  it("censors a Secret's data values but keeps its keys, and leaves the caller's object alone", () => {
    const out = capture();
    const log = createLogger({ component: 'x', destination: out.stream });
    const secret = Object.freeze({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: Object.freeze({ 'tls.key': 'S0VZ' }), stringData: { pass: 'hunter2' } });
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'config.yaml': 'a: 1' } };
    log.info({ obj: secret, list: { items: [configMap, secret] } });
    const text = JSON.stringify(out.lines()[0]);
    assert.ok(!text.includes('S0VZ') && !text.includes('hunter2'), text);
    const line = out.lines()[0] as { obj: { data: Record<string, string>; metadata: { name: string } }; list: { items: { data: Record<string, string> }[] } };
    assert.deepEqual(line.obj.data, { 'tls.key': REDACTED });
    assert.equal(line.obj.metadata.name, 's');
    assert.deepEqual(line.list.items[0].data, { 'config.yaml': 'a: 1' });
    assert.deepEqual(line.list.items[1].data, { 'tls.key': REDACTED });
    assert.equal(secret.data['tls.key'], 'S0VZ');
  });

  it('child loggers carry controller, key and a reconcile id', () => {
    const out = capture();
    const log = createLogger({ component: 'controller-manager', destination: out.stream });
    const c = forController(log, 'replicaset');
    forReconcile(c, 'default/web').info('synced');
    forReconcile(c, 'default/web').info('synced');
    const [a, b] = out.lines();
    assert.equal(a.component, 'controller-manager');
    assert.equal(a.controller, 'replicaset');
    assert.equal(a.key, 'default/web');
    assert.match(String(a.reconcileID), /^[0-9a-f]{8}$/);
    assert.notEqual(a.reconcileID, b.reconcileID);
  });
});

describe('scrubSecrets', () => {
  it('returns the same object when there is nothing to censor', () => {
    const o = { a: { b: [1, { kind: 'Pod' }] } };
    assert.equal(scrubSecrets(o), o);
  });
});
