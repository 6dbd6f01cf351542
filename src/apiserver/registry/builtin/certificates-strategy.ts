/**
 * certificates.k8s.io/v1 CertificateSigningRequest, as kube's registry has it
 * (pkg/registry/certificates/certificates/strategy.go and pkg/apis/certificates/validation):
 * - create: the requester (`spec.username`, `uid`, `groups`, `extra`) comes from the request's
 *   user, never from the body, and status starts empty (nobody creates a pre-approved request);
 *   `spec.request` must be a PEM PKCS#10 request whose signature checks, `signerName` a
 *   `domain/path` name, `usages` non-empty, known and unique, `expirationSeconds` ≥ 600;
 * - update: spec and status are immutable on the main resource;
 * - `/status`: status only, the Approved/Denied conditions kept as stored, a certificate set
 *   once (PEM CERTIFICATE blocks only);
 * - `/approval`: the conditions only; Approved and Denied exclude each other, and no
 *   Approved, Denied or Failed condition is ever removed.
 * What an old stored object already violates is tolerated on its updates, as kube does.
 */
import { X509Certificate } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { keyUsages, signerNames, type CsrCondition } from '../../../api/certificates.ts';
import { fieldError, type FieldError } from '../../../api/field-errors.ts';
import { isDns1123Label, isDns1123Subdomain } from '../../../api/names.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { parseCertificateRequest } from '../../../api/x509.ts';
import type { KubeObject, Strategy } from '../resource.ts';

interface Options {
  /** `/approval` may add or change Approved and Denied conditions. */
  readonly settingApproval?: boolean;
  /** `/status` may set the certificate. */
  readonly settingCertificate?: boolean;
}

/** Which of kube's compatibility allowances the stored object calls for. */
interface Allowances {
  readonly bothApprovedAndDenied: boolean;
  readonly legacySignerName: boolean;
  readonly duplicateConditionTypes: boolean;
  readonly emptyConditionType: boolean;
  readonly arbitraryCertificate: boolean;
  readonly unknownUsages: boolean;
  readonly duplicateUsages: boolean;
}

const knownUsages = new Set<string>(keyUsages);
const approvalTypes = ['Approved', 'Denied'] as const;
const permanentTypes = ['Approved', 'Denied', 'Failed'] as const;
const trueOnlyTypes = new Set<string>(permanentTypes);

function conditionsOf(obj: KubeObject | undefined): CsrCondition[] {
  const c = obj?.status?.conditions;
  return Array.isArray(c) ? c : [];
}

function usagesOf(obj: KubeObject | undefined): unknown[] {
  const u = obj?.spec?.usages;
  return Array.isArray(u) ? u : [];
}

function ofType(obj: KubeObject | undefined, type: string): CsrCondition[] {
  return conditionsOf(obj).filter((c) => c?.type === type);
}

