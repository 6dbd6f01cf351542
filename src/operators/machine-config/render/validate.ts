/**
 * The checks a MachineConfig must pass before it is merged into a rendered config, as the MCO's
 * render controller makes them (`ValidateMachineConfig`): a known kernel type, extensions from
 * the allow-list, and an Ignition config that parses and validates with no mode beyond 0777 —
 * the very checks the API server makes at admission (`api/machineconfiguration`), made again
 * because a config stored before them, or written around them, must still fail the render and
 * not the node. Unlike the MCO, every cause names the MachineConfig and the field, and
 * extensions are checked even in a config with no Ignition section (the MCO skips them there, a
 * quirk nobody relies on).
 */
import { parseObject, type IgnitionConfig } from '../../../api/ignition/index.ts';
import { validateMachineConfig, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export const kernelTypes = ['', 'default', 'realtime', '64k-pages'] as const;

/** RHCOS extensions the MCO knows how to install (each maps to RPM packages there). */
export const supportedExtensions = ['two-node-ha', 'ipsec', 'usbguard', 'kerberos', 'kernel-devel', 'sandboxed-containers', 'sysstat'] as const;

export type CheckedMachineConfig =
  | { readonly ok: true; readonly name: string; readonly ignition: IgnitionConfig | undefined }
  | { readonly ok: false; readonly name: string; readonly error: string };

/** Validates one MachineConfig and returns its Ignition config as spec 3, or the cause naming it. */
export function checkMachineConfig(mc: DeepReadonly<MachineConfig>): CheckedMachineConfig {
  const name = mc.metadata?.name ?? '';
  const fail = (cause: string): CheckedMachineConfig => ({ ok: false, name, error: `MachineConfig ${JSON.stringify(name)}: ${cause}` });
  const kernelType = mc.spec.kernelType ?? '';
  if (!(kernelTypes as readonly string[]).includes(kernelType)) return fail(`kernelType=${kernelType} is invalid`);
  const unknown = (mc.spec.extensions ?? []).filter((e) => !(supportedExtensions as readonly string[]).includes(e));
  if (unknown.length > 0) return fail(`invalid extensions found: [${unknown.join(' ')}]`);
  const raw = mc.spec.config;
  // A config with no Ignition at all is valid: MachineConfigs that only add kernel arguments exist.
  if (raw === undefined || raw === null || Object.keys(raw).length === 0) return { ok: true, name, ignition: undefined };
  const errors = validateMachineConfig(mc);
  if (errors.length > 0) return fail(errors.map((e) => e.message).join('; '));
  const parsed = parseObject(raw);
  // validateMachineConfig parsed the same object and found nothing wrong.
  if (!parsed.ok) return fail('spec.config: Invalid value: cannot be parsed');
  return { ok: true, name, ignition: parsed.config };
}
