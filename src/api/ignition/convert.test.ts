import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertConfig } from './convert.ts';
import { encodeDataUrl } from './data-url.ts';
import { parseObject } from './parse.ts';
import { formatProblem } from './problems.ts';
import type { IgnitionConfig, IgnitionV2Config } from './types.ts';
import { supportedVersions } from './version.ts';

const script = '#!/usr/bin/bash\nset -x\necho extra config\n';

/** Shaped as the seed's 99-kubeinit-extra-config-worker: spec 2.2, a base64 data URL, mode 0755, empty sections. */
const seedLike = {
  ignition: { config: { replace: { verification: {} } }, security: { tls: {} }, timeouts: {}, version: '2.2.0' },
  networkd: {},
  passwd: {},
  storage: {
    files: [
      {
        contents: { source: `data:text/plain;charset=utf-8;base64,${Buffer.from(script).toString('base64')}`, verification: {} },
        filesystem: 'root',
        mode: 0o755,
        path: '/usr/local/bin/kubeinit_kubevirt_extra_config_script',
      },
    ],
  },
  systemd: {},
};

function parsed(value: unknown): IgnitionConfig {
  const result = parseObject(value);
  assert.ok(result.ok, result.ok ? '' : result.errors.map(formatProblem).join('\n'));
  return result.config;
}

function converted(config: IgnitionConfig, version: string): IgnitionConfig | IgnitionV2Config {
  const result = convertConfig(config, version);
  assert.ok(result.ok, result.ok ? '' : result.errors.map(formatProblem).join('\n'));
  return result.config;
}

function problems(config: IgnitionConfig, version: string): string[] {
  const result = convertConfig(config, version);
  assert.equal(result.ok, false, `expected ${version} to be refused`);
  return result.ok ? [] : result.errors.map(formatProblem);
}

/** A config without its version and without the empty sections that say nothing. */
function meaning(config: IgnitionConfig): unknown {
  const prune = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(prune);
    if (typeof v !== 'object' || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      if (p !== undefined && !(typeof p === 'object' && p !== null && Object.keys(p).length === 0)) out[k] = p;
    }
    return out;
  };
  return prune({ ...config, ignition: { ...config.ignition, version: undefined } });
}

const v34 = (rest: Omit<IgnitionConfig, 'ignition'> & { ignition?: Partial<IgnitionConfig['ignition']> } = {}): IgnitionConfig => ({
  ...rest,
  ignition: { version: '3.4.0', ...rest.ignition },
});

