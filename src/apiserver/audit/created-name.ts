/**
 * The name a create gave its object, for the audit event of that request: the URL of a create
 * names no object, and kube's audit takes the name from the object instead. Kept per request,
 * dropped with it.
 */
import type { IncomingMessage } from 'node:http';

const names = new WeakMap<IncomingMessage, string>();

export function noteCreatedName(req: IncomingMessage, name: string | undefined): void {
  if (name) names.set(req, name);
}

export function createdNameOf(req: IncomingMessage): string | undefined {
  return names.get(req);
}
