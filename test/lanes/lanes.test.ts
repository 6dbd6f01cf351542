import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { root } from '../run-files.ts';
import { LANE_COUNT, laneFiles } from './lanes.ts';

describe('npm test lanes', () => {
  it('npm test runs every lane at once, each from its own entry', () => {
    const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.test!;
    assert.match(script, new RegExp(`--test-concurrency=${LANE_COUNT} `));
    assert.match(script, / test\/lanes\/\[0-9\]\.ts$/);
    for (let k = 0; k < LANE_COUNT; k++) assert.ok(existsSync(join(root, 'test', 'lanes', `${k}.ts`)), `test/lanes/${k}.ts`);
    assert.ok(LANE_COUNT <= 10, 'the [0-9] glob names at most 10 lanes');
  });

  it('every test file is in exactly one lane, and every datacenter e2e in a lane of its own share', (t) => {
    if (process.env.SHIPYARD_TEST_FILTER) return t.skip('SHIPYARD_TEST_FILTER narrows the lanes');
    const lanes = Array.from({ length: LANE_COUNT }, (_, k) => laneFiles(k));
    const all = lanes.flat();
    assert.equal(new Set(all).size, all.length, 'no file in two lanes');
    assert.ok(all.includes('test/lanes/lanes.test.ts'));
    for (const path of [...lanes[0]!, ...lanes[1]!]) {
      if (path.startsWith('test/e2e/')) assert.ok(!readFileSync(join(root, path), 'utf8').includes('startUp('), `${path} boots a datacenter but runs beside the unit tests`);
    }
    for (const lane of lanes.slice(2)) assert.ok(lane.length > 0 && lane.every((path) => path.startsWith('test/e2e/')), `a datacenter lane: ${lane.join(', ')}`);
  });
});
