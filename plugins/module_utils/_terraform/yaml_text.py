# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A playbook written as YAML text, without PyYAML (a module may run where it is missing).

Only what JSON holds is written: dictionaries, lists, strings, integers, floats, booleans and
null, in block style, keys in the order given, so the same data always gives the same text.
A string is written plain only when YAML 1.1 (what Ansible reads) cannot take it for anything
else; a string of several lines as a literal block when that keeps every character; any other
string double-quoted, every character the one-line rule refuses escaped.

Every string, key or value, is tagged ``!unsafe`` unless the caller made it itself (``Trusted``):
Ansible then passes it on as it is, whatever it holds. Nothing looks for Jinja's delimiters, which
a ``#jinja2:`` header on a string's first line changes. The one exception is a string the tag
would turn into a number, a boolean or null, made only of characters no template can be made of
(see ``_tag``)."""

from __future__ import annotations

import math
import re
import typing as t

from .._common.text import NOT_ONE_LINE

__all__ = ["Trusted", "dump_yaml", "quote"]

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./ :@+,=-]*\Z")
# YAML 1.1's booleans and null (any case), which a plain scalar would become.
_RESERVED = frozenset({"y", "yes", "n", "no", "true", "false", "on", "off", "null", "nan", "inf"})
# ansible-core resolves a scalar tagged !unsafe as if it were plain, whatever its style
# (!unsafe "yes" is true, !unsafe "012" is 10): a string YAML could read as something else
# (its first character one a number, null, a merge or a value key starts with, or a word of
# _RESERVED) is written quoted without the tag instead. Only when it is made of these characters,
# which no template can be (no "{", no "#" of a #jinja2: header), so Ansible passes it on too.
_OTHERWISE_FIRST = frozenset("-+.0123456789<=~")
_INERT = re.compile(r"[A-Za-z0-9 \t\n.:+_~<=-]*\Z")
# What a double-quoted scalar escapes: its own quote and backslash, the one-line rule's characters,
# and everything outside the Basic Multilingual Plane.
_QUOTED = re.compile('[\\\\"' + NOT_ONE_LINE.pattern[1:-1] + "\U00010000-\U0010ffff]")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}


class Trusted(str):
    """Text the caller made itself from parts it controls (a keyword, a module's option name, a
    register name, a template that refers to a registered result): written without ``!unsafe``."""


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\u{code:04x}"


def quote(text: str) -> str:
    """``text`` as a YAML double-quoted scalar: ASCII controls, the one-line rule's characters and
    everything outside the Basic Multilingual Plane escaped, the rest as it is."""
    return '"' + _QUOTED.sub(lambda m: _escape(m.group()), text) + '"'


def _is_plain(text: str) -> bool:
    return _PLAIN.match(text) is not None and text.lower() not in _RESERVED and not text.endswith((" ", ":")) and ": " not in text and " #" not in text


def _tag(text: str) -> str:
    """``!unsafe `` for a string the caller did not make, unless the tag would change its type."""
    if isinstance(text, Trusted):
        return ""
    otherwise = not text or text[0] in _OTHERWISE_FIRST or text.rstrip("\n").lower() in _RESERVED
    return "" if otherwise and _INERT.match(text) else "!unsafe "


def _literal_lines(text: str) -> list[str] | None:
    """The lines of a literal block that holds exactly ``text``, or None when none does: a
    character a block cannot carry, or a line of blanks (YAML may read it as an empty line)."""
    if "\n" not in text or NOT_ONE_LINE.search(text.replace("\n", "").replace("\t", "")):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines = lines[:-1]
    if any(line and not line.strip(" \t") for line in lines) or any(line.startswith("\t") for line in lines):
        return None
    return lines


def _scalar_block(text: str, indent: str, tag: str) -> str:
    """A multi-line string as ``|`` (and its indicators) and its lines, or as a quoted scalar."""
    lines = _literal_lines(text)
    if lines is None or not any(lines):
        return f"{tag}{quote(text)}"
    trailing = len(text) - len(text.rstrip("\n"))
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    first = next(line for line in lines if line)
    indicator = "2" if first.startswith(" ") else ""
    body = "\n".join(f"{indent}  {line}" if line else "" for line in lines)
    return f"{tag}|{indicator}{chomp}\n{body}"


def _scalar(value: t.Any, indent: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("a number that is not finite")
        return repr(value)
    if isinstance(value, str):
        tag = _tag(value)
        if "\n" in value:
            return _scalar_block(value, indent, tag)
        # A plain scalar after the tag is still resolved implicitly: _is_plain keeps it a string.
        return f"{tag}{value if _is_plain(value) else quote(value)}"
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


def _key(key: t.Any) -> str:
    if not isinstance(key, str):
        raise TypeError("a key that is not a string")
    return f"{_tag(key)}{key if _is_plain(key) else quote(key)}"


def _node(value: t.Any, indent: str) -> list[str]:
    """The lines of a dictionary or a list at ``indent`` (each ending without a newline)."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            lines.extend(_entry(f"{indent}{_key(key)}:", item, indent + "  ", key_indent=indent))
    else:
        for item in value:
            if isinstance(item, dict) and item:
                inner = _node(item, indent + "  ")
                inner[0] = f"{indent}- {inner[0][len(indent) + 2 :]}"
                lines.extend(inner)
            else:
                lines.extend(_entry(f"{indent}-", item, indent + "  ", key_indent=indent))
    return lines


def _entry(head: str, item: t.Any, child_indent: str, *, key_indent: str) -> list[str]:
    if isinstance(item, (dict, list)):
        if not item:
            return [f"{head} {'{}' if isinstance(item, dict) else '[]'}"]
        return [head, *_node(item, child_indent)]
    return [f"{head} {_scalar(item, key_indent)}"]


def dump_yaml(value: list[t.Any] | dict[str, t.Any]) -> str:
    """``value`` (a list or a dictionary) as a YAML document's text, ending with a newline."""
    return "\n".join(_node(value, "")) + "\n"
