import { z } from 'zod';

/** The outline of the served OpenAPI document (its full grammar is the OpenAPI 3.1 specification's). */
export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
    components: z.record(z.string(), z.unknown()),
    webhooks: z.record(z.string(), z.unknown()),
  })
  .describe('An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0).');
