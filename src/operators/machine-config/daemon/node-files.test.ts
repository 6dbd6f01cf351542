import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { nodeAnnotations } from '../../../api/machineconfiguration/index.ts';
import { file, modeOf, nodeConfig, readText, TempRoots } from '../../../noderoot/testing.ts';
import { DriftWatch, fingerprint } from './drift.ts';
import {
  currentConfigPath,
  forceFilePresent,
  journalPath,
  readCurrentConfig,
  readInitialAnnotations,
  readJournal,
  removeForceFile,
  removeJournal,
  storedConfig,
  writeCurrentConfig,
  writeJournal,
} from './node-files.ts';

const roots = new TempRoots();
after(roots.removeAll);

const A = storedConfig({ metadata: { name: 'rendered-worker-a' }, spec: { config: { ignition: { version: '3.4.0' } } } });
const B = storedConfig({ metadata: { name: 'rendered-worker-b' }, spec: { config: { ignition: { version: '3.4.0' } }, kernelArguments: ['x=1'] } });

describe('what the daemon keeps in the node root', () => {
  it('the current config: a copy of name and spec only, readable by root alone', async () => {
    const root = await roots.make();
    assert.equal(await readCurrentConfig(root), undefined);
    await writeCurrentConfig(root, storedConfig({ metadata: { name: 'rendered-worker-b', uid: 'u', resourceVersion: '9' }, spec: B.spec } as never));
    assert.deepEqual(await readCurrentConfig(root), B);
    assert.equal(await modeOf(root, currentConfigPath), 0o600);
  });

  it('the update journal, phase by phase, and its removal', async () => {
    const root = await roots.make();
    assert.equal(await readJournal(root), undefined);
    await writeJournal(root, { phase: 'draining', from: A, to: B, cordoned: true });
    assert.equal((await readJournal(root))?.phase, 'draining');
    await writeJournal(root, { phase: 'rebooting', from: A, to: B, cordoned: true, reboot: true, rebootReason: 'kernel arguments changed', bootID: 'boot-1' });
    assert.deepEqual(await readJournal(root), { phase: 'rebooting', from: A, to: B, cordoned: true, reboot: true, rebootReason: 'kernel arguments changed', bootID: 'boot-1' });
    await removeJournal(root);
    await removeJournal(root);
    assert.equal(await readJournal(root), undefined);
    await writeFile(join(root, journalPath), '{"phase":"sleeping"}');
    await assert.rejects(readJournal(root), /unknown phase "sleeping"/);
    await writeFile(join(root, journalPath), '{');
    await assert.rejects(readJournal(root), /could not read \/etc\/machine-config-daemon\/update\.json/);
  });

  it('the config server’s first annotations, only the ones the daemon knows', async () => {
    const root = await roots.make();
    assert.equal(await readInitialAnnotations(root), undefined);
    await mkdir(join(root, 'etc/machine-config-daemon'), { recursive: true });
    await writeFile(join(root, 'etc/machine-config-daemon/node-annotations.json'), JSON.stringify({ [nodeAnnotations.currentConfig]: 'rendered-worker-a', [nodeAnnotations.desiredConfig]: 'rendered-worker-a', [nodeAnnotations.state]: 'Done', other: 'x' }));
    assert.deepEqual(await readInitialAnnotations(root), { [nodeAnnotations.currentConfig]: 'rendered-worker-a', [nodeAnnotations.desiredConfig]: 'rendered-worker-a', [nodeAnnotations.state]: 'Done' });
  });

  it('the force file, consumed', async () => {
    const root = await roots.make();
    assert.equal(await forceFilePresent(root), false);
    await mkdir(join(root, 'run'));
    await writeFile(join(root, 'run/machine-config-daemon-force'), '');
    assert.equal(await forceFilePresent(root), true);
    await removeForceFile(root);
    assert.equal(await forceFilePresent(root), false);
  });
});

describe('drift: a managed file changed on disk', () => {
  it('is noticed by its stat, whatever changed: contents, mode, removal; other files do not count', async () => {
    const root = await roots.make();
    const config = nodeConfig('rendered-worker-a', { files: [file('/etc/a.conf', 'a'), file('/usr/local/bin/tool', '#!/bin/sh\n', 0o755)] });
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(join(root, 'etc/a.conf'), 'a');
    const watch = new DriftWatch(root);
    assert.equal(await watch.changed(), false, 'nothing is watched before a config is known');
    await watch.watch(config);
    assert.equal(await watch.changed(), false);
    await writeFile(join(root, 'etc/unmanaged'), 'x');
    assert.equal(await watch.changed(), false, 'a file no config names is not drift');
    const before = await fingerprint(root, config);
    await writeFile(join(root, 'etc/a.conf'), 'hand edit, same size? no');
    assert.equal(await watch.changed(), true);
    assert.equal(await watch.changed(), false, 'a change is reported once');
    assert.notEqual(await fingerprint(root, config), before);
    await mkdir(join(root, 'usr/local/bin'), { recursive: true });
    await writeFile(join(root, 'usr/local/bin/tool'), '#!/bin/sh\n');
    assert.equal(await watch.changed(), true, 'a managed file appearing counts');
    watch.stop();
    await writeFile(join(root, 'etc/a.conf'), 'a');
    assert.equal(await watch.changed(), false, 'not while an update rewrites the files');
    assert.equal(await readText(root, '/etc/a.conf'), 'a');
  });
});
