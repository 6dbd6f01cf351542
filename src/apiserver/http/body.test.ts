import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { decodeBody, maxNestingDepth, mediaType, readBody } from './body.ts';

/** Serves one request, handing it to `read`, and sends `chunks` as its body (without Content-Length). */
async function withRequest<T>(chunks: string[], read: (req: IncomingMessage) => Promise<T>): Promise<T> {
  let result: Promise<T> | undefined;
  const server = createServer((req, res) => {
    result = read(req);
    result.then(
      () => res.end('ok'),
      () => res.destroy(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      for (const c of chunks) req.write(c);
      req.end();
    });
    return await result!;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

describe('readBody', () => {
  it('joins a body sent in several chunks', async () => {
    const body = await withRequest(['{"a":', '1', '}'], (req) => readBody(req));
    assert.equal(body.toString(), '{"a":1}');
  });

  it('reads an empty body as no bytes', async () => {
    const body = await withRequest([], (req) => readBody(req));
    assert.equal(body.length, 0);
  });

  it('refuses a streamed body past the limit, and stops reading it', async () => {
    let req: IncomingMessage | undefined;
    await assert.rejects(
      withRequest(['x'.repeat(10), 'y'.repeat(10)], (r) => readBody((req = r), 15)),
      (e: unknown) => e instanceof ApiError && e.code === 413,
    );
    assert.equal(req!.destroyed, true);
  });
});

describe('decodeBody', () => {
  const nested = (depth: number, inner: string): string => {
    let text = inner;
    for (let i = 0; i < depth; i++) text = i % 2 ? `[${text}]` : `{"a":1,"b":${text}}`;
    return text;
  };

  it(`takes documents nested ${maxNestingDepth} levels deep and refuses deeper ones`, () => {
    assert.doesNotThrow(() => decodeBody(Buffer.from(nested(maxNestingDepth, '1')), 'application/json'));
    assert.doesNotThrow(() => decodeBody(Buffer.from(nested(maxNestingDepth - 1, '{}')), 'application/json'));
    for (const inner of ['{}', '[]']) {
      assert.throws(
        () => decodeBody(Buffer.from(nested(maxNestingDepth, inner)), 'application/json'),
        (e: unknown) => e instanceof ApiError && e.code === 400 && /nested more than 100 levels/.test(e.message),
      );
    }
  });

  it('refuses a deep YAML document the same way', () => {
    const yaml = `${Array.from({ length: maxNestingDepth + 1 }, (_, i) => `${'  '.repeat(i)}a:`).join('\n')} 1\n`;
    assert.throws(() => decodeBody(Buffer.from(yaml), 'application/yaml'), (e: unknown) => e instanceof ApiError && e.code === 400);
  });
});

describe('mediaType', () => {
  it('reads the media type of a Content-Type, however often asked', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(mediaType('application/json'), 'application/json');
      assert.equal(mediaType('application/json'), 'application/json');
      assert.equal(mediaType(' Application/YAML ; charset=utf-8'), 'application/yaml');
      assert.equal(mediaType(undefined), '');
      assert.equal(mediaType(''), '');
      assert.equal(mediaType('application/apply-patch+yaml;charset=utf-8'), 'application/apply-patch+yaml');
    }
  });
});
