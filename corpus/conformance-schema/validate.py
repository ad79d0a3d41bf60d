#!/usr/bin/env python3
"""Validates the conformance kit's JSON against its schemas (draft 2020-12).

    python3 corpus/conformance-schema/validate.py [--vectors DIR]
    python3 corpus/conformance-schema/validate.py --export FILE
    python3 corpus/conformance-schema/validate.py --lines KIND FILE
    python3 corpus/conformance-schema/validate.py --properties FILE

- every vector's expect.json (each folder of DIR, default: the
  corpus/conformance beside this folder) against expect.schema.json, and
  its base64 fields (stdin_b64, file_after_b64) for canonical base64;
- every example in examples/: KIND-valid.jsonl and KIND-invalid.jsonl,
  KIND being request, response (harness-KIND.schema.json),
  adapter-request, adapter-response (KIND.schema.json: the adapter
  protocol, corpus/conformance/adapter.md), properties-report (the JSON
  report of agent-session-conform properties) or expect (expect.schema.json). Each line of a -valid file is one message that the
  schema must accept; each line of an -invalid file is
  {"why": "...", "message": M}, and the schema must reject M;
- with --export FILE, instead: FILE, a document that
  `agent-session-conform export --format json` wrote, against
  export.schema.json (whose vectors' checks are expect.schema.json's), and
  its base64 fields for canonical base64;
- with --properties FILE, instead: FILE, the JSON report of
  `agent-session-conform properties --report json=FILE`, against
  properties-report.schema.json;
- with --lines KIND FILE, instead: each line of FILE, one message that
  KIND's schema must accept (as a KIND-valid.jsonl example): the
  messages a selftest exchanged (conform/adapters/selftest.mjs).

Stricter than plain json.load on purpose, as the runner's parser is: a
number with a fraction or an exponent (1.0, 1e0) is no integer, a
duplicate key is an error, and the text must be UTF-8.

Exit 0 when everything holds; 1 otherwise, with one line per problem on
standard error naming the file (and line) and why; 2 when jsonschema is
missing (Debian: apt-get install python3-jsonschema).
"""

import argparse
import base64
import binascii
import decimal
import json
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:
    sys.stderr.write("validate.py: needs the jsonschema package (Debian: apt-get install python3-jsonschema)\n")
    sys.exit(2)

HERE = Path(__file__).resolve().parent
SCHEMAS = {
    "expect": "expect.schema.json",
    "request": "harness-request.schema.json",
    "response": "harness-response.schema.json",
    "adapter-request": "adapter-request.schema.json",
    "adapter-response": "adapter-response.schema.json",
    "export": "export.schema.json",
    "properties-report": "properties-report.schema.json",
}


class DuplicateKey(ValueError):
    pass


def no_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(f"duplicate key {key!r}")
        result[key] = value
    return result


def parse(text):
    # Decimal is a number but never an integer to jsonschema, so "exit": 1.0
    # fails "type": "integer" as it fails the runner's is_number_integer.
    return json.loads(text, object_pairs_hook=no_duplicates, parse_float=decimal.Decimal)