/** Problems with `status.certificate` (base64 of PEM), as kube's validateCertificate words them. */
export function certificateProblem(certificate: string | undefined): string | undefined {
  if (!certificate) return undefined;
  const text = Buffer.from(certificate, 'base64').toString('latin1');
  const blocks = [...text.matchAll(/-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const [, type, body] of blocks) {
    if (type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(type)}`;
    if (/^[\w-]+:/m.test(body!)) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(Buffer.from(body!.replace(/\s+/g, ''), 'base64'));
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}

function allowancesFor(obj: KubeObject, old: KubeObject | undefined): Allowances {
  if (!old) return { bothApprovedAndDenied: false, legacySignerName: false, duplicateConditionTypes: false, emptyConditionType: false, arbitraryCertificate: false, unknownUsages: false, duplicateUsages: false };
  const types = conditionsOf(old).map((c) => c?.type);
  const usages = usagesOf(old);
  return {
    bothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
    legacySignerName: old.spec?.signerName === signerNames.legacyUnknown,
    duplicateConditionTypes: new Set(types).size !== types.length,
    emptyConditionType: types.some((t) => !t),
    arbitraryCertificate: (obj.status?.certificate ?? '') === (old.status?.certificate ?? '') || certificateProblem(old.status?.certificate) !== undefined,
    unknownUsages: usages.some((u) => !knownUsages.has(String(u))),
    duplicateUsages: new Set(usages).size !== usages.length,
  };
}

/** Kube's ValidateSignerName: `<domain>/<path>`, each segment of DNS labels / subdomains. */
export function validateSignerName(path: string, signerName: unknown): FieldError[] {
  if (typeof signerName !== 'string' || signerName === '') return [fieldError.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldError.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, name] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(fieldError.tooLong(path, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const problems = isDns1123Label(label);
    if (problems.length) {
      for (const p of problems) errs.push(fieldError.invalid(path, domain, `validating label ${JSON.stringify(label)}: ${p}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldError.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of name.split('.')) {
    const problems = isDns1123Subdomain(label);
    if (problems.length) {
      for (const p of problems) errs.push(fieldError.invalid(path, name, `validating label ${JSON.stringify(label)}: ${p}`));
      break;
    }
  }
  const max = 253 + 253 + 63 + 1 + 1;
  if (signerName.length > max) errs.push(fieldError.tooLong(path, max));
  return errs;
}

function validateConditions(obj: KubeObject, allow: Allowances): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    const type = c?.type ?? '';
    if (!allow.emptyConditionType && !type) errs.push(fieldError.required(`${at}.type`));
    const allowed = trueOnlyTypes.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!c?.status) errs.push(fieldError.required(`${at}.status`));
    else if (!allowed.includes(c.status)) errs.push(fieldError.notSupported(`${at}.status`, c.status, allowed));
    if (!allow.bothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(fieldError.invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(fieldError.invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allow.duplicateConditionTypes) {
      if (seen.has(type)) errs.push(fieldError.duplicate(`${at}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

function validateCsr(obj: KubeObject, allow: Allowances): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj.spec ?? {};
  try {
    parseCertificateRequest(Buffer.from(typeof spec.request === 'string' ? spec.request : '', 'base64'));
  } catch (e) {
    errs.push(fieldError.invalid('spec.request', spec.request ?? '', (e as Error).message));
  }
  const usages = usagesOf(obj);
  if (usages.length === 0) errs.push(fieldError.required('spec.usages'));
  if (!allow.unknownUsages) usages.forEach((u, i) => knownUsages.has(String(u)) || errs.push(fieldError.notSupported(`spec.usages[${i}]`, u, keyUsages)));
  if (!allow.duplicateUsages) {
    const seen = new Set<unknown>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(fieldError.duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  if (!allow.legacySignerName && spec.signerName === signerNames.legacyUnknown) {
    errs.push(fieldError.invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...validateSignerName('spec.signerName', spec.signerName));
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null && !(spec.expirationSeconds >= 600)) {
    errs.push(fieldError.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(obj, allow));
  if (!allow.arbitraryCertificate) {
    const problem = certificateProblem(obj.status?.certificate);
    if (problem) errs.push(fieldError.invalid('status.certificate', '<certificate data>', problem));
  }
  return errs;
}

function validateUpdate(obj: KubeObject, old: KubeObject, opts: Options): FieldError[] {
  const errs = validateCsr(obj, allowancesFor(obj, old));
  for (const t of permanentTypes) {
    if (ofType(obj, t).length < ofType(old, t).length) errs.push(fieldError.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (!opts.settingApproval) {
    for (const t of approvalTypes) {
      const before = ofType(old, t);
      const after = ofType(obj, t);
      if (after.length > before.length) errs.push(fieldError.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (after.length === before.length && !isDeepStrictEqual(before, after)) errs.push(fieldError.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
    }
  }
  const certificate = obj.status?.certificate ?? '';
  const previous = old.status?.certificate ?? '';
  if (certificate !== previous) {
    if (!opts.settingCertificate) errs.push(fieldError.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (previous) errs.push(fieldError.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** Kube's populateConditionTimestamps: a condition without times gets now, or the time it last changed. */
function populateConditionTimestamps(obj: KubeObject, old: KubeObject): void {
  const now = formatTimestamp();
  for (const c of conditionsOf(obj)) {
    if (!c || typeof c !== 'object') continue;
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = conditionsOf(old).find((o) => o?.type === c.type && o?.status === c.status && o?.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

/** Kube's preserveConditionInstances: a status writer cannot touch Approved/Denied (a changed count fails validation). */
function preserveApprovalConditions(obj: KubeObject, old: KubeObject): void {
  for (const t of approvalTypes) {
    const before = conditionsOf(old).filter((c) => c?.type === t);
    const afterIdx = conditionsOf(obj).flatMap((c, i) => (c?.type === t ? [i] : []));
    if (before.length !== afterIdx.length) continue;
    afterIdx.forEach((idx, i) => (obj.status.conditions[idx] = before[i]));
  }
}

export const certificateSigningRequestStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  nameRule: 'path',
  prepareForCreate(obj, user) {
    obj.spec ??= {};
    delete obj.spec.username;
    delete obj.spec.uid;
    delete obj.spec.groups;
    delete obj.spec.extra;
    if (user) {
      obj.spec.username = user.name;
      if (user.uid) obj.spec.uid = user.uid;
      if (user.groups.length) obj.spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) obj.spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    }
    obj.status = {};
  },
  validate: (obj) => validateCsr(obj, allowancesFor(obj, undefined)),
  prepareForUpdate(obj, old) {
    obj.spec = old.spec;
    obj.status = old.status;
    if (obj.status === undefined) delete obj.status;
  },
  validateUpdate: (obj, old) => validateUpdate(obj, old, {}),
  prepareForStatusUpdate(obj, old) {
    obj.status ??= {};
    preserveApprovalConditions(obj, old);
    populateConditionTimestamps(obj, old);
  },
  validateStatusUpdate: (obj, old) => validateUpdate(obj, old, { settingCertificate: true }),
  prepareForApprovalUpdate: populateConditionTimestamps,
  validateApprovalUpdate: (obj, old) => validateUpdate(obj, old, { settingApproval: true }),
};
