/**
 * Taking AP2 presentations apart and putting them back together with one thing changed, for the
 * verify tests' refusals (DECISIONS §20 steps 1–4): a JWT re-signed with a chosen key (ES256 with
 * node:crypto, r‖s), a disclosure replaced (its digest updated where it is referenced), parts
 * joined as AP2's SDK sends them. Nothing here checks anything: that is the service's job.
 */
import { createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';

type Json = Record<string, any>;

export const b64json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
const unb64json = (s: string): any => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
export const digestOf = (disclosure: string) => createHash('sha256').update(disclosure, 'ascii').digest('base64url');

/** A P-256 private key from its JWK (an agent's `privateJwk`). */
export const keyOfJwk = (jwk: JWK): KeyObject => createPrivateKey({ key: jwk as any, format: 'jwk' });

export function decodeJwt(jwt: string): { header: Json; payload: Json } {
  const [h, p] = jwt.split('.');
  return { header: unb64json(h!), payload: unb64json(p!) };
}

/** A compact JWS of `header` and `payload` signed by `key` (ES256, r‖s), whatever `header.alg` says. */
export function signJwt(header: Json, payload: Json, key: KeyObject): string {
  const input = `${b64json(header)}.${b64json(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** An SD-JWT part `jwt~d1~…~dn~` taken apart. */
export interface Part {
  jwt: string;
  disclosures: string[];
}

export const partOf = (text: string): Part => {
  const [jwt, ...rest] = text.split('~');
  return { jwt: jwt!, disclosures: rest.filter((d) => d !== '') };
};
export const partText = (p: Part) => `${p.jwt}~${p.disclosures.map((d) => `${d}~`).join('')}`;

/** `<open>~~<closed>~` taken apart: the open credential (ending `~`) and the closed part. */
export function splitPresentation(presentation: string): { open: Part; closed: Part } {
  const at = presentation.indexOf('~~');
  return { open: partOf(presentation.slice(0, at) + '~'), closed: partOf(presentation.slice(at + 2)) };
}
export const joinPresentation = (open: Part, closed: Part) => `${partText(open).slice(0, -1)}~~${partText(closed)}`;

export const disclosureOf = (value: unknown, salt = randomBytes(16).toString('base64url')) => b64json([salt, value]);
export const disclosureValue = (d: string): any => {
  const arr = unb64json(d) as unknown[];
  return arr[arr.length - 1];
};

/** The disclosure `delegate_payload[0]` points at: the open or the closed mandate (nested `...` entries kept). */
export function delegateDisclosure(part: Part): { index: number; value: Json } {
  const digest = decodeJwt(part.jwt).payload.delegate_payload[0]['...'];
  const index = part.disclosures.findIndex((d) => digestOf(d) === digest);
  if (index < 0) throw new Error('no delegate disclosure');
  return { index, value: disclosureValue(part.disclosures[index]!) };
}

/**
 * The part with its JWT's header or payload changed, and/or its delegate object changed (a new
 * disclosure, its digest put in `delegate_payload`), re-signed with `key`.
 */
export function resign(part: Part, key: KeyObject, change: { header?: (h: Json) => Json; payload?: (p: Json) => Json; delegate?: (d: Json) => Json }): Part {
  const { header, payload } = decodeJwt(part.jwt);
  const disclosures = [...part.disclosures];
  let body = payload;
  if (change.delegate) {
    const { index, value } = delegateDisclosure(part);
    const replaced = disclosureOf(change.delegate(structuredClone(value)));
    disclosures[index] = replaced;
    body = { ...body, delegate_payload: [{ '...': digestOf(replaced) }] };
  }
  if (change.payload) body = change.payload(structuredClone(body));
  return { jwt: signJwt(change.header ? change.header({ ...header }) : header, body, key), disclosures };
}

/** The open credential (as issued, ending `~`) changed and re-signed with `key` (the mandate key to keep it valid, another to break it). */
export const reissue = (credential: string, key: KeyObject, change: Parameters<typeof resign>[2]) => partText(resign(partOf(credential), key, change));

/** The closed part of `presentation` changed and re-signed with `key` (the agent's to keep it valid). */
export function reclose(presentation: string, key: KeyObject, change: Parameters<typeof resign>[2]): string {
  const { open, closed } = splitPresentation(presentation);
  return joinPresentation(open, resign(closed, key, change));
}