def validator(name):
    schema = parse((HERE / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    # export.schema.json refers to expect.schema.json beside it, and the
    # adapter schemas to the harness ones, by relative references: resolved
    # against this folder.
    resolver = jsonschema.RefResolver(base_uri=(HERE / name).as_uri(), referrer=schema)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def why_invalid(validator, instance):
    """The schema's reasons, deepest first, or [] when the instance is valid."""
    errors = sorted(validator.iter_errors(instance), key=lambda e: -len(e.absolute_path))
    reasons = []
    for error in errors:
        # oneOf failures carry the reason of each branch in error.context.
        leaf = min(error.context, key=lambda e: len(e.schema_path), default=None) if error.context else None
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        reasons.append(f"at {where}: {error.message}" + (f" (e.g. {leaf.message})" if leaf else ""))
    return reasons


def base64_problems(instance):
    """What the schema's pattern cannot see in a file check's base64 fields
    (README.md "Checks that write FILE"): the runner decodes only canonical
    base64, so padding bits must be zero too."""
    problems = []
    checks = instance.get("checks") if isinstance(instance, dict) else None
    for number, check in enumerate(checks if isinstance(checks, list) else [], 1):
        for key in ("stdin_b64", "file_after_b64"):
            value = check.get(key) if isinstance(check, dict) else None
            if not isinstance(value, str):
                continue
            if not canonical_base64(value):
                problems.append(f"check {number}: {key} is not canonical padded base64 (RFC 4648 section 4)")
    return problems


def canonical_base64(value):
    try:
        return base64.b64encode(base64.b64decode(value, validate=True)).decode("ascii") == value
    except (ValueError, binascii.Error):
        return False


def export_problems(validator, path):
    """The problems of an export document: the schema's, then each base64
    field that is not canonical (the runner writes only canonical base64)."""
    try:
        document = parse(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return [f"{path}: unreadable: {shorten(str(error))}"], None
    problems = [f"{path}: {reason}" for reason in why_invalid(validator, document)]
    for vector in document.get("vectors", []) if isinstance(document, dict) else []:
        if not isinstance(vector, dict):
            continue
        fields = [("input_b64", vector.get("input_b64"))]
        for check in vector.get("checks", []) if isinstance(vector.get("checks"), list) else []:
            if isinstance(check, dict):
                fields += [(key, check.get(key)) for key in ("stdin_b64", "file_after_b64")]
        for key, value in fields:
            if isinstance(value, str) and not canonical_base64(value):
                problems.append(f"{path}: {vector.get('name')}: {key} is not canonical padded base64")
    return problems, document


def lines_problems(validator, kind, path):
    """The problems of FILE's lines, each a message KIND's schema must accept."""
    try:
        lines = path.read_bytes().decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as error:
        return [f"{path}: unreadable: {error}"]
    problems = []
    for number, line in enumerate(lines, 1):
        if line == "":
            continue
        try:
            item = parse(line)
        except ValueError as error:
            problems.append(f"{path}:{number}: not JSON: {error}")
            continue
        problems += [f"{path}:{number}: not a valid {kind}: {reason}" for reason in why_invalid(validator, item)]
    return problems


def shorten(text, limit=160):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def any_reported(problems, where):
    """Writes each problem, then their count, to standard error; True when there were any."""
    for problem in problems:
        sys.stderr.write(problem + "\n")
    if problems:
        sys.stderr.write(f"validate.py: {len(problems)} problems in {where}\n")
    return bool(problems)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=Path, default=HERE.parent / "conformance", help="the vectors' folder")
    parser.add_argument("--export", type=Path, help="validate this export document instead")
    parser.add_argument("--properties", type=Path, help="validate this properties report instead")
    parser.add_argument("--lines", nargs=2, metavar=("KIND", "FILE"),
                        help="validate each line of FILE against KIND's schema instead")
    args = parser.parse_args()

    problems = []
    counts = {"expect.json": 0, "valid examples": 0, "invalid examples": 0}

    try:
        validators = {kind: validator(name) for kind, name in SCHEMAS.items()}
    except (OSError, ValueError, jsonschema.SchemaError) as error:
        sys.stderr.write(f"validate.py: a schema is unusable: {shorten(str(error), 400)}\n")
        return 1

    if args.properties:
        try:
            report = parse(args.properties.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            sys.stderr.write(f"{args.properties}: unreadable: {shorten(str(error))}\n")
            return 1
        problems = [f"{args.properties}: {r}" for r in why_invalid(validators["properties-report"], report)]
        if any_reported(problems, args.properties):
            return 1
        print(f"validate.py: ok ({args.properties}: a properties report of {report['judged']} sessions)")
        return 0

    if args.lines:
        kind, path = args.lines[0], Path(args.lines[1])
        if kind not in validators:
            sys.stderr.write(f"validate.py: --lines: KIND is one of {', '.join(SCHEMAS)}, not {kind!r}\n")
            return 2
        problems = lines_problems(validators[kind], kind, path)
        if any_reported(problems, path):
            return 1
        print(f"validate.py: ok ({path}: every line a valid {kind})")
        return 0

    if args.export:
        problems, document = export_problems(validators["export"], args.export)
        if any_reported(problems, args.export):
            return 1
        print(f"validate.py: ok ({args.export}: {len(document['vectors'])} vectors, "
              f"{len(document['runner_checks'])} runner checks, vectors {document['vectors_version']})")
        return 0

    # 1. Every vector's expect.json.
    # Every folder is a vector, as the runner sees it: this folder lives
    # beside the vectors, not among them, or the runner would run it.
    folders = sorted(p for p in args.vectors.iterdir() if p.is_dir())
    if not folders:
        problems.append(f"{args.vectors}: no vector folders")
    for folder in folders:
        expect = folder / "expect.json"
        if not (folder / "input.jsonl").is_file():
            problems.append(f"{folder}: no input.jsonl")
        try:
            instance = parse(expect.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            problems.append(f"{expect}: unreadable: {error}")
            continue
        counts["expect.json"] += 1
        for reason in why_invalid(validators["expect"], instance):
            problems.append(f"{expect}: {reason}")
        for reason in base64_problems(instance):
            problems.append(f"{expect}: {reason}")

    # 2. The examples, valid and invalid.
    examples = sorted((HERE / "examples").glob("*"))
    seen = set()
    for path in examples:
        stem = path.name.removesuffix(".jsonl")
        kind, _, verdict = stem.rpartition("-")
        if not path.name.endswith(".jsonl") or kind not in validators or verdict not in ("valid", "invalid"):
            problems.append(f"{path}: not KIND-valid.jsonl or KIND-invalid.jsonl (KIND: {', '.join(SCHEMAS)})")
            continue
        seen.add(stem)
        try:
            lines = path.read_bytes().decode("utf-8").split("\n")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"{path}: unreadable: {error}")
            continue
        for number, line in enumerate(lines, 1):
            if line == "":
                continue
            where = f"{path}:{number}"
            try:
                item = parse(line)
            except ValueError as error:
                problems.append(f"{where}: not JSON: {error}")
                continue
            if verdict == "valid":
                counts["valid examples"] += 1
                for reason in why_invalid(validators[kind], item):
                    problems.append(f"{where}: a valid {kind} was rejected: {reason}")
            else:
                if not (isinstance(item, dict) and set(item) == {"why", "message"} and isinstance(item["why"], str)):
                    problems.append(f'{where}: an invalid example must be {{"why": "...", "message": ...}}')
                    continue
                counts["invalid examples"] += 1
                if not why_invalid(validators[kind], item["message"]):
                    problems.append(f"{where}: an invalid {kind} ({item['why']}) was accepted: {shorten(line)}")
    for kind in SCHEMAS:
        for verdict in ("valid", "invalid"):
            if f"{kind}-{verdict}" not in seen:
                problems.append(f"{HERE / 'examples'}: no {kind}-{verdict}.jsonl")

    for problem in problems:
        sys.stderr.write(problem + "\n")
    summary = ", ".join(f"{n} {what}" for what, n in counts.items())
    if problems:
        sys.stderr.write(f"validate.py: {len(problems)} problems ({summary})\n")
        return 1
    print(f"validate.py: ok ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
