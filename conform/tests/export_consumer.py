#!/usr/bin/env python3
"""Runs the conformance vectors from their export document against a port,
without agent-session-conform: what a Python port's own test suite does
(corpus/conformance/README.md, "The vectors as one document").

    agent-session-conform export --format json --out vectors.json
    python3 conform/tests/export_consumer.py vectors.json [--only GLOB]... -- CMD ARGS...

Each check of each vector runs as CMD ARGS... FILE (FILE a file holding the
vector's input) and again as CMD ARGS... - (the input on standard input); a
file check (one with stdin) runs once, with FILE as its "file" says, and
FILE's bytes are compared after the run; the runner's own checks run once
each, with their streams. Every run starts in a new empty folder. Judged as
the runner judges (export.schema.json says how). Prints one FAIL line per
failing run and "N passed, M failed" (vectors). Exit 0 when every vector
passed, 1 when one failed, 2 on a usage error. Standard library only.
"""

import argparse
import base64
import fnmatch
import json
import os
import subprocess
import sys
import tempfile

TIMEOUT = 10  # seconds a run may take, as the runner's default --timeout


def bytes_of(item, key):
    """A bytes field: KEY as UTF-8 text, or KEY_b64 as base64; None for null."""
    if key + "_b64" in item:
        return None if item[key + "_b64"] is None else base64.b64decode(item[key + "_b64"], validate=True)
    return None if item[key] is None else item[key].encode("utf-8")


