# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Hypothesis strategies for hostile strings, shared by the unit tests of every family.

Import it as ``ansible_collections.devinfra.providers.tests.unit.hostile_strings``. Each
strategy draws values that a careless parser, URL builder, shell, XML writer or log turns
into something else: control characters, markup, path traversal, percent-encodings and
other escapes, Unicode tricks, and very long strings. ``hostile_text()`` mixes them all.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = [
    "CONTROL_CHARACTERS",
    "LINE_BREAKS",
    "control_characters",
    "encodings",
    "hostile_text",
    "long_strings",
    "markup",
    "path_tricks",
    "unicode_tricks",
    "with_control_character",
]

# C0, DEL and C1: what terminals, headers and line-based formats act on.
CONTROL_CHARACTERS = tuple(chr(code) for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)])
# What splits a line for HTTP, YAML, logs or str.splitlines().
LINE_BREAKS = ("\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")

_PATHS = (
    *(".", "..", "../", "./", "/..", "../..", "a/../b", "a/./b", "/", "//", "\\", "..\\..", "a/b", "~", ""),
    *(".%2e", "%2e%2e", "%2E%2E", "%2f", "..%2f", "%252e%252e", "..;"),
)
_ENCODINGS = ("%00", "%0a", "%0d%0a", "%20", "%25", "%u002e", "&#46;", "&#x2e;", "\\u002e", "\\x2e", "+", "?x=1", "#frag", "@host", "user:pass@", "%")
_MARKUP = (
    "<script>alert(1)</script>",
    "<a href='x'>",
    "]]>",
    "<!--",
    "&amp;",
    "{{ lookup('env', 'HOME') }}",
    "{% raw %}",
    "${HOME}",
    "$(id)",
    "`id`",
    "; rm -rf /",
    "' OR '1'='1",
    '"',
    "'",
    "\\",
    "*",
    "!unsafe",
    "- item",
    "key: value",
    "[x]",
    "{x}",
    "O(option)",
)
# Look-alikes, invisible and direction-changing characters, non-BMP, a lone surrogate.
_UNICODE = ("\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u0130", "\u212a", "\uff0e\uff0e", "\u2024\u2024", "\U0001f600", "é", "\ud800", "\ufffd")


def control_characters() -> st.SearchStrategy[str]:
    """One control character or line break."""
    return st.sampled_from(CONTROL_CHARACTERS + LINE_BREAKS)


def path_tricks() -> st.SearchStrategy[str]:
    """Values an HTTP stack or file system normalises into another path."""
    return st.sampled_from(_PATHS)


def encodings() -> st.SearchStrategy[str]:
    """Percent-, entity- and backslash-escapes, and URL delimiters."""
    return st.sampled_from(_ENCODINGS)


def markup() -> st.SearchStrategy[str]:
    """HTML/XML, Jinja, shell, SQL and YAML syntax."""
    return st.sampled_from(_MARKUP)


def unicode_tricks() -> st.SearchStrategy[str]:
    """Invisible, bidirectional and look-alike characters."""
    return st.sampled_from(_UNICODE)


def long_strings(*, min_size: int = 256, max_size: int = 70000) -> st.SearchStrategy[str]:
    """Very long strings: a repeated piece (cheap to draw at any length)."""
    piece = st.sampled_from(["a", "0", "é", "/", ".", "%", "\U0001f600", "ab-"])
    return st.builds(lambda text, count: (text * count)[:count], piece, st.integers(min_size, max_size))


def with_control_character(base: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[str]:
    """A (by default plausible) value with a control character at its start, end or inside."""
    plain = base if base is not None else st.text(st.sampled_from("abcxyz0129-_."), min_size=1, max_size=12)

    def place(text: str, control: str, where: int) -> str:
        where = where % (len(text) + 1)
        return text[:where] + control + text[where:]

    return st.builds(place, plain, control_characters(), st.integers(0, 64))


def hostile_text(*, max_pieces: int = 6) -> st.SearchStrategy[str]:
    """Any mix of the pieces above and ordinary text, or one very long string."""
    piece = control_characters() | path_tricks() | encodings() | markup() | unicode_tricks() | st.text(max_size=8)
    mixed = st.lists(piece, min_size=1, max_size=max_pieces).map("".join)
    return mixed | with_control_character() | long_strings()