/** What a rendered config holds: a file, a directory, a link, units, core's keys. */
const everyday = v34({
  storage: {
    files: [
      { path: '/etc/kubernetes/kubelet.conf', overwrite: true, mode: 0o644, contents: { source: encodeDataUrl('kind: KubeletConfiguration\n') } },
      { path: '/usr/local/bin/x', overwrite: true, mode: 0o755, user: { name: 'root' }, contents: { source: encodeDataUrl('gz', { base64: true }), compression: 'gzip' } },
    ],
    directories: [{ path: '/var/lib/x', mode: 0o700 }],
    links: [{ path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC', hard: false }],
  },
  systemd: { units: [{ name: 'kubelet.service', enabled: true, contents: '[Service]\nExecStart=/bin/kubelet\n', dropins: [{ name: '10-x.conf', contents: '[Service]\n' }] }] },
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA core'] }] },
});

describe('ignition conversion between spec versions', () => {
  it('writes the seed-shaped 2.2 config back as 2.2 and as every 3.x, each reading back to the same config', () => {
    const config = parsed(seedLike);
    for (const version of supportedVersions) {
      const out = converted(config, version);
      assert.equal(out.ignition.version, version);
      const back = parsed(JSON.parse(JSON.stringify(out)));
      assert.deepEqual(meaning(back), meaning(config), version);
    }
    const v2 = converted(config, '2.2.0') as IgnitionV2Config;
    assert.deepEqual(v2.storage?.files, [
      { filesystem: 'root', path: '/usr/local/bin/kubeinit_kubevirt_extra_config_script', overwrite: true, mode: 0o755, contents: { source: seedLike.storage.files[0]!.contents.source } },
    ]);
    assert.equal(v2.ignition.config, undefined, 'a reference without a source names nothing and is not written');
  });

  it('an everyday rendered config reads back the same from every supported version', () => {
    for (const version of supportedVersions) {
      const back = parsed(JSON.parse(JSON.stringify(converted(everyday, version))));
      assert.deepEqual(back.storage, everyday.storage, version);
      assert.deepEqual(back.systemd, everyday.systemd, version);
      assert.deepEqual(back.passwd, everyday.passwd, version);
    }
  });

  it('going up within spec 3 only changes the version', () => {
    const config = parsed({ ignition: { version: '3.0.0' }, storage: { files: [{ path: '/a', contents: { source: 'data:,a' } }] } });
    assert.deepEqual(converted(config, '3.4.0'), { ...config, ignition: { version: '3.4.0' } });
  });

  it('does not change the config it is given', () => {
    const before = structuredClone(everyday);
    converted(everyday, '2.2.0');
    converted(everyday, '3.0.0');
    assert.deepEqual(everyday, before);
  });

  it('a field the older spec lacks is dropped when it says nothing and named when it says something', () => {
    assert.equal((converted(v34({ kernelArguments: { shouldExist: [] } }), '3.2.0') as IgnitionConfig).kernelArguments, undefined);
    assert.deepEqual(problems(v34({ kernelArguments: { shouldExist: ['nosmt'] } }), '3.2.0'), ['kernelArguments: requires spec version 3.3.0 or later, not 3.2.0']);
    const users = v34({ passwd: { users: [{ name: 'core', shouldExist: true }, { name: 'old', shouldExist: false }] } });
    assert.deepEqual(problems(users, '3.1.0'), ['passwd.users[1].shouldExist: requires spec version 3.2.0 or later, not 3.1.0']);
    const kept = converted(v34({ passwd: { users: [{ name: 'core', shouldExist: true }] } }), '3.1.0') as IgnitionConfig;
    assert.deepEqual(kept.passwd?.users, [{ name: 'core' }], 'shouldExist: true is what leaving it out means');
  });

  it('spec 3.0 has no HTTP headers, proxies or compressed config references', () => {
    const config = v34({
      ignition: { proxy: { httpsProxy: 'http://127.0.0.1:3128' }, config: { merge: [{ source: 'https://127.0.0.1:22623/config/worker', compression: 'gzip' }] } },
      storage: { files: [{ path: '/a', contents: { source: 'https://127.0.0.1/a', httpHeaders: [{ name: 'Authorization', value: 'Bearer x' }] } }] },
    });
    assert.deepEqual(problems(config, '3.0.0'), [
      'ignition.proxy: requires spec version 3.1.0 or later, not 3.0.0',
      'ignition.config.merge[0].compression: requires spec version 3.1.0 or later, not 3.0.0',
      'storage.files[0].contents.httpHeaders: requires spec version 3.1.0 or later, not 3.0.0',
    ]);
    assert.ok(convertConfig(config, '3.1.0').ok);
  });

  it('special mode bits need 3.4, a link without a target 3.3, sha256 and partition resize 3.2', () => {
    const sticky = v34({ storage: { directories: [{ path: '/tmp/x', mode: 0o1777 }] } });
    assert.ok(convertConfig(sticky, '3.4.0').ok);
    assert.deepEqual(problems(sticky, '3.3.0'), ['storage.directories[0].mode: spec 3.3.0 has no special mode bits (setuid, setgid, sticky)']);
    const link = v34({ storage: { links: [{ path: '/etc/keep', overwrite: false }] } });
    assert.ok(convertConfig(link, '3.3.0').ok);
    assert.deepEqual(problems(link, '3.2.0'), ['storage.links[0].target: is required in spec 3.2.0']);
    const sha256 = v34({ storage: { files: [{ path: '/a', contents: { source: 'data:,a', verification: { hash: `sha256-${'a'.repeat(64)}` } } }], disks: [{ device: '/dev/vda', partitions: [{ number: 4, resize: true }] }] } });
    assert.ok(convertConfig(sha256, '3.2.0').ok);
    assert.deepEqual(problems(sha256, '3.1.0'), ['storage.files[0].contents.verification.hash: spec 3.1.0 has no sha256 hashes', 'storage.disks[0].partitions[0].resize: spec 3.1.0 has no partition resize']);
  });

  it('spec 2.2 refuses what it cannot say, every field at once', () => {
    const config = v34({
      ignition: { proxy: { noProxy: ['127.0.0.1'] }, security: { tls: { certificateAuthorities: [{ source: 'data:,ca', compression: 'gzip' }] } } },
      storage: {
        files: [{ path: '/a', contents: { source: 'https://127.0.0.1/a', httpHeaders: [{ name: 'X', value: 'y' }], verification: { hash: `sha256-${'a'.repeat(64)}` } } }],
        luks: [{ name: 'root', device: '/dev/vda4' }],
        disks: [{ device: '/dev/vda', partitions: [{ number: 5, sizeMiB: 100 }] }],
        filesystems: [{ device: '/dev/vda5', format: 'xfs', path: '/var', mountOptions: ['noatime'] }],
      },
      passwd: { groups: [{ name: 'old', shouldExist: false }] },
    });
    assert.deepEqual(problems(config, '2.2.0'), [
      'storage.files[0].contents.verification.hash: spec 2.2.0 has no sha256 hashes',
      'ignition.proxy: spec 2.2.0 has no HTTP proxies',
      'ignition.security.tls.certificateAuthorities[0].compression: spec 2.2.0 has no compressed config references and CAs',
      'storage.files[0].contents.httpHeaders: spec 2.2.0 has no HTTP headers',
      'storage.luks: spec 2.2.0 has no LUKS volumes',
      'passwd.groups[0].shouldExist: spec 2.2.0 has no groups that should not exist',
      'storage.disks[0].partitions[0].sizeMiB: spec 2.2.0 has no partition sizes in MiB',
      'storage.filesystems[0].mountOptions: spec 2.2.0 has no filesystem mount options',
    ]);
  });

  it('spec 2.2 writes appends as appending entries, keeps spec 3 overwrite semantics, and names filesystems by mount point', () => {
    const config = v34({
      ignition: { config: { merge: [{ source: 'https://127.0.0.1:22623/config/worker', verification: { hash: `sha512-${'b'.repeat(128)}` } }] } },
      storage: {
        filesystems: [{ device: '/dev/vdb1', format: 'xfs', path: '/var/lib/data', wipeFilesystem: true }],
        files: [
          { path: '/etc/motd', contents: { source: 'data:,hello' }, append: [{ source: 'data:,%20world' }], mode: 0o644 },
          { path: '/var/lib/data/x', overwrite: true, contents: { source: 'data:,x' } },
          { path: '/var/lib/database', overwrite: true, contents: { source: 'data:,db' } },
        ],
      },
      systemd: { units: [{ name: 'a.service', enabled: false }] },
    });
    const v2 = converted(config, '2.2.0') as IgnitionV2Config;
    assert.deepEqual(v2.ignition, { version: '2.2.0', config: { append: [{ source: 'https://127.0.0.1:22623/config/worker', verification: { hash: `sha512-${'b'.repeat(128)}` } }] } });
    assert.deepEqual(v2.storage?.filesystems, [{ name: '/var/lib/data', mount: { device: '/dev/vdb1', format: 'xfs', wipeFilesystem: true } }]);
    assert.deepEqual(v2.storage?.files, [
      { filesystem: 'root', path: '/etc/motd', overwrite: false, mode: 0o644, contents: { source: 'data:,hello' } },
      { filesystem: 'root', path: '/etc/motd', overwrite: false, mode: 0o644, append: true, contents: { source: 'data:,%20world' } },
      { filesystem: '/var/lib/data', path: '/x', overwrite: true, contents: { source: 'data:,x' } },
      { filesystem: 'root', path: '/var/lib/database', overwrite: true, contents: { source: 'data:,db' } },
    ]);
    assert.deepEqual(v2.systemd, { units: [{ name: 'a.service', enabled: false }] });
  });

  it('refuses a version it does not write', () => {
    for (const version of ['2.1.0', '3.5.0', '4.0.0', 'latest']) {
      assert.match(problems(everyday, version).join(), /^ignition\.version: unsupported config version .* \(supported: 2\.2\.0, 3\.0\.0/, version);
    }
  });
});