def run(argv, folder, stdin=b"", stdin_stream="pipe", stdout_stream="pipe"):
    """(exit code or a reason it has none, stdout, stderr) of one run in `folder`."""
    closing, opened = [], []
    stdin_arg, stdout_arg = subprocess.PIPE, subprocess.PIPE
    if stdin_stream == "closed":
        stdin_arg, stdin, _ = None, None, closing.append(0)
    elif stdin_stream != "pipe":
        stdin_arg, stdin = os.open(stdin_stream, os.O_RDONLY), None
        opened.append(stdin_arg)
    if stdout_stream == "closed":
        stdout_arg, _ = None, closing.append(1)
    elif stdout_stream != "pipe":
        stdout_arg = os.open(stdout_stream, os.O_WRONLY)
        opened.append(stdout_arg)

    def close_streams():
        for descriptor in closing:
            os.close(descriptor)

    try:
        process = subprocess.Popen(argv, cwd=folder, stdin=stdin_arg, stdout=stdout_arg, stderr=subprocess.PIPE,
                                   preexec_fn=close_streams if closing else None)
    finally:
        for descriptor in opened:
            os.close(descriptor)
    try:
        out, err = process.communicate(stdin, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        return f"timed out after {TIMEOUT} s", out or b"", err
    code = process.returncode
    return (code if code >= 0 else f"killed by signal {-code}"), out or b"", err


def contains_error(err, error):
    """Whether `error` is in standard error, followed by a newline, the end or ': '."""
    at = err.find(error)
    while at >= 0:
        rest = err[at + len(error):at + len(error) + 2]
        if rest in (b"", b": ") or rest[:1] == b"\n":
            return True
        at = err.find(error, at + 1)
    return False


def judge(check, code, out, err):
    """Why the run fails `check`, or None (the runner's rules, SPEC §6)."""
    if code != check["exit"]:
        return f"exit {code}, expected {check['exit']}; stderr: {err[:120]!r}"
    if code == 0:
        expected = check["stdout"].encode("utf-8") if "stdout" in check else b""
        if out != expected:
            return f"stdout {out[:120]!r}, expected {expected[:120]!r}"
        if err:
            return f"stderr is not empty: {err[:120]!r}"
    elif out:
        return f"stdout is not empty after exit {code}: {out[:120]!r}"
    if code == 1 and not contains_error(err, check["error"].encode("utf-8")):
        return f"stderr lacks {check['error']!r} followed by end of line or ': '; stderr: {err[:120]!r}"
    return None


def file_check(command, check, data):
    """A check with stdin (README.md "Checks that write FILE"): one run."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "session.jsonl")
        where = check.get("file")
        if where is None:
            with open(path, "wb") as file:
                file.write(data)
        argv = command + check["args"] + ["-" if where == "-" else path]
        code, out, err = run(argv, folder, bytes_of(check, "stdin"))
        why = judge(check, code, out, err)
        if why or where == "-":
            return why
        expected = bytes_of(check, "file_after")
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
            return "after the run, FILE is not a regular file"
        actual = open(path, "rb").read() if os.path.lexists(path) else None
        if actual != expected:
            return f"FILE after the run: {actual!r:.120}, expected {expected!r:.120}"
    return None


def runner_check(command, check, data):
    """One of the runner's own checks (SPEC §6.1): one run with its streams."""
    with tempfile.TemporaryDirectory() as folder:
        missing = os.path.join(folder, "absent", "session.jsonl")
        path = {"-": "-", "folder": folder, "missing": missing}.get(check["file"])
        if path is None:
            path = os.path.join(folder, "session.jsonl")
            with open(path, "wb") as file:
                file.write(data)
        argv = command + check["args"] + [path] + check["after_file"]
        code, out, err = run(argv, folder, b"", check["stdin_stream"], check["stdout_stream"])
        if code != check["exit"]:
            return f"exit {code}, expected {check['exit']}; stderr: {err[:120]!r}"
        if out:
            return f"stdout is not empty: {out[:120]!r}"
        lines = err.count(b"\n") + (0 if err.endswith(b"\n") else 1)
        if check["stderr_one_line"] and (not err or lines != 1):
            return f"stderr holds {lines if err else 0} lines, expected exactly one: {err[:120]!r}"
        mentions = check["stderr_mentions"] + ([path] if check["stderr_names_file"] else [])
        for mention in mentions:
            if mention.encode("utf-8").lower() not in err.lower():
                return f"stderr lacks {mention!r} (letter case aside): {err[:120]!r}"
    return None


def vector_failures(command, vector, own):
    """The FAIL lines of one vector."""
    data = bytes_of(vector, "input")
    failures = []
    for check in vector["checks"]:
        shown = " ".join(check["args"])
        if own:
            runs = [(f"{shown} {check['file']}", lambda: runner_check(command, check, data))]
        elif "stdin" in check or "stdin_b64" in check:
            runs = [(f"{shown} FILE", lambda: file_check(command, check, data))]
        else:
            runs = []
            for mode in ("FILE", "-"):
                def one(mode=mode):
                    with tempfile.TemporaryDirectory() as folder:
                        path = os.path.join(folder, "input.jsonl")
                        with open(path, "wb") as file:
                            file.write(data)
                        argv = command + check["args"] + [path if mode == "FILE" else "-"]
                        return judge(check, *run(argv, folder, data if mode == "-" else b""))
                runs.append((f"{shown} {mode}", one))
        for label, attempt in runs:
            why = attempt()
            if why:
                failures.append(f"FAIL {vector['name']} ({label}): {why}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("document", help="what agent-session-conform export --format json wrote")
    parser.add_argument("--only", action="append", default=[], help="run the vectors whose name matches this glob")
    parser.add_argument("command", nargs="+", help="the port's command line, after --")
    args = parser.parse_args()
    with open(args.document, "rb") as file:
        document = json.loads(file.read().decode("utf-8"))
    # Words that name a file or folder here are made absolute: each run
    # starts in a folder of its own.
    command = [os.path.abspath(word) if os.path.exists(word) and ("/" in word or os.path.isfile(word)) else word
               for word in args.command]
    chosen = [(vector, False) for vector in document["vectors"]] + [(v, True) for v in document["runner_checks"]]
    if args.only:
        chosen = [(v, own) for v, own in chosen if any(fnmatch.fnmatchcase(v["name"], glob) for glob in args.only)]
        if not chosen:
            parser.error("--only matches no vector")
    passed = failed = 0
    for vector, own in chosen:
        failures = vector_failures(command, vector, own)
        for line in failures:
            print(line)
        failed, passed = failed + bool(failures), passed + (not failures)
    print(f"{passed} passed, {failed} failed (vectors {document['vectors_version']})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
