#!/usr/bin/env python3
"""json_check.py SCHEMA [FILE]: checks each line of FILE (default stdin)
as one JSON document against SCHEMA, a JSON Schema that uses only what
docs/console-json.schema.json uses: $ref to #/$defs, oneOf, type,
required, properties, additionalProperties false, items, minimum,
maximum, pattern.  A keyword it does not know is an error, so a schema
that grows cannot be half checked.  Prints every error; exit status 1
when there was one (or no document at all)."""
import json
import re
import sys

KNOWN = {"$schema", "$id", "title", "description", "$defs", "$ref", "oneOf",
         "type", "required", "properties", "additionalProperties", "items",
         "minimum", "maximum", "pattern"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def type_ok(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def check(root, schema, value, path):
    """Returns the list of errors of value against schema."""
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"schema: unknown keywords {sorted(unknown)}"]
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            return [f"schema: unsupported $ref {ref}"]
        return check(root, root["$defs"][ref[8:]], value, path)
    if "oneOf" in schema:
        ok = [s for s in schema["oneOf"] if not check(root, s, value, path)]
        if len(ok) != 1:
            return [f"{path}: matches {len(ok)} of the oneOf schemas"]
        return []
    errs = []
    if "type" in schema and not type_ok(value, schema["type"]):
        return [f"{path}: {value!r} is not of type {schema['type']}"]
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errs.append(f"{path}: missing {key}")
        props = schema.get("properties", {})
        for key, sub in value.items():
            if key in props:
                errs += check(root, props[key], sub, f"{path}.{key}")
            elif schema.get("additionalProperties", True) is False:
                errs.append(f"{path}: unexpected {key}")
    if isinstance(value, list) and "items" in schema:
        for i, sub in enumerate(value):
            errs += check(root, schema["items"], sub, f"{path}[{i}]")
    if "minimum" in schema and value < schema["minimum"]:
        errs.append(f"{path}: {value} < {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        errs.append(f"{path}: {value} > {schema['maximum']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errs.append(f"{path}: {value!r} does not match {schema['pattern']}")
    return errs


def main():
    root = json.load(open(sys.argv[1]))
    src = open(sys.argv[2]) if len(sys.argv) > 2 else sys.stdin
    bad = n = 0
    for lineno, line in enumerate(src, 1):
        if not line.strip():
            continue
        n += 1
        try:
            doc = json.loads(line)
        except ValueError as e:
            print(f"line {lineno}: not JSON: {e}")
            bad += 1
            continue
        for err in check(root, root, doc, "$"):
            print(f"line {lineno}: {err}")
            bad += 1
    if n == 0:
        print("no document")
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
