# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Go's regexp (RE2 syntax) on top of Python's ``re``, for parameter ``validation.regex``.

The two dialects agree on most patterns but differ where it matters for validation:

- RE2 rejects backreferences and look-around (Python accepts them): rejected here with Go's message;
- ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only in RE2 (Unicode in Python): rewritten to ASCII classes;
- ``$`` without the ``m`` flag matches only at the very end in RE2 (Python also before a final newline):
  rewritten to ``\\Z``; RE2's ``\\z`` is Python's ``\\Z``;
- RE2 has ``\\Q...\\E`` literals, POSIX classes (``[[:alpha:]]``) and ``(?<name>...)``: rewritten;
- RE2's Unicode classes (``\\pL``, ``\\p{Greek}``) have no ``re`` equivalent: rejected with a clear message.

Compile errors keep Go's shape (``error parsing regexp: <reason>: `<text>```) where this module
detects them; other syntax errors carry Python's reason in that shape."""

from __future__ import annotations

import re

__all__ = ["RE2Error", "compile_re2"]

_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_CLASS_BODY = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "}
_WORD = "[0-9A-Za-z_]"
_BOUNDARY = f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))"
_NOT_BOUNDARY = f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))"


class RE2Error(ValueError):
    """Carries a Go-shaped message: ``error parsing regexp: ...``."""


def _unsupported(text: str) -> RE2Error:
    return RE2Error(f"error parsing regexp: invalid or unsupported Perl syntax: `{text}`")


def _escape_outside(pattern: str, i: int) -> tuple[str, int]:
    """Translate the escape at pattern[i] (a backslash) outside a class; return text and next index."""
    if i + 1 >= len(pattern):
        raise RE2Error("error parsing regexp: trailing backslash at end of expression: ``")
    char = pattern[i + 1]
    if char.isdigit() and char != "0":
        raise RE2Error(f"error parsing regexp: invalid escape sequence: `\\{char}`")
    if char in "dws":
        return f"[{_CLASS_BODY[char]}]", i + 2
    if char in "DWS":
        return f"[^{_CLASS_BODY[char.lower()]}]", i + 2
    if char == "b":
        return _BOUNDARY, i + 2
    if char == "B":
        return _NOT_BOUNDARY, i + 2
    if char == "z":
        return "\\Z", i + 2
    if char == "Z":
        raise RE2Error("error parsing regexp: invalid escape sequence: `\\Z`")
    if char in "pP":
        end = pattern.find("}", i) + 1 if pattern[i + 2 : i + 3] == "{" else i + 3
        raise RE2Error(f"Unicode class `{pattern[i:end]}` (RE2 \\p syntax) is not supported by this port")
    if char == "Q":
        end = pattern.find("\\E", i + 2)
        literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
        return re.escape(literal), len(pattern) if end < 0 else end + 2
    return pattern[i : i + 2], i + 2


def _class(pattern: str, i: int) -> tuple[str, int]:
    """Translate the character class starting at pattern[i] (``[``)."""
    out = ["["]
    i += 1
    if i < len(pattern) and pattern[i] == "^":
        out.append("^")
        i += 1
    first = True
    while i < len(pattern):
        char = pattern[i]
        if char == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if char == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            if end > 0:
                name = pattern[i + 2 : end]
                negated = name.startswith("^")
                body = _POSIX.get(name.lstrip("^"))
                if body is None:
                    raise RE2Error(f"error parsing regexp: invalid character class range: `{pattern[i : end + 2]}`")
                if negated:
                    raise RE2Error(f"negated POSIX class `{pattern[i : end + 2]}` is not supported by this port")
                out.append(body)
                i = end + 2
                continue
        if char == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            if escaped in "dws":
                out.append(_CLASS_BODY[escaped])
            elif escaped in "pP":
                raise RE2Error("Unicode classes (RE2 \\p syntax) are not supported by this port")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            out.append("\\[")  # Python warns about possible nested sets; RE2 reads a literal
        else:
            out.append(char)
        i += 1
    raise RE2Error(f"error parsing regexp: missing closing ]: `{pattern[pattern.rfind('[', 0, i) :]}`")


def _translate(pattern: str) -> str:
    multiline = bool(re.search(r"\(\?[a-zA-Z]*m[a-zA-Z]*[):]", pattern))
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            text, i = _escape_outside(pattern, i)
        elif char == "[":
            text, i = _class(pattern, i)
        elif char == "$":
            text, i = ("$" if multiline else "\\Z"), i + 1
        elif char == "(" and pattern.startswith("(?", i):
            for construct in ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?#"):
                if pattern.startswith(construct, i):
                    raise _unsupported(construct)
            if pattern.startswith("(?<", i):
                text, i = "(?P<", i + 3
            else:
                text, i = char, i + 1
        else:
            text, i = char, i + 1
        out.append(text)
    return "".join(out)


def compile_re2(pattern: str) -> re.Pattern[str]:
    """Compile an RE2 pattern to an equivalent Python pattern, or raise RE2Error."""
    translated = _translate(pattern)
    try:
        return re.compile(translated)
    except re.error as exc:
        raise RE2Error(f"error parsing regexp: {exc.msg}: `{pattern}`") from None
