import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseImagesJson, providerFor } from './images.ts';

const payload = JSON.stringify({
  machineAPIOperator: 'shipyard.local/machine-api-operator:v0.1.0',
  clusterAPIControllerShipyard: 'shipyard.local/machine-controller:v0.1.0',
  clusterAPIControllerAWS: 'quay.io/openshift/aws-machine-controllers@sha256:1',
  kubeRBACProxy: '',
});

describe('images.json', () => {
  it('keeps every key with an image, the operator\'s own first among them', () => {
    const images = parseImagesJson(payload, 'images.json');
    assert.equal(images.machineAPIOperator, 'shipyard.local/machine-api-operator:v0.1.0');
    assert.deepEqual(Object.keys(images.all).sort(), ['clusterAPIControllerAWS', 'clusterAPIControllerShipyard', 'machineAPIOperator'], 'an empty value is as good as absent');
  });

  it('refuses what is not an object of strings, naming the file and the key', () => {
    assert.throws(() => parseImagesJson('{', '/etc/x/images.json'), /^Error: \/etc\/x\/images\.json: not valid JSON/);
    assert.throws(() => parseImagesJson('[]', 'f'), /f: must be a JSON object of image references/);
    assert.throws(() => parseImagesJson('{"machineAPIOperator": "a", "clusterAPIControllerShipyard": 3}', 'f'), /f: clusterAPIControllerShipyard must be a string \(an image reference\), not number/);
    assert.throws(() => parseImagesJson('{"clusterAPIControllerShipyard": "b"}', 'f'), /f: failed getting machineAPIOperator image\. It is empty/);
  });

  it('maps each platform to its machine controller image; a platform without one is NoOp', () => {
    const images = parseImagesJson(payload, 'images.json');
    assert.deepEqual(providerFor('Shipyard', images, 'images.json'), { noOp: false, platform: 'Shipyard', image: 'shipyard.local/machine-controller:v0.1.0' });
    assert.deepEqual(providerFor('AWS', images, 'images.json'), { noOp: false, platform: 'AWS', image: 'quay.io/openshift/aws-machine-controllers@sha256:1' });
    for (const platform of ['None', 'External', 'Kubemark2000']) assert.deepEqual(providerFor(platform, images, 'images.json'), { noOp: true, platform });
    assert.throws(() => providerFor('GCP', images, 'images.json'), /images\.json: failed getting the machine controller image for platform GCP: clusterAPIControllerGCP is empty/);
  });
});
