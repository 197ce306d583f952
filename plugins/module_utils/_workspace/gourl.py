# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The parts of Go's net/url.Parse the workspace provider relies on: which URLs it
rejects (with Go's messages) and how it splits them. Python's urllib accepts nearly
anything, so upstream's validation has to be reproduced here."""

from __future__ import annotations

import dataclasses
import re
import string

__all__ = ["GoURL", "GoURLError", "go_quote", "parse_go_url"]

_HEX = set(string.hexdigits)
_SCHEME_CHARS = set(string.ascii_letters + string.digits + "+-.")


class GoURLError(ValueError):
    """Carries Go's message: ``parse "<url>": <reason>``."""


@dataclasses.dataclass(frozen=True)
class GoURL:
    scheme: str
    opaque: str
    userinfo: str
    host: str  # host[:port], as Go's URL.Host
    path: str
    raw_query: str
    fragment: str

    @property
    def hostname(self) -> str:
        host, _port = _split_host_port(self.host)
        return host

    @property
    def port(self) -> str:
        return _split_host_port(self.host)[1]

    def origin_with_slash(self) -> str:
        """Go's ``u.Parse("/").String()``: scheme and authority with path "/", no query or fragment."""
        if self.opaque:
            return f"{self.scheme}:/"
        prefix = f"{self.scheme}:" if self.scheme else ""
        authority = f"//{self.userinfo + '@' if self.userinfo else ''}{self.host}" if (self.host or self.userinfo or self.scheme) else ""
        return f"{prefix}{authority}/"


def go_quote(text: str) -> str:
    """Go's strconv.Quote for the texts that appear in these errors."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _split_host_port(host: str) -> tuple[str, str]:
    if host.startswith("["):
        end = host.find("]")
        return host[1:end], host[end + 2 :] if host[end + 1 : end + 2] == ":" else ""
    if ":" in host:
        name, _colon, port = host.rpartition(":")
        return name, port
    return host, ""


def _check_escapes(text: str) -> None:
    i = 0
    while i < len(text):
        if text[i] != "%":
            i += 1
            continue
        pair = text[i + 1 : i + 3]
        if len(pair) < 2 or not all(c in _HEX for c in pair):
            raise ValueError(f"invalid URL escape {go_quote(text[i : i + 3])}")
        i += 3


def _check_port(colon_port: str) -> None:
    if colon_port and not (colon_port[0] == ":" and all(c in string.digits for c in colon_port[1:])):
        raise ValueError(f"invalid port {go_quote(colon_port)} after host")


# Characters Go accepts unescaped in a host name (shouldEscape in encodeHost mode).
_HOST_CHARS = set(string.ascii_letters + string.digits + "-_.~!$&'()*+,;=:[]<>\"%")


def _check_host(host: str) -> None:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise ValueError("missing ']' in host")
        _check_port(host[end + 1 :])
    else:
        colon = host.rfind(":")
        if colon >= 0:
            _check_port(host[colon:])
    _check_escapes(host)
    for char in host:
        if ord(char) < 0x80 and char not in _HOST_CHARS:
            raise ValueError(f"invalid character {go_quote(char)} in host name")


def _parse(raw: str) -> GoURL:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise ValueError("net/url: invalid control character in URL")
    rest, _hash, fragment = raw.partition("#")
    _check_escapes(fragment)
    scheme = ""
    for index, char in enumerate(rest):
        if char == ":":
            if index == 0:
                raise ValueError("missing protocol scheme")
            scheme, rest = rest[:index].lower(), rest[index + 1 :]
            break
        if char not in _SCHEME_CHARS or (index == 0 and char not in string.ascii_letters):
            break
    rest, has_query, raw_query = rest.partition("?")
    if not has_query:
        raw_query = ""
    if not rest.startswith("/"):
        if scheme:
            return GoURL(scheme, rest, "", "", "", raw_query, fragment)
        segment = rest.split("/", 1)[0]
        if ":" in segment:
            raise ValueError("first path segment in URL cannot contain colon")
    userinfo = host = ""
    if rest.startswith("//") and (scheme or not rest.startswith("///")):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        if "@" in authority:
            userinfo, _at, authority = authority.rpartition("@")
            if any(c in userinfo for c in ' "<>[\\]^`{|}'):
                raise ValueError("net/url: invalid userinfo")
        _check_host(authority)
        host = authority
    _check_escapes(rest)
    return GoURL(scheme, "", userinfo, host, rest, raw_query, fragment)


def _redacted(raw: str) -> str:
    """``raw`` with the password of its userinfo as ``xxxxx`` (Go's URL.Redacted): the
    message of a URL that does not parse must not carry a credential written into it."""
    scheme, sep, rest = raw.partition("://")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0] if sep else ""
    userinfo, at, _host = authority.rpartition("@")
    if not at or ":" not in userinfo:
        return raw
    return f"{scheme}{sep}{userinfo.split(':', 1)[0]}:xxxxx@{rest[len(userinfo) + 1 :]}"


def parse_go_url(raw: str) -> GoURL:
    """Parse ``raw`` as Go's url.Parse does, raising GoURLError with Go's message (password redacted)."""
    try:
        return _parse(raw)
    except ValueError as exc:
        raise GoURLError(f"parse {go_quote(_redacted(raw))}: {exc}") from None
