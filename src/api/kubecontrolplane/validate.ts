/**
 * The value checks of a merged KubeAPIServerConfig that its schema cannot express: each flag's
 * number of values and their form, loopback-only addresses, the SQLite store URL, CIDRs, port
 * ranges, hostnames, cipher suite names. The schema's own checks (unknown fields, types, enums)
 * are the generic validator's (`runtime/config-merge.ts`); this runs beside it and skips what
 * has the wrong type, which that one reports. Messages are Kubernetes field errors without the
 * path (`Invalid value: "x": must be an integer`), so the caller can name the layer first.
 */
import { apiServerArgumentSpecs, isApiServerArgumentName, listItems } from './arguments.ts';
import { apiVersion, cipherSuiteNames, kind } from './kube-apiserver-config.ts';
import { absolutePath, hostnamePort, integerAtLeast, loopbackHostPort, pluginName, portRange, regularExpression, serviceRange, type ValueCheck } from './values.ts';

export interface ConfigValueProblem {
  /** Field names and list indexes from the config's root. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

type Path = readonly (string | number)[];

function render(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null);
}

const invalid = (path: Path, value: unknown, detail: string): ConfigValueProblem => ({ path, message: `Invalid value: ${render(value)}: ${detail}` });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function at(config: unknown, path: Path): unknown {
  let v = config;
  for (const seg of path) {
    if (typeof seg === 'number') v = Array.isArray(v) ? v[seg] : undefined;
    else v = isObject(v) ? v[seg] : undefined;
  }
  return v;
}

function checkString(config: unknown, path: Path, check: ValueCheck): ConfigValueProblem[] {
  const v = at(config, path);
  if (typeof v !== 'string' || v === '') return [];
  const detail = check(v);
  return detail ? [invalid(path, v, detail)] : [];
}

function checkEach(config: unknown, path: Path, check: ValueCheck): ConfigValueProblem[] {
  const list = at(config, path);
  if (!Array.isArray(list)) return [];
  return list.flatMap((v, i) => (typeof v === 'string' ? checkString(config, [...path, i], check) : []));
}

function checkArguments(config: unknown): ConfigValueProblem[] {
  const args = at(config, ['apiServerArguments']);
  if (!isObject(args)) return [];
  const out: ConfigValueProblem[] = [];
  for (const [name, values] of Object.entries(args)) {
    if (!isApiServerArgumentName(name) || !Array.isArray(values) || values.some((v) => typeof v !== 'string')) continue;
    const spec = apiServerArgumentSpecs[name];
    const path = ['apiServerArguments', name];
    if (spec.arity === 'single') {
      if (values.length !== 1) out.push(invalid(path, values, 'must have exactly one value'));
      else {
        const detail = spec.check(values[0] as string);
        if (detail) out.push(invalid(path, values[0], detail));
      }
      continue;
    }
    values.forEach((v: string, i) => {
      const detail = listItems([v])
        .map((item) => spec.check(item))
        .find((d) => d !== undefined);
      if (detail) out.push(invalid([...path, i], v, detail));
    });
  }
  return out;
}

/** Shipyard's server has one SQLite store; an etcd URL is declared but not served yet. */
function checkStorageUrls(config: unknown): ConfigValueProblem[] {
  const path = ['storageConfig', 'urls'];
  const urls = at(config, path);
  if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string')) return [];
  const out: ConfigValueProblem[] = [];
  urls.forEach((u: string, i) => {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      out.push(invalid([...path, i], u, 'must be a URL'));
      return;
    }
    if (url.protocol === 'file:') {
      const detail = url.host ? 'a file: URL must have no host (file:///path)' : absolutePath(decodeURIComponent(url.pathname));
      if (detail) out.push(invalid([...path, i], u, detail));
    } else if (url.protocol === 'https:' || url.protocol === 'http:') {
      out.push(invalid([...path, i], u, "Shipyard's API server has no etcd backend: the store must be one file: URL naming the SQLite store directory"));
    } else {
      out.push(invalid([...path, i], u, 'must be a file: URL naming the SQLite store directory'));
    }
  });
  if (out.length === 0 && urls.length > 1) out.push(invalid(path, urls, 'must hold exactly one file: URL (one SQLite store)'));
  return out;
}

function checkTypeMeta(config: unknown): ConfigValueProblem[] {
  const out: ConfigValueProblem[] = [];
  const av = at(config, ['apiVersion']);
  const k = at(config, ['kind']);
  if (typeof av === 'string' && av !== '' && av !== apiVersion) out.push({ path: ['apiVersion'], message: `Unsupported value: ${render(av)}: supported values: ${render(apiVersion)}` });
  if (typeof k === 'string' && k !== '' && k !== kind) out.push({ path: ['kind'], message: `Unsupported value: ${render(k)}: supported values: ${render(kind)}` });
  return out;
}

const knownCipherSuite: ValueCheck = (v) => ((cipherSuiteNames as readonly string[]).includes(v) ? undefined : 'must be a cipher suite name Go knows, e.g. "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"');

/** Every value problem of `config`, in a stable order (by area, then path). */
export function validateKubeAPIServerConfigValues(config: unknown): ConfigValueProblem[] {
  return [
    ...checkTypeMeta(config),
    ...checkArguments(config),
    ...checkString(config, ['servingInfo', 'bindAddress'], loopbackHostPort),
    ...checkEach(config, ['servingInfo', 'cipherSuites'], knownCipherSuite),
    ...checkStorageUrls(config),
    ...checkString(config, ['servicesSubnet'], serviceRange),
    ...checkString(config, ['servicesNodePortRange'], portRange),
    ...checkString(config, ['imagePolicyConfig', 'internalRegistryHostname'], hostnamePort),
    ...checkEach(config, ['imagePolicyConfig', 'externalRegistryHostnames'], hostnamePort),
    ...checkEach(config, ['admission', 'enabledPlugins'], pluginName),
    ...checkEach(config, ['admission', 'disabledPlugins'], pluginName),
    ...checkEach(config, ['corsAllowedOrigins'], regularExpression),
    ...checkString(config, ['gracefulTerminationDuration'], integerAtLeast(0)),
  ];
}
