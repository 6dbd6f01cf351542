import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from './logger.ts';
import { klogDestination, klogLine, klogTime } from './klog.ts';

describe('klog lines', () => {
  it('formats a pino record as klog does: level letter, month and day, time to the microsecond, pid, source, message, fields', () => {
    const at = new Date(2020, 7, 16, 6, 58, 42, 985).getTime();
    const line = klogLine(JSON.stringify({ level: 30, time: at, pid: 3240, component: 'machine-config-daemon', src: 'update', msg: 'Checking Reconcilable for config A to B' }));
    assert.equal(line, 'I0816 06:58:42.985000    3240 update] Checking Reconcilable for config A to B\n');
    assert.equal(klogTime(at), '0816 06:58:42.985000');
    const e = klogLine(JSON.stringify({ level: 50, time: at, pid: 7, component: 'c', msg: 'Marking Degraded due to: x', node: 'worker-0', err: { type: 'Error', message: 'boom', stack: '...' } }));
    assert.equal(e, 'E0816 06:58:42.985000       7 c] Marking Degraded due to: x node="worker-0" err="boom"\n');
    assert.match(klogLine(JSON.stringify({ level: 40, time: at, msg: 'w' })), /^W0816 /);
    assert.equal(klogLine('not json'), 'not json\n');
  });

  it('is a pino destination: the logger keeps its levels, bindings and redaction, and writes text', () => {
    const written: string[] = [];
    const logger = createLogger({ component: 'machine-config-daemon', level: 'info', destination: klogDestination({ write: (s: string) => written.push(s) }) });
    logger.child({ src: 'drain' }).error('error when evicting pod "router" (will retry after 5s): Cannot evict pod as it would violate the pod\'s disruption budget.');
    logger.info({ token: 'secret' }, 'with a credential');
    logger.debug('not shown');
    assert.equal(written.length, 2);
    assert.match(written[0]!, /^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ drain\] error when evicting pod "router" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\.\n$/);
    assert.match(written[1]!, / machine-config-daemon\] with a credential token="\[Redacted\]"\n$/);
  });
});
