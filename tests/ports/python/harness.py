"""Harness mode, protocol 1 (corpus/conformance/harness.md).

Requests and responses are the runner's own framing, not session lines, so
the standard json module reads and writes them.
"""

import base64
import binascii
import json
import os
import sys

PROTOCOL = 1
VERSION = "0.1.0"
COMMANDS = ["check", "estimate", "canon", "trim", "append"]


def _answer(out, message):
    out.write(json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n")
    out.flush()


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def _run(execute, request, home):
    seq = request.get("seq")
    argv = request.get("argv")
    stdin_b64 = request.get("stdin_b64")
    cwd = request.get("cwd")
    if not isinstance(seq, int) or isinstance(seq, bool):
        return {"op": "error", "message": "run request without an integer seq"}
    if not isinstance(argv, list) or not all(isinstance(w, str) for w in argv):
        return {"op": "error", "message": "run request without argv", "seq": seq}
    if not isinstance(stdin_b64, str):
        return {"op": "error", "message": "run request without stdin_b64", "seq": seq}
    if cwd is not None and (not isinstance(cwd, str) or cwd == "" or "\0" in cwd):
        return {"op": "error", "message": "run request with a bad cwd", "seq": seq}
    try:
        stdin = base64.b64decode(stdin_b64, validate=True)
    except (binascii.Error, ValueError):
        return {"op": "error", "message": "stdin_b64 is not base64", "seq": seq}
    if any("\0" in w for w in argv):
        return {"op": "error", "message": "argv holds a NUL byte", "seq": seq}

    def read_stdin():
        return stdin

    if cwd is not None:
        try:
            os.chdir(cwd)
        except OSError as err:
            message = "cannot enter %s: %s\n" % (cwd, err.strerror or err)
            return {"op": "run", "seq": seq, "exit": 3, "stdout_b64": "",
                    "stderr_b64": _b64(message.encode("utf-8", "replace"))}
    try:
        code, out, err = execute(argv, read_stdin)
    except Exception as crash:  # a bug of this port must not end the harness
        code, out, err = 70, b"", ("internal error: %r\n" % (crash,)).encode()
    finally:
        if cwd is not None:
            os.fchdir(home)
    return {"op": "run", "seq": seq, "exit": code,
            "stdout_b64": _b64(out), "stderr_b64": _b64(err)}


def serve(execute, name):
    out = sys.stdout.buffer
    sys.stdout = None   # nothing else may reach standard output
    home = os.open(".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return 0
        try:
            request = json.loads(line)
        except ValueError:
            _answer(out, {"op": "error", "message": "request is not one line of JSON"})
            continue
        if not isinstance(request, dict):
            _answer(out, {"op": "error", "message": "request is not a JSON object"})
            continue
        op = request.get("op")
        if op == "start":
            if request.get("protocol") != PROTOCOL:
                _answer(out, {"op": "error", "message": "only protocol 1 is spoken"})
                return 1
            _answer(out, {"op": "start", "protocol": PROTOCOL,
                          "port": {"name": name, "version": VERSION,
                                   "language": "Python"},
                          "commands": COMMANDS})
        elif op == "run":
            _answer(out, _run(execute, request, home))
        elif op == "stop":
            _answer(out, {"op": "stop"})
            return 0
        else:
            _answer(out, {"op": "error", "message": "unknown op"})
