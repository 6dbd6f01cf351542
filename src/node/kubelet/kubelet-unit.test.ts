import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { flagValues, parseNodeLabels, parseTaints, readKubeletUnit } from './kubelet-unit.ts';
import { expandWords, parseUnitText, serviceCommand, splitWords, UnitSyntaxError } from './systemd-unit.ts';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function nodeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'shipyard-kubelet-unit-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The master unit as the template controller writes it (render/kubelet-unit.ts). */
const masterUnit = `[Unit]
Description=Kubernetes Kubelet
Wants=network-online.target

[Service]
Type=notify
ExecStartPre=/bin/mkdir --parents /etc/kubernetes/manifests
ExecStart=/usr/bin/kubelet \\
    --config=/etc/kubernetes/kubelet.conf \\
    --bootstrap-kubeconfig=/etc/kubernetes/kubeconfig \\
    --kubeconfig=/var/lib/kubelet/kubeconfig \\
    --node-labels=node-role.kubernetes.io/master,node-role.kubernetes.io/control-plane,node.openshift.io/os_id=rhcos \\
    --register-with-taints=node-role.kubernetes.io/master=:NoSchedule
Restart=always
RestartSec=10

[Install]
WantedBy=multi-user.target
`;

describe('systemd unit syntax', () => {
  it('joins continued lines (skipping comments between them), ignores comments, keeps sections', () => {
    const text = '# top\n[Service]\nExecStart=/bin/a \\\n  # a comment inside\n  --x=1 \\\n  --y\n; another\nRestart=always\n';
    assert.deepEqual(parseUnitText(text, 'u'), [
      { section: 'Service', key: 'ExecStart', value: '/bin/a  --x=1  --y' },
      { section: 'Service', key: 'Restart', value: 'always' },
    ]);
    assert.throws(() => parseUnitText('ExecStart=/bin/a\n', 'u.service'), /u\.service:1: assignment outside of a section/);
    assert.throws(() => parseUnitText('[Service]\nnot an assignment\n', 'u.service'), /u\.service:2: missing '='/);
  });

  it('splits words with quotes anywhere in a word, C escapes, and refuses an unbalanced quote', () => {
    assert.deepEqual(splitWords(`/bin/k --a="x y" '--b=1 2' --c=it\\'s --d=\\x41\\tB "" e`), ['/bin/k', '--a=x y', '--b=1 2', "--c=it's", '--d=A\tB', '', 'e']);
    assert.throws(() => splitWords('/bin/k "--a=1'), UnitSyntaxError);
  });

  it('expands ${NAME} within a word, $NAME as words of its own, $$ as $', () => {
    const env = { ID: 'rhcos', ARGS: '--v=2  --x', EMPTY: '' };
    assert.deepEqual(expandWords(['--l=os=${ID}', '$ARGS', '$EMPTY', 'cost=$$5', '${NOPE}x'], env), ['--l=os=rhcos', '--v=2', '--x', 'cost=$5', 'x']);
  });

  it('takes ExecStart from the unit and its drop-ins in name order, an empty assignment resetting it', () => {
    const root = nodeRoot({
      'etc/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --node-labels=a=1\n',
      'etc/systemd/system/kubelet.service.d/20-later.conf': '[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --node-labels=b=2\n',
      'etc/systemd/system/kubelet.service.d/10-env.conf': '[Service]\nEnvironment="ROLE=infra" OTHER=1\n',
      'etc/systemd/system/kubelet.service.d/README': 'not a drop-in',
    });
    const found = serviceCommand(root, 'kubelet.service');
    assert.equal(found.state, 'found');
    assert.deepEqual(found.state === 'found' && found.command, {
      argv: ['/usr/bin/kubelet', '--node-labels=b=2'],
      files: ['/etc/systemd/system/kubelet.service', '/etc/systemd/system/kubelet.service.d/10-env.conf', '/etc/systemd/system/kubelet.service.d/20-later.conf'],
    });
  });

  it('refuses two ExecStart= lines for a service and a missing required environment file, as systemd does', () => {
    const two = nodeRoot({ 'etc/systemd/system/kubelet.service': '[Service]\nExecStart=/a\nExecStart=/b\n' });
    assert.throws(() => serviceCommand(two, 'kubelet.service'), /more than one ExecStart= setting/);
    const env = nodeRoot({ 'etc/systemd/system/kubelet.service': '[Service]\nEnvironmentFile=/etc/kubelet-env\nExecStart=/a\n' });
    assert.throws(() => serviceCommand(env, 'kubelet.service'), /EnvironmentFile \/etc\/kubelet-env does not exist/);
  });

  it('reads environment files inside the node root (optional ones may be missing), strips command prefixes, and honours ":"', () => {
    const root = nodeRoot({
      'etc/systemd/system/kubelet.service': '[Service]\nEnvironment=ID=fedora\nEnvironmentFile=/etc/os-release\nEnvironmentFile=-/etc/missing\nExecStart=-/usr/bin/kubelet --node-labels=os=${ID}\n',
      'etc/os-release': 'NAME="Red Hat Enterprise Linux CoreOS"\nID="rhcos"\n# comment\n',
      'etc/systemd/system/literal.service': '[Service]\nExecStart=:/usr/bin/kubelet --node-labels=os=${ID}\n',
    });
    const found = serviceCommand(root, 'kubelet.service');
    assert.deepEqual(found.state === 'found' && found.command.argv, ['/usr/bin/kubelet', '--node-labels=os=rhcos'], 'the file wins over Environment=');
    const literal = serviceCommand(root, 'literal.service');
    assert.deepEqual(literal.state === 'found' && literal.command.argv, ['/usr/bin/kubelet', '--node-labels=os=${ID}']);
  });

  it('follows a unit linked inside the node root; a unit linked to /dev/null is masked', () => {
    const root = nodeRoot({ 'usr/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --node-labels=vendor=yes\n' });
    mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
    symlinkSync('/usr/lib/systemd/system/kubelet.service', join(root, 'etc/systemd/system/kubelet.service'));
    const found = serviceCommand(root, 'kubelet.service');
    assert.deepEqual(found.state === 'found' && found.command.argv, ['/usr/bin/kubelet', '--node-labels=vendor=yes']);
    const masked = nodeRoot({});
    mkdirSync(join(masked, 'etc/systemd/system'), { recursive: true });
    symlinkSync('/dev/null', join(masked, 'etc/systemd/system/kubelet.service'));
    assert.deepEqual(serviceCommand(masked, 'kubelet.service'), { state: 'masked', path: '/etc/systemd/system/kubelet.service' });
  });
});

