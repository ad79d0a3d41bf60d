"""A strict, hand-written JSON parser for one session line (SPEC.md §2, §2.1).

Input is the raw bytes of one line (no '\n').  The result is a Python value:
dict (insertion order = first occurrence of each key, value = last one),
list, str, float (every number is a double), bool, or None.
Anything that keeps the bytes from being exactly one JSON value, or breaks a
rule of §2.1, raises JsonError.
"""

import math

MAX_DEPTH = 512

WHITESPACE = " \t\r\n"          # JSON whitespace, nothing else (§2)
HEX_DIGITS = "0123456789abcdefABCDEF"
DIGITS = "0123456789"

SHORT_ESCAPES = {
    '"': '"', "\\": "\\", "/": "/",
    "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
}


class JsonError(Exception):
    """The line is not one JSON value that this spec accepts."""


def check_utf8(data):
    """Raise JsonError unless data is well-formed UTF-8 (RFC 3629).

    Refuses stray continuation bytes, overlong forms, truncated sequences,
    encoded surrogates (U+D800..U+DFFF) and code points past U+10FFFF.
    """
    i = 0
    n = len(data)
    while i < n:
        c = data[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            need = 1
        elif c == 0xE0:
            need, lo = 2, 0xA0
        elif 0xE1 <= c <= 0xEC or 0xEE <= c <= 0xEF:
            need = 2
        elif c == 0xED:
            need, hi = 2, 0x9F
        elif c == 0xF0:
            need, lo = 3, 0x90
        elif 0xF1 <= c <= 0xF3:
            need = 3
        elif c == 0xF4:
            need, hi = 3, 0x8F
        else:
            raise JsonError("byte 0x%02X at byte %d is not UTF-8" % (c, i + 1))
        if i + need >= n:
            raise JsonError("truncated UTF-8 sequence at byte %d" % (i + 1))
        second = data[i + 1]
        if not lo <= second <= hi:
            raise JsonError("invalid UTF-8 sequence at byte %d" % (i + 1))
        for j in range(2, need + 1):
            if not 0x80 <= data[i + j] <= 0xBF:
                raise JsonError("invalid UTF-8 sequence at byte %d" % (i + 1))
        i += need + 1


def parse_line(data):
    """Parse the bytes of one line as exactly one JSON value."""
    if not data.isascii():
        check_utf8(data)
    text = data.decode("utf-8")
    parser = _Parser(text)
    parser.skip_ws()
    value = parser.value(0)
    parser.skip_ws()
    if parser.pos != len(text):
        parser.fail("unexpected data after the JSON value")
    return value


class _Parser:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def fail(self, what):
        raise JsonError("%s at character %d" % (what, self.pos + 1))

    def skip_ws(self):
        text = self.text
        n = len(text)
        pos = self.pos
        while pos < n and text[pos] in WHITESPACE:
            pos += 1
        self.pos = pos

    def peek(self):
        if self.pos < len(self.text):
            return self.text[self.pos]
        return ""

    def value(self, depth):
        c = self.peek()
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            return self.string()
        if c == "-" or (c != "" and c in DIGITS):
            return self.number()
        if c == "t":
            return self.literal("true", True)
        if c == "f":
            return self.literal("false", False)
        if c == "n":
            return self.literal("null", None)
        if c == "":
            self.fail("unexpected end of input")
        self.fail("unexpected character %r" % c)

    def literal(self, word, result):
        end = self.pos + len(word)
        if self.text[self.pos:end] != word:
            self.fail("invalid literal")
        self.pos = end
        return result

    def obj(self, depth):
        if depth > MAX_DEPTH:
            self.fail("nested deeper than %d levels" % MAX_DEPTH)
        self.pos += 1  # '{'
        result = {}
        self.skip_ws()
        if self.peek() == "}":
            self.pos += 1
            return result
        while True:
            self.skip_ws()
            if self.peek() != '"':
                self.fail("expected a string key")
            key = self.string()
            self.skip_ws()
            if self.peek() != ":":
                self.fail("expected ':'")
            self.pos += 1
            self.skip_ws()
            # Last value wins, at the first occurrence's position (a dict
            # assignment to an existing key keeps its place).
            result[key] = self.value(depth)
            self.skip_ws()
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            if c == "}":
                self.pos += 1
                return result
            self.fail("expected ',' or '}'")

    def arr(self, depth):
        if depth > MAX_DEPTH:
            self.fail("nested deeper than %d levels" % MAX_DEPTH)
        self.pos += 1  # '['
        result = []
        self.skip_ws()
        if self.peek() == "]":
            self.pos += 1
            return result
        while True:
            self.skip_ws()
            result.append(self.value(depth))
            self.skip_ws()
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            if c == "]":
                self.pos += 1
                return result
            self.fail("expected ',' or ']'")

    def digits(self):
        text = self.text
        n = len(text)
        start = self.pos
        pos = start
        while pos < n and text[pos] in DIGITS:
            pos += 1
        self.pos = pos
        return pos - start

    def number(self):
        start = self.pos
        if self.peek() == "-":
            self.pos += 1
        c = self.peek()
        if c == "0":
            self.pos += 1
        elif c != "" and c in DIGITS:
            self.digits()
        else:
            self.fail("a number needs a digit")
        if self.peek() == ".":
            self.pos += 1
            if self.digits() == 0:
                self.fail("a fraction needs a digit")
        if self.peek() in ("e", "E"):
            self.pos += 1
            if self.peek() in ("+", "-"):
                self.pos += 1
            if self.digits() == 0:
                self.fail("an exponent needs a digit")
        spelled = self.text[start:self.pos]
        # float() rounds the exact decimal value to the nearest double, ties
        # to even, reading every digit (CPython's correctly rounded strtod).
        value = float(spelled)
        if math.isinf(value):
            self.pos = start
            self.fail("number too large for a double")
        return value

    def string(self):
        text = self.text
        n = len(text)
        self.pos += 1  # opening quote
        parts = []
        run_start = self.pos
        pos = self.pos
        while True:
            if pos >= n:
                self.pos = pos
                self.fail("unterminated string")
            c = text[pos]
            if c == '"':
                parts.append(text[run_start:pos])
                self.pos = pos + 1
                return "".join(parts)
            if c < " ":
                self.pos = pos
                self.fail("raw control character in a string")
            if c != "\\":
                pos += 1
                continue
            parts.append(text[run_start:pos])
            self.pos = pos
            esc = text[pos + 1] if pos + 1 < n else ""
            if esc == "u":
                unit = self.hex4(pos + 2)
                pos += 6
                if 0xD800 <= unit <= 0xDBFF:
                    if text[pos:pos + 2] != "\\u":
                        self.fail("lone high surrogate escape")
                    low = self.hex4(pos + 2)
                    if not 0xDC00 <= low <= 0xDFFF:
                        self.fail("high surrogate escape without a low one")
                    pos += 6
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                elif 0xDC00 <= unit <= 0xDFFF:
                    self.fail("lone low surrogate escape")
                parts.append(chr(unit))
            elif esc != "" and esc in SHORT_ESCAPES:
                parts.append(SHORT_ESCAPES[esc])
                pos += 2
            else:
                self.fail("invalid escape")
            run_start = pos

    def hex4(self, at):
        quad = self.text[at:at + 4]
        if len(quad) != 4:
            self.pos = at
            self.fail("truncated \\u escape")
        value = 0
        for ch in quad:
            if ch not in HEX_DIGITS:
                self.pos = at
                self.fail("invalid \\u escape")
            value = value * 16 + HEX_DIGITS.index(ch.lower())
        return value
