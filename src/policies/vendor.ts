import { z } from 'zod';
import { TRIMMED_CHARS } from '../kernel/schemas.js';

/**
 * The normal form every vendor comparison uses (docs/api.md, "Vendor matching"): deny- and
 * allowlists, the duplicate-spend rule and the policy simulator all go through `vendorForm`.
 *
 * - A vendor that looks like a URL or a domain becomes the host a WHATWG URL parser yields for it
 *   (`https://` prefixed when it names no scheme): userinfo, port, path, query and fragment go,
 *   percent-escapes are decoded, IPv4 forms become dotted decimal and the name is mapped by IDNA
 *   (UTS #46) to ASCII; then a trailing dot and a leading `www.` are dropped.
 *   `https://user@WWW.Café.com:443/x` → `xn--caf-dma.com`, `0x7f.1` → `127.0.0.1`.
 * - Any other vendor is a name: NFKC, case folded, whitespace collapsed. `Ａcme  Corp` → `acme corp`.
 * - A vendor with control characters, or whose host no URL parser accepts, has no normal form.
 */
export type VendorForm =
  | { kind: 'host' | 'ip' | 'name'; key: string }
  | { kind: 'invalid'; key: string; problem: string };

const CONTROL = /\p{Cc}/u;
const WHITESPACE = /\s/u;
/** A scheme followed by an authority (`//` or, as WHATWG reads special schemes, `\\`). */
const SCHEME_WITH_AUTHORITY = /^[a-z][a-z0-9+.-]*:(?=[/\\]{2})/i;
/** http(s) without slashes: `https:evil.com` names the host evil.com to a URL parser. */
const HTTP_SCHEME = /^https?:/i;
/** Characters only a URL or a domain has; `。` stays after NFKC and IDNA reads it as a dot. */
const HOST_MARK = /[.。%:/\\@?#[\]]/;
/** A URL parser reads a lone number (decimal, octal or hex) as an IPv4 address. */
const IPV4_NUMBER = /^(0x[0-9a-f]*|\d+)$/i;
const DOTTED_IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function looksLikeHost(s: string): boolean {
  if (SCHEME_WITH_AUTHORITY.test(s) || HTTP_SCHEME.test(s) || /^[/\\]{2}/.test(s)) return true;
  return !WHITESPACE.test(s) && (HOST_MARK.test(s) || IPV4_NUMBER.test(s));
}

/** What to hand the URL parser: any scheme with an authority is read as https, so IDNA applies. */
function hrefOf(s: string): string {
  const scheme = SCHEME_WITH_AUTHORITY.exec(s);
  if (scheme) return `https:${s.slice(scheme[0].length)}`;
  if (HTTP_SCHEME.test(s)) return s;
  if (/^[/\\]{2}/.test(s)) return `https:${s}`;
  return `https://${s}`;
}

/** NFKC with full case folding (upper then lower catches ß → ss, ς → σ), whitespace collapsed. */
const foldName = (s: string) => s.toUpperCase().toLowerCase().normalize('NFKC').replace(/\s+/gu, ' ').trim();

function computeForm(raw: string): VendorForm {
  const s = raw.normalize('NFKC').trim();
  if (CONTROL.test(s)) return { kind: 'invalid', key: foldName(s), problem: 'must not contain control characters' };
  if (!looksLikeHost(s)) return { kind: 'name', key: foldName(s) };
  let hostname: string;
  try {
    hostname = new URL(hrefOf(s)).hostname;
  } catch {
    return { kind: 'invalid', key: foldName(s), problem: 'has no host a URL parser accepts' };
  }
  if (hostname.startsWith('[')) return { kind: 'ip', key: hostname };
  const host = hostname.replace(/\.+$/, '').replace(/^www\./, '');
  if (!host) return { kind: 'invalid', key: foldName(s), problem: 'has no host a URL parser accepts' };
  return { kind: DOTTED_IPV4.test(host) ? 'ip' : 'host', key: host };
}

/** Lists are compared on every request: their entries' forms are kept (bounded; cleared when full). */
const MAX_CACHED_FORMS = 10_000;
const forms = new Map<string, VendorForm>();

export function vendorForm(raw: string): VendorForm {
  let form = forms.get(raw);
  if (!form) {
    form = computeForm(raw);
    if (forms.size >= MAX_CACHED_FORMS) forms.clear();
    forms.set(raw, form);
  }
  return form;
}

/** The comparison key. Never throws: a vendor without a normal form (a row older than the rule) compares as a name. */
export const normalizeVendor = (vendor: string): string => vendorForm(vendor).key;

/** A listed domain matches itself and its subdomains: `amazon.com` matches `aws.amazon.com`, not `notamazon.com`. */
export function vendorMatches(vendor: string, listed: string): boolean {
  const v = vendorForm(vendor);
  const l = vendorForm(listed);
  if (!l.key || !v.key) return false;
  if (v.key === l.key) return true;
  return v.kind === 'host' && l.kind === 'host' && v.key.endsWith(`.${l.key}`);
}

export const vendorListed = (vendor: string, list: readonly string[]): boolean =>
  list.some((listed) => vendorMatches(vendor, listed));

const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f';
/**
 * For the document: after trimming, a vendor has a first character and no control character
 * (Unicode Cc); the trimmed ones (tab, line feed, …) may lead or trail it. Whether a URL parser
 * accepts its host is beyond a pattern.
 */
export const VENDOR_PATTERN = `^[${TRIMMED_CHARS}]*[^${TRIMMED_CHARS}${CONTROLS}][^${CONTROLS}]*[${TRIMMED_CHARS}]*$`;

const vendorText = () =>
  z.string().max(255).trim().min(1).meta({ pattern: VENDOR_PATTERN, description: 'A name or a domain/URL; must not contain control characters' });

/** A vendor in a request: refused (400, naming the field) when it has no normal form; kept as sent. */
export const vendorSchema = () =>
  vendorText().superRefine((v, ctx) => {
    const form = vendorForm(v);
    if (form.kind === 'invalid') ctx.addIssue({ code: 'custom', message: form.problem });
  });

/** A deny- or allowlist: entries are stored in their normal form, once each (`café.com` = `xn--caf-dma.com`). */
export const vendorListSchema = (maxEntries: number) =>
  z
    .array(
      vendorText().transform((v, ctx) => {
        const form = vendorForm(v);
        if (form.kind !== 'invalid') return form.key;
        ctx.addIssue({ code: 'custom', message: form.problem });
        return z.NEVER;
      }),
    )
    .max(maxEntries)
    .transform((entries) => [...new Set(entries)]);
