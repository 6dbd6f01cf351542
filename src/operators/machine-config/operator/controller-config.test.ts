import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Infrastructure } from '../../../api/config/index.ts';
import { validateMachineConfig } from '../../../api/machineconfiguration/index.ts';
import { renderBootstrap } from '../render/render.ts';
import { renderTemplates } from '../render/templates.ts';
import { clusterDNSIP, controllerConfigFor, generatedByVersionAnnotation, type ControllerConfigInputs } from './controller-config.ts';
import { parseImagesJson } from './images.ts';
import { builtinPools } from './operands.ts';

const images = parseImagesJson(
  JSON.stringify({
    releaseVersion: '0.1.0',
    machineConfigOperator: 'shipyard.local/machine-config-operator:v0.1.0',
    machineConfigController: 'shipyard.local/machine-config-controller:v0.1.0',
    machineConfigDaemon: 'shipyard.local/machine-config-daemon:v0.1.0',
    machineConfigServer: 'shipyard.local/machine-config-server:v0.1.0',
    oauthProxy: 'shipyard.local/oauth-proxy:v0.1.0',
    baseOSContainerImage: 'shipyard.local/node-os:v0.1.0',
    baseOSExtensionsContainerImage: 'shipyard.local/node-os-extensions:v0.1.0',
  }),
  'images.json',
);
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const infrastructure: Infrastructure = {
  apiVersion: 'config.openshift.io/v1',
  kind: 'Infrastructure',
  metadata: { name: 'cluster', uid: 'u', resourceVersion: '7' },
  spec: { platformSpec: { type: 'None' } },
  status: { infrastructureName: 'shipyard-abcde', platform: 'None', platformStatus: { type: 'None' }, apiServerURL: 'https://127.0.0.1:6443', apiServerInternalURI: 'https://127.0.0.1:6443' },
};
const bootstrap: ControllerConfigInputs = { serviceNetwork: ['127.64.0.0/16'], rootCAPem: CA, images, releaseImage: 'shipyard.local/release:0.1.0', operatorVersion: '0.1.0' };
const inCluster: ControllerConfigInputs = { ...bootstrap, infrastructure, networkType: 'ShipyardLoopback' };

describe('ControllerConfig', () => {
  it('says what the templates need: the CA, the cluster DNS IP (the tenth Service address), the OS images, the release', () => {
    const cc = controllerConfigFor(inCluster);
    assert.equal(cc.metadata?.name, 'machine-config-controller');
    assert.deepEqual(cc.metadata?.annotations, { [generatedByVersionAnnotation]: '0.1.0', 'machineconfiguration.openshift.io/release-image-version': '0.1.0' });
    assert.equal(cc.spec.clusterDNSIP, '127.64.0.10');
    assert.equal(Buffer.from(cc.spec.rootCAData, 'base64').toString(), CA);
    assert.equal(cc.spec.kubeAPIServerServingCAData, cc.spec.rootCAData);
    assert.equal(cc.spec.baseOSContainerImage, 'shipyard.local/node-os:v0.1.0');
    assert.equal(cc.spec.releaseImage, 'shipyard.local/release:0.1.0');
    assert.deepEqual(Object.keys(cc.spec.images).sort(), ['machineConfigController', 'machineConfigDaemon', 'machineConfigOperator', 'machineConfigServer', 'oauthProxy']);
    assert.equal(cc.spec.infra?.status?.infrastructureName, 'shipyard-abcde');
    assert.equal(cc.spec.platform, 'none');
    assert.equal(cc.spec.networkType, 'ShipyardLoopback');
    assert.equal(controllerConfigFor(bootstrap).spec.infra, null, 'at bootstrap there is no Infrastructure yet');
  });

  it('renders, at bootstrap and in the cluster, the very same configs with the very same names', () => {
    const render = (i: ControllerConfigInputs) => {
      const cc = controllerConfigFor(i);
      return renderBootstrap(builtinPools(), renderTemplates({ controllerConfig: cc, controllerVersion: '0.1.0' }), cc, { controllerVersion: '0.1.0' });
    };
    const a = render(bootstrap);
    const b = render(inCluster);
    assert.deepEqual(a.renderedConfigs.map((m) => m.metadata?.name), b.renderedConfigs.map((m) => m.metadata?.name));
    assert.deepEqual(a.renderedConfigs.map((m) => m.spec), b.renderedConfigs.map((m) => m.spec));
    assert.match(a.renderedConfigs[0]!.metadata!.name!, /^rendered-master-[0-9a-f]{32}$/);
    assert.equal(a.renderedConfigs[0]!.spec.osImageURL, 'shipyard.local/node-os:v0.1.0');
    for (const mc of a.renderedConfigs) assert.deepEqual(validateMachineConfig(mc), [], mc.metadata?.name);
  });

  it('needs a service network', () => {
    assert.throws(() => clusterDNSIP([]), /no service network/);
  });
});

describe('images.json', () => {
  it('names what is missing', () => {
    assert.throws(() => parseImagesJson('{"releaseVersion": "1"}', '/etc/mco/images/images.json'), /^Error: \/etc\/mco\/images\/images.json: missing machineConfigOperator, machineConfigController, machineConfigDaemon, machineConfigServer, oauthProxy, baseOSContainerImage, baseOSExtensionsContainerImage$/);
    assert.throws(() => parseImagesJson('{', 'f'), /f: not valid JSON/);
  });
});
