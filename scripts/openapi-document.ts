/**
 * Prints the OpenAPI document the app serves at /v1/openapi.json, built by the same generator,
 * without starting a server: the input of the generated client types and of the API fuzzer.
 *
 *   npx tsx scripts/openapi-document.ts > openapi.json
 */
import { buildOpenApiDocument } from '../src/http/openapi.js';

process.stdout.write(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
