import { z } from 'zod';
import { idOf } from '../kernel/view-fields.js';

/** A base64url SHA-256 digest: 43 characters. */
export const sha256B64url = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url SHA-256 digest (43 characters)');

/** `POST /v1/mandates/verify` (DECISIONS §20): the presentation, not an id; the checkout it closes, as the caller knows it. */
export const verifyMandateSchema = z
  .object({
    presentation: z.string().min(1).describe('AP2 wire format: `<open credential>~~<closed mandate>~`'),
    open_checkout_hash: sha256B64url.optional().describe('The checkout this payment is for: must equal the mandate\'s `payment.reference`'),
    checkout_jwt_hash: z.string().min(1).max(255).optional().describe('When given, the closed mandate\'s `transaction_id` must equal it'),
    nonce: z.string().min(1).max(255).optional().describe('When given, the closed part\'s `nonce` must equal it'),
  })
  .strict();
export type VerifyMandateInput = z.infer<typeof verifyMandateSchema>;

export const RECEIPT_ERRORS = ['mandates_not_supported', 'invalid_credential', 'invalid_mandate', 'unresolved_constraint'] as const;
export type ReceiptError = (typeof RECEIPT_ERRORS)[number];

/** The answer to every completed verification: AP2's outcome, its signed receipt, and the decision it made (steps 6–9). */
export const mandateVerificationSchema = z
  .object({
    object: z.literal('mandate_verification'),
    status: z.enum(['Success', 'Error']).describe('AP2\'s receipt status'),
    error: z.enum(RECEIPT_ERRORS).nullable().describe('AP2\'s error name; null on Success'),
    error_description: z.string().nullable().describe('Why; for a failing constraint it starts with the constraint\'s type; null on Success'),
    reference: z.string().describe('base64url SHA-256 of the closed mandate\'s JWT (the last `~~` part up to its first `~`)'),
    receipt: z.string().describe('AP2 payment receipt: a compact JWS, `{alg: "ES256", typ: "payment-receipt+jwt", kid}`, verifiable with the JWKS'),
    mandate_id: idOf('mdt', 'The mandate presented').nullable().describe('The mandate presented; null when the credential was not ours'),
    decision_id: idOf('dec', 'The decision it made').nullable().describe('The decision recorded (steps 6–9); null when none was'),
    authorization_token: z.string().regex(/^gca_/).optional().describe('Only on Success: the `gca_` token of the approval'),
  })
  .describe('The outcome of an AP2 mandate presentation.');
export type MandateVerificationView = z.infer<typeof mandateVerificationSchema>;
