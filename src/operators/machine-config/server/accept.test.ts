import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateVersion } from './accept.ts';

const ign = (version: string, extra = '') => `application/vnd.coreos.ignition+json;version=${version}${extra}`;

function served(accept: string | undefined): string {
  const n = negotiateVersion(accept);
  assert.ok(n.ok, n.ok ? '' : n.message);
  return n.version;
}

describe('machine-config server: Ignition version negotiation', () => {
  it('serves 2.2.0 when no Ignition media range names a version (curl, a browser, no header), as the MCO does', () => {
    for (const accept of [undefined, '', '*/*', 'application/json', 'text/html,application/xhtml+xml;q=0.9', 'application/vnd.coreos.ignition+json', ign('3')]) {
      assert.equal(served(accept), '2.2.0', String(accept));
    }
  });

  it('serves the version Ignition asks for, matched by major and minor', () => {
    // What Ignition 2.x sends, and what our cloud's first boot sends.
    assert.equal(served(`${ign('3.4.0')}, */*;q=0.1`), '3.4.0');
    for (const v of ['3.0.0', '3.1.0', '3.2.0', '3.3.0']) assert.equal(served(`${ign(v)}, */*;q=0.1`), v);
    assert.equal(served(ign('3.2.1')), '3.2.0');
    assert.equal(served(ign('2.2.0')), '2.2.0');
    assert.equal(served('application/vnd.coreos.ignition+json ; version="3.1.0"'), '3.1.0');
  });

  it('a newer spec 3 gets the newest we write, which it reads; a newer 2.x gets 2.2.0', () => {
    assert.equal(served(ign('3.5.0')), '3.4.0');
    assert.equal(served(ign('3.6.0-experimental')), '3.4.0');
    // Ignition 0.x lists spec 2.4 first and spec 1 as a fallback.
    assert.equal(served('application/vnd.coreos.ignition+json; version=2.4.0, application/vnd.coreos.ignition+json; version=1; q=0.5, */*; q=0.1'), '2.2.0');
  });

  it('takes media ranges by descending q, ties in the order given', () => {
    assert.equal(served(`${ign('2.2.0', ';q=0.5')}, ${ign('3.1.0')}`), '3.1.0');
    assert.equal(served(`${ign('3.3.0')}, ${ign('3.1.0')}`), '3.3.0');
    assert.equal(served(`*/*;q=1, ${ign('3.2.0', ';q=0.2')}`), '3.2.0');
  });

  it('refuses a version it cannot produce, naming it and what is served', () => {
    for (const v of ['1.0.0', '2.1.0', '4.0.0']) {
      const n = negotiateVersion(`${ign(v)}, */*;q=0.1`);
      assert.equal(n.ok, false, v);
      assert.match(n.ok ? '' : n.message, new RegExp(`^unsupported Ignition version "${v.replace(/\./g, '\\.')}" in Accept header .* \\(served: 2\\.2\\.0, 3\\.0\\.0, 3\\.1\\.0, 3\\.2\\.0, 3\\.3\\.0, 3\\.4\\.0; a newer 3\\.x is served as 3\\.4\\.0\\)$`));
    }
  });
});
