/**
 * Ignition configs as Shipyard holds them. `IgnitionConfig` is the spec 3 shape (the union of
 * 3.0–3.4; a field newer than a config's version is dropped with a warning at parse time), the
 * one form every other module sees: spec 2.2 configs are translated into it on parse
 * (`v2.ts`). Optional fields are `undefined` when unset, which matters for merge: an unset
 * field in a child config inherits the parent's value, a set one replaces it (coreos/ignition
 * `config/merge`). Disks, RAID, filesystems and LUKS are carried opaquely: a simulated node has
 * no block devices, so nothing here interprets them beyond merging by their key.
 */

export interface IgnitionConfig {
  ignition: IgnitionSection;
  storage?: IgnitionStorage;
  systemd?: IgnitionSystemd;
  passwd?: IgnitionPasswd;
  /** Spec 3.3+. */
  kernelArguments?: IgnitionKernelArguments;
}

export interface IgnitionSection {
  /** Semver of the spec, e.g. `3.4.0`. */
  version: string;
  config?: IgnitionConfigReferences;
  security?: { tls?: { certificateAuthorities?: IgnitionResource[] } };
  /** Seconds; `httpTotal` 0 or unset means no overall limit. */
  timeouts?: { httpResponseHeaders?: number; httpTotal?: number };
  /** Spec 3.1+. Kept for fidelity; the loopback datacenter never uses a proxy. */
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string[] };
}

/** A pointer config names other configs here instead of (or besides) carrying content. */
export interface IgnitionConfigReferences {
  merge?: IgnitionResource[];
  replace?: IgnitionResource;
}

/** Where some bytes come from: a `data:` URL or an http(s) URL. */
export interface IgnitionResource {
  source?: string;
  /** `gzip`, or empty/unset for none. */
  compression?: string;
  /** Spec 3.1+. A `null` value in a child config removes the parent's header of that name. */
  httpHeaders?: IgnitionHttpHeader[];
  /** `sha512-<hex>` (or `sha256-<hex>` from spec 3.2) of the fetched, still-compressed bytes. */
  verification?: { hash?: string };
}

export interface IgnitionHttpHeader {
  name: string;
  value?: string | null;
}

export interface IgnitionOwner {
  id?: number;
  name?: string;
}

/** What files, directories and links share; `path` is their common merge key. */
export interface IgnitionNode {
  path: string;
  /** Replace whatever exists at `path`. Spec 3 default: false. */
  overwrite?: boolean;
  user?: IgnitionOwner;
  group?: IgnitionOwner;
}

export interface IgnitionFile extends IgnitionNode {
  contents?: IgnitionResource;
  append?: IgnitionResource[];
  /** Decimal in JSON (420 = 0644). Default 0644. */
  mode?: number;
}

export interface IgnitionDirectory extends IgnitionNode {
  /** Default 0755. */
  mode?: number;
}

export interface IgnitionLink extends IgnitionNode {
  target?: string;
  hard?: boolean;
}

export type OpaqueEntry = Record<string, unknown>;

export interface IgnitionStorage {
  files?: IgnitionFile[];
  directories?: IgnitionDirectory[];
  links?: IgnitionLink[];
  disks?: OpaqueEntry[];
  raid?: OpaqueEntry[];
  filesystems?: OpaqueEntry[];
  /** Spec 3.2+. */
  luks?: OpaqueEntry[];
}

export interface IgnitionSystemd {
  units?: IgnitionUnit[];
}

export interface IgnitionUnit {
  name: string;
  enabled?: boolean;
  mask?: boolean;
  contents?: string;
  dropins?: IgnitionDropin[];
}

export interface IgnitionDropin {
  name: string;
  contents?: string;
}

export interface IgnitionPasswd {
  users?: IgnitionUser[];
  groups?: IgnitionGroup[];
}

export interface IgnitionUser {
  name: string;
  passwordHash?: string;
  sshAuthorizedKeys?: string[];
  uid?: number;
  gecos?: string;
  homeDir?: string;
  noCreateHome?: boolean;
  primaryGroup?: string;
  groups?: string[];
  noUserGroup?: boolean;
  noLogInit?: boolean;
  shell?: string;
  system?: boolean;
  /** Spec 3.2+. */
  shouldExist?: boolean;
}

export interface IgnitionGroup {
  name: string;
  gid?: number;
  passwordHash?: string;
  system?: boolean;
  /** Spec 3.2+. */
  shouldExist?: boolean;
}

export interface IgnitionKernelArguments {
  shouldExist?: string[];
  shouldNotExist?: string[];
}

/** Spec 2.2, only as far as translation needs it: parse turns it into `IgnitionConfig`. */
export interface IgnitionV2Config {
  ignition: {
    version: string;
    config?: { append?: IgnitionV2Reference[]; replace?: IgnitionV2Reference };
    security?: { tls?: { certificateAuthorities?: IgnitionV2Reference[] } };
    timeouts?: { httpResponseHeaders?: number; httpTotal?: number };
  };
  storage?: {
    files?: IgnitionV2File[];
    directories?: IgnitionV2Directory[];
    links?: IgnitionV2Link[];
    disks?: OpaqueEntry[];
    raid?: OpaqueEntry[];
    filesystems?: OpaqueEntry[];
  };
  systemd?: { units?: IgnitionV2Unit[] };
  networkd?: { units?: Array<{ name: string; contents?: string }> };
  passwd?: { users?: IgnitionV2User[]; groups?: IgnitionGroup[] };
}

export interface IgnitionV2Reference {
  source: string;
  verification?: { hash?: string };
}

export interface IgnitionV2Node {
  filesystem: string;
  path: string;
  overwrite?: boolean;
  user?: IgnitionOwner;
  group?: IgnitionOwner;
}

export interface IgnitionV2File extends IgnitionV2Node {
  append?: boolean;
  contents?: { source?: string; compression?: string; verification?: { hash?: string } };
  mode?: number;
}

export interface IgnitionV2Directory extends IgnitionV2Node {
  mode?: number;
}

export interface IgnitionV2Link extends IgnitionV2Node {
  target: string;
  hard?: boolean;
}

export interface IgnitionV2Unit {
  name: string;
  /** Deprecated in 2.x in favour of `enabled`. */
  enable?: boolean;
  enabled?: boolean;
  mask?: boolean;
  contents?: string;
  dropins?: IgnitionDropin[];
}

export interface IgnitionV2User extends Omit<IgnitionUser, 'shouldExist'> {
  /** Deprecated in 2.x: the same fields, nested. */
  create?: Omit<IgnitionUser, 'name' | 'passwordHash' | 'sshAuthorizedKeys' | 'shouldExist'>;
}
