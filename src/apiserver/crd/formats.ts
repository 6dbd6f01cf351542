/**
 * The string formats kube-apiserver checks in custom resources (kube-openapi's `strfmt`
 * registry, narrowed to the list apiextensions-apiserver supports). Any other `format` is
 * ignored, as Kubernetes strips unsupported formats before validating. Names are matched
 * after removing `-`, as go-openapi normalises them (`date-time` is `datetime`).
 */
import { isIPv6 } from 'node:net';
import { isDns1035Label, isDns1123Subdomain } from '../../api/names.ts';

type FormatCheck = (value: string) => boolean;

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostname = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
// As strfmt's IsBase64 (base64.StdEncoding.DecodeString): the empty string decodes, so it is valid.
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const creditCard = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const rgbPart = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const rgbColor = new RegExp(`^rgb\\(${rgbPart},${rgbPart},${rgbPart}\\)$`);
const mac = /^([0-9a-fA-F]{2}[:-]){5}([0-9a-fA-F]{2})$|^([0-9a-fA-F]{2}[:-]){7}([0-9a-fA-F]{2})$|^([0-9a-fA-F]{2}[:-]){19}([0-9a-fA-F]{2})$|^([0-9a-fA-F]{4}\.){2}([0-9a-fA-F]{4})$|^([0-9a-fA-F]{4}\.){3}([0-9a-fA-F]{4})$|^([0-9a-fA-F]{4}\.){9}([0-9a-fA-F]{4})$/;
// net/mail.ParseAddress accepts `local@domain` and `Name <local@domain>`.
const emailAddr = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+|\"[^\"]*\"@[A-Za-z0-9.-]+";
const email = new RegExp(`^(?:${emailAddr}|[^<>]*<(?:${emailAddr})>)$`);

/** IPv4, tolerating leading zeros (Go's ParseIPSloppy), or an IPv6 address written with a dotted tail. */
function ipv4Sloppy(s: string): boolean {
  const parts = s.split('.');
  if (parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return true;
  return s.includes('.') && isIPv6(s);
}

function cidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (ipv4Sloppy(ip) && !ip.includes(':')) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

const timeOfDay = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** strfmt.IsDateTime: a date, `t`, then a time with a zone. */
function dateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !validDate(parts[0]!)) return false;
  const m = timeOfDay.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

const goDuration = /^[-+]?(\d*(\.\d*)?(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/;
const durationUnits = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];

/** strfmt.ParseDuration: Go's time.ParseDuration, else `<n> <unit>` pairs such as `3 days`. */
function duration(s: string): boolean {
  if (goDuration.test(s) && /\d/.test(s)) return true;
  let ok = false;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = m[2]!.trim().toLowerCase();
    for (const variants of durationUnits) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) ok = true;
    }
  }
  return ok;
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function isbn10(s: string): boolean {
  const v = s.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === 'X' ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const v = s.replace(/[\s-]/g, '');
  if (!/^[0-9]{13}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(v[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(v[12]);
}

function requestUri(s: string): boolean {
  if (s.length === 0 || /\s/.test(s)) return false;
  return s.startsWith('/') || /^[a-zA-Z][a-zA-Z0-9+.-]*:./.test(s);
}

function hostnameCheck(s: string): boolean {
  return hostname.test(s) && s.length <= 255 && s.split('.').every((p) => p.length <= 63);
}

export const kubeFormats: Readonly<Record<string, FormatCheck>> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: requestUri,
  email: (s) => email.test(s),
  hostname: hostnameCheck,
  ipv4: ipv4Sloppy,
  ipv6: (s) => isIPv6(s) && !s.includes('%'),
  cidr,
  mac: (s) => mac.test(s),
  uuid: (s) => uuid.test(s),
  uuid3: (s) => uuid3.test(s),
  uuid4: (s) => uuid4.test(s),
  uuid5: (s) => uuid5.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: (s) => {
    const digits = s.replace(/[^0-9]/g, '');
    return creditCard.test(digits) && luhn(digits);
  },
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => rgbColor.test(s),
  byte: (s) => base64.test(s),
  password: () => true,
  date: validDate,
  duration,
  datetime: dateTime,
  'k8s-short-name': (s) => isDns1035Label(s).length === 0,
  'k8s-long-name': (s) => isDns1123Subdomain(s).length === 0,
};

/** The registry key for a schema's `format`, or undefined when Kubernetes ignores that format. */
export function kubeFormatName(format: string): string | undefined {
  if (format in kubeFormats) return format;
  const normalized = format.replaceAll('-', '');
  return normalized in kubeFormats ? normalized : undefined;
}
