import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from './problems.ts';
import { parse, parseObject, parseOrThrow } from './parse.ts';

function errorsOf(config: unknown): string[] {
  const result = typeof config === 'string' ? parse(config) : parseObject(config);
  assert.equal(result.ok, false, 'expected the config to be refused');
  return result.ok ? [] : result.errors.map(formatProblem);
}

describe('ignition parse', () => {
  it('reads a 3.4 config with files, units and users', () => {
    const result = parse(
      JSON.stringify({
        ignition: { version: '3.4.0' },
        storage: { files: [{ path: '/etc/motd', mode: 420, contents: { source: 'data:,hello' } }] },
        systemd: { units: [{ name: 'kubelet.service', enabled: true, contents: '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n' }] },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA core@local'] }] },
        kernelArguments: { shouldExist: ['nosmt'] },
      }),
    );
    assert.ok(result.ok);
    assert.equal(result.config.ignition.version, '3.4.0');
    assert.equal(result.config.storage?.files?.[0]?.mode, 420);
    assert.deepEqual(result.config.kernelArguments, { shouldExist: ['nosmt'] });
    assert.deepEqual(result.warnings, []);
  });

  it('refuses empty text, bad JSON and non-objects', () => {
    assert.deepEqual(errorsOf('  '), ['not a config (empty)']);
    assert.match(errorsOf('{"ignition":')[0]!, /^config is not valid JSON/);
    assert.deepEqual(errorsOf('[1]'), ['config must be a JSON object']);
  });

  it('names the version problem and lists what is supported', () => {
    assert.deepEqual(errorsOf({ storage: {} }), ['ignition.version: is required']);
    assert.deepEqual(errorsOf({ ignition: { version: 3 } }), ['ignition.version: must be a string']);
    assert.deepEqual(errorsOf({ ignition: { version: 'three' } }), ['ignition.version: invalid config version "three" (couldn\'t parse)']);
    assert.deepEqual(errorsOf({ ignition: { version: '3.9.0' } }), [
      'ignition.version: unsupported config version "3.9.0" (supported: 2.2.0, 3.0.0, 3.1.0, 3.2.0, 3.3.0, 3.4.0)',
    ]);
    assert.equal(errorsOf({ ignition: { version: '3.5.0-experimental' } }).length, 1);
  });

  it('reports wrong JSON types at their path', () => {
    const errors = errorsOf({ ignition: { version: '3.2.0' }, storage: { files: [{ path: '/a' }, { path: '/b', mode: 'rw' }, { path: 3 }] }, systemd: { units: {} } });
    assert.deepEqual(errors, ['storage.files[1].mode: must be an integer', 'storage.files[2].path: must be a string', 'systemd.units: must be a list']);
  });

  it('warns about unknown keys and fields newer than the version, and drops them', () => {
    const result = parseObject({
      ignition: { version: '3.0.0', proxy: { httpProxy: 'http://localhost:3128' } },
      storage: { files: [{ path: '/a', colour: 'blue' }] },
      kernelArguments: { shouldExist: ['x'] },
    });
    assert.ok(result.ok);
    assert.deepEqual(result.warnings.map(formatProblem), [
      'ignition.proxy: requires spec version 3.1.0 or later (ignored)',
      'storage.files[0].colour: unknown key (ignored)',
      'kernelArguments: requires spec version 3.3.0 or later (ignored)',
    ]);
    assert.equal(result.config.ignition.proxy, undefined);
    assert.equal(result.config.kernelArguments, undefined);
    assert.deepEqual(result.config.storage?.files, [{ path: '/a' }]);
  });

  it('treats null as unset, except for an HTTP header value', () => {
    const result = parseObject({
      ignition: { version: '3.4.0', config: { merge: [{ source: 'http://localhost/x', httpHeaders: [{ name: 'X-A', value: null }] }] } },
      storage: { files: [{ path: '/a', mode: null }] },
    });
    assert.ok(result.ok);
    assert.deepEqual(result.config.storage?.files, [{ path: '/a' }]);
    assert.deepEqual(result.config.ignition.config?.merge?.[0]?.httpHeaders, [{ name: 'X-A', value: null }]);
  });

  it('parseOrThrow throws with every problem in the message', () => {
    assert.throws(
      () => parseOrThrow(JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: [{ path: 'etc/a' }, { path: '/b', mode: 99999 }] } })),
      (err: Error) => /storage\.files\[0\]\.path: must be absolute/.test(err.message) && /storage\.files\[1\]\.mode: illegal file mode/.test(err.message),
    );
  });
});
