import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem } from './problems.ts';
import { parseObject } from './parse.ts';

function problems(body: Record<string, unknown>, version = '3.4.0'): { errors: string[]; warnings: string[] } {
  const result = parseObject({ ignition: { version }, ...body });
  return {
    errors: result.ok ? [] : result.errors.map(formatProblem),
    warnings: result.warnings.map(formatProblem),
  };
}

const unit = (name: string, extra: Record<string, unknown> = {}) => ({ systemd: { units: [{ name, ...extra }] } });

describe('ignition validation', () => {
  it('paths must be present, absolute and fully simplified', () => {
    assert.deepEqual(problems({ storage: { files: [{ path: '/ok' }, { path: '' }, { path: 'etc/x' }, { path: '/etc/../x' }, { path: '/etc/' }] } }).errors, [
      'storage.files[1].path: is required',
      'storage.files[2].path: must be absolute (got "etc/x")',
      'storage.files[3].path: must be fully simplified ("/x", not "/etc/../x")',
      'storage.files[4].path: must be fully simplified ("/etc", not "/etc/")',
    ]);
  });

  it('one path may appear once across files, directories and links', () => {
    const { errors } = problems({
      storage: { directories: [{ path: '/etc/a' }], files: [{ path: '/etc/a' }, { path: '/etc/b' }, { path: '/etc/b' }], links: [{ path: '/etc/b', target: '/x' }] },
    });
    assert.deepEqual(errors, [
      'storage.files[0]: duplicate path "/etc/a" (also storage.directories[0])',
      'storage.files[2]: duplicate path "/etc/b" (also storage.files[1])',
      'storage.links[0]: duplicate path "/etc/b" (also storage.files[1])',
    ]);
  });

  it('modes stay within 07777; special bits only warn', () => {
    const { errors, warnings } = problems({ storage: { files: [{ path: '/a', mode: 0o10000 }, { path: '/b', mode: 0o4755 }], directories: [{ path: '/d', mode: -1 }] } });
    assert.deepEqual(errors, [
      'storage.directories[0].mode: illegal file mode -1: must be between 0 and 07777 octal',
      'storage.files[0].mode: illegal file mode 4096 (010000): must be between 0 and 07777 octal',
    ]);
    assert.deepEqual(warnings, ['storage.files[1].mode: setuid/setgid/sticky bits are not supported before spec 3.6.0']);
  });

  it('overwrite needs a source; owners take an id or a name', () => {
    const { errors } = problems({ storage: { files: [{ path: '/a', overwrite: true, user: { id: 0, name: 'root' } }] } });
    assert.deepEqual(errors, ['storage.files[0].user: cannot set both id and name', 'storage.files[0].overwrite: must be false if contents.source is unspecified']);
  });

  it('sources: data and http(s) accepted, others refused by name', () => {
    const files = [
      { path: '/a', contents: { source: 'data:;base64,aGVsbG8=' } },
      { path: '/b', contents: { source: 'https://localhost:22623/config/worker' } },
      { path: '/c', contents: { source: 's3://bucket/key' } },
      { path: '/d', contents: { source: 'tftp://localhost/x' } },
      { path: '/e', contents: { source: 'gopher://localhost/x' } },
      { path: '/f', contents: { source: 'data:;base64,@@@' } },
      { path: '/g', contents: { source: 'no scheme' } },
    ];
    assert.deepEqual(problems({ storage: { files } }).errors, [
      'storage.files[2].contents.source: url scheme "s3" is not supported here (supported: data, http, https)',
      'storage.files[3].contents.source: url scheme "tftp" is not supported here (supported: data, http, https)',
      'storage.files[4].contents.source: invalid url scheme "gopher"',
      'storage.files[5].contents.source: invalid data URL: malformed base64',
      'storage.files[6].contents.source: unable to parse url "no scheme": no scheme',
    ]);
  });

  it('compression, hashes and headers', () => {
    const sha512 = `sha512-${'a'.repeat(128)}`;
    const files = [
      { path: '/a', contents: { source: 'data:,x', compression: 'xz' } },
      { path: '/b', contents: { source: 'data:,x', verification: { hash: 'md5-abc' } } },
      { path: '/c', contents: { source: 'data:,x', verification: { hash: 'sha512-abc' } } },
      { path: '/d', contents: { source: 'data:,x', verification: { hash: sha512 } } },
      { path: '/e', contents: { verification: { hash: sha512 } } },
      { path: '/f', contents: { source: 'data:,x', httpHeaders: [{ name: 'A', value: '1' }] } },
      { path: '/g', contents: { source: 'http://localhost/x', httpHeaders: [{ name: 'A', value: '1' }, { name: 'a', value: '2' }, { name: '' }] } },
    ];
    assert.deepEqual(problems({ storage: { files } }).errors, [
      'storage.files[0].contents.compression: invalid compression method "xz" (supported: "gzip" or none)',
      'storage.files[1].contents.verification.hash: unrecognized hash function "md5"',
      'storage.files[2].contents.verification.hash: incorrect size for hash sum: expected 128 hex digits',
      'storage.files[4].contents.verification.hash: source must be specified if verification is specified',
      'storage.files[5].contents.httpHeaders: HTTP headers need an http or https source',
      'storage.files[6].contents.httpHeaders[1]: duplicate HTTP header "a"',
      'storage.files[6].contents.httpHeaders[2].name: HTTP header name can\'t be empty',
    ]);
  });

  it('sha256 hashes need spec 3.2', () => {
    const file = { path: '/a', contents: { source: 'data:,x', verification: { hash: `sha256-${'0'.repeat(64)}` } } };
    assert.deepEqual(problems({ storage: { files: [file] } }, '3.2.0').errors, []);
    assert.deepEqual(problems({ storage: { files: [file] } }, '3.1.0').errors, ['storage.files[0].contents.verification.hash: unrecognized hash function "sha256"']);
  });

  it('config references and CAs need a source', () => {
    const { errors } = problems({ ignition: { version: '3.4.0', config: { merge: [{}] }, security: { tls: { certificateAuthorities: [{ source: '' }] } } } });
    assert.deepEqual(errors, ['ignition.config.merge[0].source: is required', 'ignition.security.tls.certificateAuthorities[0].source: is required']);
  });

  it('links: target required, nothing beneath a link, no hard link to a directory', () => {
    const { errors, warnings } = problems({
      storage: {
        directories: [{ path: '/data' }, { path: '/opt/app/etc' }],
        files: [{ path: '/opt/app/conf' }],
        links: [{ path: '/opt/app', target: '/srv/app' }, { path: '/x' }, { path: '/h', target: '/data', hard: true, user: { id: 1 } }],
      },
    });
    assert.deepEqual(errors, [
      'storage.directories[1]: path "/opt/app/etc" is beneath link "/opt/app" created by this config',
      'storage.files[0]: path "/opt/app/conf" is beneath link "/opt/app" created by this config',
      'storage.links[1].target: is required',
      'storage.links[2]: hard link target "/data" is a directory',
    ]);
    assert.deepEqual(warnings, ['storage.links[2]: user/group are ignored for hard links']);
  });

  it('unit names need a known suffix, stay one path segment and are unique', () => {
    assert.deepEqual(problems(unit('kubelet')).errors, [
      'systemd.units[0].name: invalid systemd unit extension in "kubelet" (must end in one of .service, .socket, .device, .mount, .automount, .swap, .target, .path, .timer, .snapshot, .slice, .scope)',
    ]);
    assert.deepEqual(problems(unit('../../etc/passwd.service')).errors, ['systemd.units[0].name: "../../etc/passwd.service" must be a single path segment (no "/")']);
    assert.deepEqual(problems({ systemd: { units: [{ name: 'a.service' }, { name: 'a.service' }] } }).errors, ['systemd.units[1]: duplicate unit "a.service"']);
    assert.deepEqual(problems(unit('a.timer')).errors, []);
  });

  it('drop-ins end in .conf; unit contents must parse', () => {
    const { errors } = problems(unit('a.service', { contents: 'ExecStart=/bin/true', dropins: [{ name: '10-x', contents: '[Service]\nEnvironment=A=1' }, { name: '20-y.conf', contents: '[Service]\njunk' }] }));
    assert.deepEqual(errors, [
      'systemd.units[0].contents: invalid unit content: line 1: property outside of any [Section]',
      'systemd.units[0].dropins[0].name: invalid systemd drop-in extension in "10-x" (must end in .conf)',
      'systemd.units[0].dropins[1].contents: invalid unit content: line 2: expected "key=value"',
    ]);
  });

  it('warns when an enabled unit has no [Install] section', () => {
    const { errors, warnings } = problems(unit('a.service', { enabled: true, contents: '[Service]\nExecStart=/bin/true \\\n  --flag\n' }));
    assert.deepEqual(errors, []);
    assert.deepEqual(warnings, ['systemd.units[0].contents: unit "a.service" is enabled, but has no [Install] section so enable does nothing']);
  });

  it('files may not collide with unit files the config writes', () => {
    const { errors } = problems({ ...unit('a.service', { contents: '[Service]\nA=1' }), storage: { files: [{ path: '/etc/systemd/system/a.service' }] } });
    assert.deepEqual(errors, ['storage.files[0].path: conflicts with systemd unit or drop-in "/etc/systemd/system/a.service"']);
  });

  it('users: unique, single-segment names and absolute home directories', () => {
    const { errors } = problems({ passwd: { users: [{ name: 'core' }, { name: 'core' }, { name: 'a/b' }, { name: 'x', homeDir: 'home/x' }], groups: [{ name: 'g' }, { name: 'g' }] } });
    assert.deepEqual(errors, [
      'passwd.users[1]: duplicate user "core"',
      'passwd.users[2].name: "a/b" must be a single path segment (no "/")',
      'passwd.users[3].homeDir: must be absolute (got "home/x")',
      'passwd.groups[1]: duplicate group "g"',
    ]);
  });
});
