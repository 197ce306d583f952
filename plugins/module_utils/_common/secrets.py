# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Secrets that hide in values which are not secrets themselves: a password in a URL
(``https://user:password@host/image.qcow2``). The option is not ``no_log`` (the URL is worth
showing), so the password is added to the module's no_log values, which masks it wherever it
appears: the task's ``invocation`` (ansible-core before 2.21 returns it), results, diffs."""

from __future__ import annotations

import typing as t
import urllib.parse

__all__ = ["url_passwords"]

# "a:b" in "ssh://a:b@h" is the shortest userinfo worth masking; a one-character password
# would mask every such character of the output.
_SHORTEST = 3


def url_passwords(value: t.Any) -> set[str]:
    """The passwords (and user:password pairs) of every URL in ``value``, a module's
    parameters or any part of them."""
    found: set[str] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= url_passwords(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found |= url_passwords(item)
    elif isinstance(value, str) and "://" in value and "@" in value:
        try:
            parts = urllib.parse.urlsplit(value.strip())
            password = parts.password
        except ValueError:
            return found
        if password:
            userinfo = parts.netloc.rpartition("@")[0]
            found |= {secret for secret in (password, urllib.parse.unquote(password), userinfo) if len(secret) >= _SHORTEST}
    return found
