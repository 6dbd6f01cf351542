/**
 * The cloud API's wire types: what a launch request says, what an instance looks like from
 * outside, the catalogue entries and the error reasons. Declared here, below both the cloud
 * (which serves them) and its clients (the Machine API provider, the CLI), so the two can never
 * drift apart.
 */

export type InstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated' | 'failed';

export const instanceStates: readonly InstanceState[] = ['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated', 'failed'];

export interface StateReason {
  /** Machine-readable, e.g. `Ignition.Failed`, `Boot.Failed`, `User.Stop`. */
  readonly code: string;
  readonly message: string;
}

/**
 * An instance as the API returns it: everything but the user data, which may hold secrets.
 * A type rather than an interface so it reads as plain JSON (`Record<string, unknown>`).
 */
export type InstanceView = {
  /** `i-` and 17 hex digits, as EC2 spells them. */
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly zone: string;
  readonly region: string;
  readonly privateIP: string;
  readonly providerID: string;
  state: InstanceState;
  stateReason?: StateReason;
  readonly tags: Readonly<Record<string, string>>;
  readonly createdAt: string;
  /** When it last started booting. */
  launchedAt?: string;
  terminatedAt?: string;
};

export interface RunInstanceInput {
  readonly name: string;
  readonly type: string;
  readonly zone?: string;
  readonly userData?: string;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface InstanceFilter {
  readonly name?: string;
  readonly state?: InstanceState;
  /** Every tag given must match. */
  readonly tags?: Readonly<Record<string, string>>;
}

export interface InstanceType {
  readonly name: string;
  readonly cpu: number;
  /** Kubernetes quantity, as a Node's capacity shows it. */
  readonly memory: string;
  readonly memoryMiB: number;
  readonly maxPods: number;
  /** For an alias: the Shipyard type it stands for. */
  readonly aliasOf?: string;
}

export interface Zone {
  readonly name: string;
  readonly region: string;
  readonly state: string;
}

/** Each error reason with the HTTP status the API answers it with. */
export const cloudReasons = {
  InvalidParameterValue: 400,
  MissingParameter: 400,
  BadRequest: 400,
  Unauthorized: 401,
  InstanceNotFound: 404,
  NotFound: 404,
  MethodNotAllowed: 405,
  IncorrectInstanceState: 409,
  NameInUse: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  InternalError: 500,
} as const;

export type CloudReason = keyof typeof cloudReasons;

export interface CloudErrorBody {
  readonly code: number;
  readonly reason: CloudReason;
  readonly message: string;
  /** The request field at fault, when there is one. */
  readonly field?: string;
}
