"""Reads the OpenAPI document (stdin) and writes the one openapi-python-client is given (stdout).

One change, for a generator bug: a component that is a union (anyOf/oneOf) of inline objects, one
of which holds an inline object of its own (RailAnswer's `metadata`, the audit.checkpoint event's
`data`), makes openapi-python-client 0.29.1 build that inner model twice, refuse the second
("Attempted to generate duplicate models") and leave out the member, while other generated code
still imports it. Such a member is moved to a component of its own, under the very name the
generator gives it (`<Component>_type_<n>`), and referenced from the union: the generated classes
keep their names, and nothing else in the document changes.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def has_inline_object(schema: Any, top: bool = True) -> bool:
    if isinstance(schema, dict):
        if not top and "$ref" not in schema and ("properties" in schema or schema.get("type") == "object"):
            return True
        return any(has_inline_object(v, top=False) for k, v in schema.items() if k != "properties") or any(
            has_inline_object(v, top=False) for v in (schema.get("properties") or {}).values()
        )
    if isinstance(schema, list):
        return any(has_inline_object(v, top=False) for v in schema)
    return False


def hoist(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document.get("components", {}).get("schemas", {})
    for name in list(schemas):
        schema = schemas[name]
        for key in ("anyOf", "oneOf"):
            members = schema.get(key) if isinstance(schema, dict) else None
            if not isinstance(members, list):
                continue
            for i, member in enumerate(members):
                if not isinstance(member, dict) or "$ref" in member or not has_inline_object(member):
                    continue
                hoisted = f"{name}_type_{i}"
                if hoisted in schemas:
                    raise SystemExit(f"python-client-document: {hoisted} already exists in the document")
                schemas[hoisted] = member
                members[i] = {"$ref": f"#/components/schemas/{hoisted}"}
    return document


if __name__ == "__main__":
    json.dump(hoist(json.load(sys.stdin)), sys.stdout, indent=2)
    sys.stdout.write("\n")
