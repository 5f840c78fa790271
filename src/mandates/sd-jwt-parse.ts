/**
 * A presentation as AP2's SDK sends it, `<open>~~<closed>~`, taken apart strictly (DECISIONS §20):
 * split on `~~` (the open part regains its `~`), each part's JWT and disclosures decoded as I-JSON,
 * every digest resolved to exactly one disclosure and every disclosure used once. No signature is
 * checked here (chain.ts does, with the keys).
 */

/** One JWT as sent. */
export interface ParsedJwt {
  /** The compact JWT, as sent. */
  compact: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `header.payload` as sent: what the signature covers. */
  signingInput: string;
  /** The signature's bytes (for ES256, r‖s). */
  signature: Buffer;
}

/** One SD-JWT part: its JWT, its disclosures as sent, and its `delegate_payload`'s one object, resolved. */
export interface ParsedPart {
  jwt: ParsedJwt;
  disclosures: string[];
  /** The part as sent, ending `~` (for the open part: what `sd_hash` covers). */
  asSent: string;
  /** The single object of `delegate_payload`, every digest replaced by its disclosure. */
  delegate: Record<string, unknown>;
}

export interface ParsedPresentation {
  open: ParsedPart;
  closed: ParsedPart;
  /** base64url SHA-256 of the closed JWT: the receipt's `reference`. */
  reference: string;
}

export type ParseFailure = {
  error: 'mandates_not_supported' | 'invalid_credential';
  description: string;
  /** Computable whenever a closed JWT can be found, even when the rest fails. */
  reference: string | null;
};

export type ParseResult = { ok: true; value: ParsedPresentation } | ({ ok: false } & ParseFailure);

/** §20 step 1 and the structural half of step 2. */
export function parsePresentation(_presentation: string): ParseResult {
  throw new Error('parsePresentation: not built yet');
}
