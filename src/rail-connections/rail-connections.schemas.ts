import Stripe from 'stripe';
import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';
import { limitSchema } from '../kernel/schemas.js';

/** The Stripe API version the project's `stripe` package pins: the default `stripe_version` of a connection. */
export const DEFAULT_STRIPE_VERSION: string = Stripe.API_VERSION;

export const ON_TIMEOUT = ['decline', 'approve'] as const;
export type OnTimeout = (typeof ON_TIMEOUT)[number];

export const createRailConnectionSchema = z.strictObject({
  type: z.literal('stripe_issuing').describe('The rail: `stripe_issuing` (Stripe Issuing real-time authorizations)'),
  signing_secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]{8,250}$/, 'must be the signing secret Stripe shows for the endpoint (whsec_…)')
    .describe("The endpoint's signing secret from Stripe (`whsec_…`): write-only, never returned"),
  stripe_version: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/, 'must be a Stripe API version such as 2026-10-28.endive')
    .optional()
    .describe(`The Stripe API version of the endpoint, sent back as \`Stripe-Version\` on every answer (default ${DEFAULT_STRIPE_VERSION})`),
  on_timeout: z
    .enum(ON_TIMEOUT)
    .optional()
    .describe('The answer when no decision is reached within the deadline (1.5 s): `decline` (default) or `approve`'),
});
export type CreateRailConnectionInput = z.output<typeof createRailConnectionSchema>;

export const listRailConnectionsQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
});
export type ListRailConnectionsQuery = z.output<typeof listRailConnectionsQuery>;
