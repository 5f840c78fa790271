/**
 * The usage objects as the OpenAPI document describes them to clients: every field's description
 * and pattern, word for word (the generated client types carry the same text).
 */
import { describe, expect, test } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi.js';

describe('usage in the OpenAPI document', () => {
  const schemas = (buildOpenApiDocument() as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;

  test('Usage', () => {
    expect(schemas.Usage).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "description": "A month's billable checks and overage, for the calling key's account and mode.",
        "properties": {
          "checks": {
            "description": "Billable checks: HTTP 200 answers of POST /v1/authorize with a live key (always 0 in test mode)",
            "maximum": 9007199254740991,
            "minimum": 0,
            "type": "integer",
          },
          "daily": {
            "description": "Every UTC day of the month, in order (days to come count 0)",
            "items": {
              "additionalProperties": false,
              "description": "One UTC day's billable checks.",
              "properties": {
                "checks": {
                  "description": "Billable checks that day",
                  "maximum": 9007199254740991,
                  "minimum": 0,
                  "type": "integer",
                },
                "date": {
                  "description": "A UTC day (YYYY-MM-DD)",
                  "format": "date",
                  "type": "string",
                },
              },
              "required": [
                "date",
                "checks",
              ],
              "type": "object",
            },
            "type": "array",
          },
          "included": {
            "anyOf": [
              {
                "maximum": 9007199254740991,
                "minimum": 0,
                "type": "integer",
              },
              {
                "type": "null",
              },
            ],
            "description": "Checks included in the plan; null = unlimited (test mode, sandbox)",
          },
          "livemode": {
            "description": "True for live-mode objects (\`gc_live_\` keys), false for test mode",
            "type": "boolean",
          },
          "month": {
            "description": "The month (YYYY-MM, UTC)",
            "pattern": "^\\d{4}-(0[1-9]|1[0-2])$",
            "type": "string",
          },
          "object": {
            "const": "usage",
            "type": "string",
          },
          "overage_amount": {
            "description": "What the overage costs, in USD, as a decimal string",
            "pattern": "^\\d+\\.\\d+$",
            "type": "string",
          },
          "overage_checks": {
            "description": "Checks beyond the included ones",
            "maximum": 9007199254740991,
            "minimum": 0,
            "type": "integer",
          },
          "plan": {
            "description": "The account's plan",
            "enum": [
              "sandbox",
              "starter",
              "growth",
              "enterprise",
            ],
            "type": "string",
          },
        },
        "required": [
          "object",
          "month",
          "plan",
          "checks",
          "included",
          "overage_checks",
          "overage_amount",
          "livemode",
          "daily",
        ],
        "type": "object",
      }
    `);
  });
});
