#!/usr/bin/env python3
"""agent-session, an independent Python port of SPEC.md §6 (exec and harness mode).

    agent_session.py check FILE | estimate FILE | canon FILE
    agent_session.py trim --max-chars N FILE
    agent_session.py append FILE          (messages on standard input)
    agent_session.py harness              (corpus/conformance/harness.md)

Exit 0 success, 1 invalid session or budget error, 2 usage error, 3 I/O or
resource error.  FILE may be '-' (standard input) except for append.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.setrecursionlimit(20000)

import session  # noqa: E402  (after the path is set)

PROG = "agent-session-py"
COMMANDS = ("check", "estimate", "canon", "trim", "append")
MAX_BUDGET = 2 ** 64 - 1
USAGE = ("usage: %s check|estimate|canon FILE | trim --max-chars N FILE | "
         "append FILE" % PROG)


class Failure(Exception):
    """Ends a run with an exit code and one line on standard error."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def usage(message):
    return Failure(2, "%s (%s)" % (message, USAGE))


def os_reason(err):
    return err.strerror or str(err)


def printable(path):
    """A path for one line of standard error (control characters escaped)."""
    return "".join(ch if ch >= " " and ch != "\x7f" else "\\x%02x" % ord(ch)
                   for ch in path)


def parse_budget(text):
    """§6.1: one or more ASCII digits, decimal, saturating at 2^64 - 1."""
    if text == "":
        raise usage("--max-chars needs a value")
    for ch in text:
        if ch not in "0123456789":
            raise usage("--max-chars must be a whole number of digits 0-9, "
                        "got %r" % text)
    digits = text.lstrip("0") or "0"
    if len(digits) > 20:
        return MAX_BUDGET
    return min(int(digits), MAX_BUDGET)


def parse_args(argv):
    """(command, budget or None, FILE); Failure(2) for any usage error."""
    if not argv:
        raise usage("missing command")
    command = argv[0]
    if command not in COMMANDS:
        raise usage("unknown command %r" % command)
    budget = None
    seen_budget = False
    files = []
    rest = argv[1:]
    i = 0
    while i < len(rest):
        word = rest[i]
        if command == "trim" and word == "--max-chars":
            if seen_budget:
                raise usage("--max-chars given twice")
            if i + 1 >= len(rest):
                raise usage("--max-chars needs a value")
            seen_budget = True
            budget = parse_budget(rest[i + 1])
            i += 2
            continue
        if word.startswith("-") and word != "-":
            raise usage("unknown option %r for %s" % (word, command))
        files.append(word)
        i += 1
    if command == "trim" and not seen_budget:
        raise usage("trim needs --max-chars N")
    if not files:
        raise usage("missing FILE")
    if len(files) > 1:
        raise usage("extra argument %r" % files[1])
    if command == "append" and files[0] == "-":
        raise usage("append reads messages from standard input; FILE cannot be '-'")
    return command, budget, files[0]


def read_file(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise Failure(3, "cannot read %s: no such file (No such file or directory)"
                      % printable(path)) from None
    except OSError as err:
        raise Failure(3, "cannot read %s: %s" % (printable(path), os_reason(err))) from None


def read_stdin(stdin):
    try:
        return stdin()
    except OSError as err:
        raise Failure(3, "cannot read standard input: %s" % os_reason(err)) from None


def load(data):
    try:
        return session.load_bytes(data)
    except session.SessionError as err:
        raise Failure(1, str(err)) from None


def append(path, stdin):
    batch = load(read_stdin(stdin))          # judged before FILE is looked at
    try:
        with open(path, "rb") as handle:
            existing = handle.read()
    except FileNotFoundError:
        existing = None
    except OSError as err:
        raise Failure(3, "cannot read %s: %s" % (printable(path), os_reason(err))) from None
    prefix = b""
    if existing and not existing.endswith(b"\n"):
        # The last line is judged as loading would, at its physical number.
        last = existing[existing.rfind(b"\n") + 1:]
        try:
            session.judge_line(last, existing.count(b"\n") + 1)
        except session.SessionError as err:
            raise Failure(1, str(err)) from None
        prefix = b"\n"
    data = prefix + session.canonical_jsonl(batch).encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        finally:
            os.close(fd)
    except OSError as err:
        raise Failure(3, "cannot append to %s: %s" % (printable(path), os_reason(err))) from None


def execute(argv, stdin):
    """Run one command line: (exit, stdout bytes, stderr bytes).

    stdin is a callable returning standard input's bytes (or raising OSError).
    Nothing here ends the process or keeps state between calls.
    """
    try:
        command, budget, path = parse_args(argv)
        if command == "append":
            append(path, stdin)
            return 0, b"", b""
        data = read_stdin(stdin) if path == "-" else read_file(path)
        messages = load(data)
        if command == "check":
            text = "%d messages\n" % len(messages)
        elif command == "estimate":
            text = "%d\n" % session.estimate(messages)
        elif command == "canon":
            text = session.canonical_jsonl(messages)
        else:
            try:
                kept = session.trim(messages, budget)
            except session.SessionError as err:
                raise Failure(1, str(err)) from None
            text = session.canonical_jsonl(kept)
        return 0, text.encode("utf-8"), b""
    except Failure as failure:
        return failure.code, b"", ("%s: %s\n" % (PROG, failure.message)).encode("utf-8", "replace")
    except MemoryError:
        return 3, b"", ("%s: out of memory\n" % PROG).encode()
    except RecursionError:
        return 3, b"", ("%s: nested too deeply for this implementation\n" % PROG).encode()


def write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def exec_stdin():
    if sys.stdin is None:                   # descriptor 0 closed at start
        raise OSError(9, "Bad file descriptor")
    chunks = []
    while True:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def main(argv):
    if argv == ["harness"]:
        import harness
        return harness.serve(execute, PROG)
    stdout_closed = sys.stdout is None      # descriptor 1 closed at start
    try:
        code, out, err = execute(argv, exec_stdin)
    except Exception as crash:  # a bug of this port: exit 70, one line
        code, out, err = 70, b"", ("%s: internal error: %r\n" % (PROG, crash)).encode()
    if code == 0 and argv and argv[0] != "append":
        try:
            if stdout_closed:
                raise OSError(9, "Bad file descriptor")
            write_all(1, out)
        except OSError as error:
            code, err = 3, ("%s: cannot write standard output: %s\n"
                            % (PROG, os_reason(error))).encode()
    if err:
        try:
            write_all(2, err)
        except OSError:
            pass
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
