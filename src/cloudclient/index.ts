/**
 * The cloud API's client and wire types, for whoever drives the simulated cloud from outside it:
 * the Machine API provider (operators/), the CLI and the cloud's own server (cloud/).
 */
export { CloudApiError, CloudClient, type CloudClientOptions } from './client.ts';
export { assertLoopbackUrl, isLoopbackHost, NotLoopbackError } from './loopback.ts';
export type { CloudReason, InstanceFilter, InstanceState, InstanceType, InstanceView, RunInstanceInput, StateReason, Zone } from './types.ts';
