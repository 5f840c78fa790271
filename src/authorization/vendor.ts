/**
 * Normal form used for every vendor comparison: lower case, without scheme, credentials, `www.`,
 * port, path, query or trailing dot. `https://www.Amazon.com/gp/` → `amazon.com`.
 */
export function normalizeVendor(vendor: string): string {
  let v = vendor.trim().toLowerCase();
  v = v.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  v = v.replace(/^[^/@]*@/, '');
  v = v.split(/[/?#]/, 1)[0] ?? '';
  v = v.replace(/:\d+$/, '');
  v = v.replace(/\.+$/, '');
  v = v.replace(/^www\./, '');
  return v.trim();
}

/** A listed domain matches itself and its subdomains: `amazon.com` matches `aws.amazon.com`, not `notamazon.com`. */
export function vendorMatches(vendor: string, listed: string): boolean {
  const v = normalizeVendor(vendor);
  const l = normalizeVendor(listed);
  if (!l || !v) return false;
  return v === l || v.endsWith(`.${l}`);
}

export const vendorListed = (vendor: string, list: readonly string[]): boolean =>
  list.some((listed) => vendorMatches(vendor, listed));