describe('the kubelet\'s flags from its unit', () => {
  it('reads a flag in the = and the space form, repeated, up to --', () => {
    const argv = ['/usr/bin/kubelet', '--node-labels=a=1', '--v', '2', '--node-labels', 'b=2,c', '--node-labels-other=x', '--', '--node-labels=ignored'];
    assert.deepEqual(flagValues(argv, 'node-labels'), ['a=1', 'b=2,c']);
    assert.deepEqual(flagValues(['kubelet', '--node-labels'], 'node-labels'), [], 'a flag with no value after it has none');
  });

  it('labels: key alone is the empty value, spaces trimmed, later values win, invalid ones reported and left out', () => {
    const { labels, problems } = parseNodeLabels(['node-role.kubernetes.io/worker, node.openshift.io/os_id = rhcos,,a=1', 'a=2,bad key=1,ok=bad value']);
    assert.deepEqual(labels, { 'node-role.kubernetes.io/worker': '', 'node.openshift.io/os_id': 'rhcos', a: '2' });
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /^--node-labels: invalid label "bad key=1": key: name part must consist of/);
    assert.match(problems[1]!, /^--node-labels: invalid label "ok=bad value": value: a valid label must be/);
  });

  it('taints: key=value:effect, key=:effect and key:effect; bad effects and specs reported', () => {
    const { taints, problems } = parseTaints(['node-role.kubernetes.io/master=:NoSchedule,dedicated=infra:NoExecute', 'gpu:PreferNoSchedule,x=1:Sometimes,nocolon,dedicated=db:NoExecute']);
    assert.deepEqual(taints, [
      { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
      { key: 'dedicated', value: 'db', effect: 'NoExecute' },
      { key: 'gpu', effect: 'PreferNoSchedule' },
    ]);
    assert.deepEqual(problems, ['--register-with-taints: invalid taint spec "x=1:Sometimes": invalid taint effect: Sometimes, unsupported taint effect', '--register-with-taints: invalid taint spec: nocolon']);
  });

  it('a master\'s unit as the template controller writes it: its roles, the OS label and the master taint', () => {
    const root = nodeRoot({ 'etc/systemd/system/kubelet.service': masterUnit });
    assert.deepEqual(readKubeletUnit(root), {
      state: 'found',
      files: ['/etc/systemd/system/kubelet.service'],
      labels: { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '', 'node.openshift.io/os_id': 'rhcos' },
      taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }],
      problems: [],
    });
  });

  it('no unit: nothing, and it says so; a unit systemd would refuse: nothing, and why', () => {
    assert.deepEqual(readKubeletUnit(nodeRoot({})), { state: 'missing', files: ['/etc/systemd/system/kubelet.service'], labels: {}, taints: [], problems: [] });
    const broken = readKubeletUnit(nodeRoot({ 'etc/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet "--node-labels=a=1\n' }));
    assert.deepEqual({ ...broken, problems: [] }, { state: 'found', files: [], labels: {}, taints: [], problems: [] });
    assert.match(broken.problems[0]!, /unbalanced quotes/);
  });
});
