# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The one rule for what a single-line value may hold, used by all three families.

Names, URLs, ids and keys end up on one line of a config file (dnsmasq, cloud-init, an env
file), an XML attribute, a header or a terminal. These characters are refused there:

- C0 controls and DEL: a line break starts a line of the attacker's choosing;
- C1 controls (U+0080-U+009F): U+0085 is a line break to YAML, U+009B starts a terminal
  escape sequence;
- U+2028 and U+2029, the line and paragraph separators (YAML and JavaScript break lines there);
- the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which
  make a name read differently from what it is ("Trojan Source");
- lone surrogates and U+FFFE/U+FFFF, which are no text (not encodable, not XML).

Messages give the character and its position, never the value: values may be secrets."""

from __future__ import annotations

import re

__all__ = ["NOT_ONE_LINE", "first_forbidden", "kind_of", "one_line_problem", "printable"]

NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff\ud800-\udfff]")

# Server text shown in a message: at most this many characters of it.
_SHOWN = 200


def first_forbidden(value: str) -> tuple[int, int] | None:
    """The code point and position of the first character the rule refuses, or None."""
    found = NOT_ONE_LINE.search(value)
    return None if found is None else (ord(found.group()), found.start())


def kind_of(code: int) -> str:
    """What a refused character is, for a message."""
    if 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
        return "bidirectional control"
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
        return "non-character"
    return "control character"


def one_line_problem(value: str) -> str | None:
    """What is wrong with ``value`` as a one-line value (``the control character U+000A at
    position 3``), or None when it is fine."""
    found = first_forbidden(value)
    if found is None:
        return None
    code, position = found
    return f"the {kind_of(code)} U+{code:04X} at position {position}"


def printable(text: str, limit: int = _SHOWN) -> str:
    """Text from elsewhere (a server's error, a guest's answer) made safe for a message: every
    character of the rule above escaped as ``\\uXXXX`` (so no escape sequence reaches a
    terminal or a log, and no line of it looks like ours), shortened to ``limit`` characters."""
    shortened = text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
    return NOT_ONE_LINE.sub(lambda m: f"\\u{ord(m.group()):04x}", shortened)
