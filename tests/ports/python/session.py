"""Messages, loading, canonical form, estimate and trimming (SPEC.md §1-§5)."""

from sessjson import JsonError, parse_line

JSON_ERROR = "invalid session JSON at line %d"
RECORD_ERROR = "invalid session record at line %d"
EMPTY_BUDGET = "context budget cannot be empty"
UNIT_TOO_BIG = "context budget cannot contain the smallest consistent message unit"

MAX_INDEX_KEY = 4294967294  # array-index keys: 0 .. 2^32 - 2


class SessionError(Exception):
    """An invalid session or a budget error (exit 1): text, then a detail."""

    def __init__(self, text, detail=""):
        super().__init__(text + (": " + detail if detail else ""))
        self.text = text


# ---------------------------------------------------------------- §1 messages

class Message:
    """One of the three shapes; kind is 'user', 'assistant' or 'tool'."""

    __slots__ = ("kind", "content", "tool_calls", "tool_call_id", "is_error")

    def __init__(self, kind, content, tool_calls=None, tool_call_id=None,
                 is_error=None):
        self.kind = kind
        self.content = content
        self.tool_calls = tool_calls      # list of (id, name, input)
        self.tool_call_id = tool_call_id
        self.is_error = is_error


def discriminate(value):
    """§1.1: a Message, or None for 'not a message'."""
    if not isinstance(value, dict):
        return None
    role = value.get("role")
    content = value.get("content")
    if not isinstance(role, str) or not isinstance(content, str):
        return None
    if role == "user":
        return Message("user", content)
    if role == "assistant":
        calls = value.get("toolCalls")
        if not isinstance(calls, list):
            return None
        kept = []
        for call in calls:
            if not isinstance(call, dict):
                return None
            call_id = call.get("id")
            name = call.get("name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                return None
            if "input" not in call:
                return None
            kept.append((call_id, name, call["input"]))
        return Message("assistant", content, tool_calls=kept)
    if role == "tool":
        call_id = value.get("toolCallId")
        is_error = value.get("isError")
        if not isinstance(call_id, str) or not isinstance(is_error, bool):
            return None
        return Message("tool", content, tool_call_id=call_id, is_error=is_error)
    return None


# ----------------------------------------------------------------- §2 loading

def judge_line(line, number):
    """One non-empty line: its Message, or SessionError with its number."""
    try:
        value = parse_line(line)
    except JsonError as err:
        raise SessionError(JSON_ERROR % number, str(err)) from None
    message = discriminate(value)
    if message is None:
        raise SessionError(RECORD_ERROR % number, "not a session message")
    return message


def load_bytes(data):
    """Split on '\\n' only, skip exactly empty lines (still counted)."""
    messages = []
    number = 0
    for line in data.split(b"\n"):
        number += 1
        if line == b"":
            continue
        messages.append(judge_line(line, number))
    return messages


# ---------------------------------------------------------- §3 canonical form

_ESCAPES = {i: "\\u%04x" % i for i in range(0x20)}
_ESCAPES.update({0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r",
                 0x09: "\\t", 0x22: '\\"', 0x5C: "\\\\"})


def quote(text):
    return '"' + text.translate(_ESCAPES) + '"'


def js_number(x):
    """ECMAScript Number::toString for a finite double."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    # repr gives the shortest digits that read back as x, the closest to x
    # (ties to even) when several do; only the layout differs from ECMAScript.
    text = repr(x)
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    n = len(whole) + exponent      # x = 0.DIGITS * 10^n
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return head + "e" + sign + str(abs(e))


def is_index_key(key):
    """The canonical decimal form of 0 .. 4294967294, judged on the whole key."""
    if key == "0":
        return True
    if key == "" or len(key) > 10 or key[0] == "0":
        return False
    for ch in key:
        if ch not in "0123456789":
            return False
    return int(key) <= MAX_INDEX_KEY


def canon_value(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list):
        return "[" + ",".join(canon_value(item) for item in value) + "]"
    index_keys = sorted((k for k in value if is_index_key(k)), key=int)
    other_keys = [k for k in value if not is_index_key(k)]
    return "{" + ",".join(quote(k) + ":" + canon_value(value[k])
                          for k in index_keys + other_keys) + "}"


def canonical(message):
    head = '{"role":"%s","content":%s' % (message.kind, quote(message.content))
    if message.kind == "user":
        return head + "}"
    if message.kind == "assistant":
        calls = ",".join(
            '{"id":%s,"name":%s,"input":%s}'
            % (quote(call_id), quote(name), canon_value(value))
            for call_id, name, value in message.tool_calls)
        return head + ',"toolCalls":[' + calls + "]}"
    return head + ',"toolCallId":%s,"isError":%s}' % (
        quote(message.tool_call_id), "true" if message.is_error else "false")


def canonical_jsonl(messages):
    return "".join(canonical(m) + "\n" for m in messages)


# ---------------------------------------------------------------- §4 estimate

def utf16_length(text):
    """UTF-16 code units: 2 for a code point past U+FFFF, else 1."""
    extra = 0
    if not text.isascii():
        for ch in text:
            if ch > "\uffff":
                extra += 1
    return len(text) + extra


def message_size(message):
    return utf16_length(canonical(message)) + 1


def estimate(messages):
    return sum(message_size(m) for m in messages)


# ---------------------------------------------------------------- §5 trimming

def units(messages):
    """§5.1: (start, end) runs between allowed cuts, oldest first."""
    n = len(messages)
    declared_by = [None] * n
    latest = {}                    # tool call id -> newest declaring assistant
    for i, m in enumerate(messages):
        if m.kind == "tool":
            declared_by[i] = latest.get(m.tool_call_id)
        elif m.kind == "assistant":
            for call_id, _name, _input in m.tool_calls:
                latest[call_id] = i
    # A cut before p is allowed when every result at or after p has its
    # declaring assistant (if any) at or after p.
    cuts = []
    lowest = n                     # min declaring index over results >= p
    for p in range(n - 1, -1, -1):
        if declared_by[p] is not None and declared_by[p] < lowest:
            lowest = declared_by[p]
        if lowest >= p:
            cuts.append(p)
    cuts.reverse()
    bounds = cuts + [n]
    return [(bounds[i], bounds[i + 1]) for i in range(len(cuts))]


def trim(messages, max_chars):
    """§5.2: the kept suffix, or SessionError."""
    if not messages:
        raise SessionError(EMPTY_BUDGET, "the session has no messages")
    kept_from = len(messages)
    kept_size = 0
    for start, end in reversed(units(messages)):
        size = sum(message_size(m) for m in messages[start:end])
        if kept_size + size > max_chars:
            if kept_from == len(messages):
                raise SessionError(
                    UNIT_TOO_BIG, "the newest unit (messages %d to %d) needs %d "
                    "characters, the budget is %d" % (start, end - 1, size, max_chars))
            break
        kept_size += size
        kept_from = start
    return messages[kept_from:]
