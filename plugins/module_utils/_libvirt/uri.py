# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The provider configuration of the libvirt family (its options and the URI they resolve to),
apart from connection.py so that a module that may need no connection (a first-boot file
written to ``dest`` only) does not import libvirt-python to read its options."""

from __future__ import annotations

import os
import typing as t

from .errors import LibvirtValidationError

__all__ = ["DEFAULT_URI", "LIBVIRT_CONNECTION_ARGSPEC", "URI_ENV", "provider_config", "resolve_uri"]

DEFAULT_URI = "qemu:///system"
URI_ENV = "LIBVIRT_DEFAULT_URI"

# The connection options every libvirt module takes (documented by the
# devinfra.providers.libvirt doc fragment). No env_fallback: upstream treats an empty
# LIBVIRT_DEFAULT_URI as unset, while an explicit empty uri is an error, and only
# resolve_uri() can tell the two apart.
LIBVIRT_CONNECTION_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "uri": {"type": "str"},
}


def resolve_uri(uri: str | None, *, environ: t.Mapping[str, str] | None = None) -> str:
    """Apply upstream's precedence: the option, else a non-empty LIBVIRT_DEFAULT_URI, else qemu:///system."""
    if uri is None:
        uri = (os.environ if environ is None else environ).get(URI_ENV) or DEFAULT_URI
    if not uri.strip():
        raise LibvirtValidationError("uri: must not be empty (leave it unset for the default qemu:///system)")
    return uri


def provider_config(uri: str | None, *, environ: t.Mapping[str, str] | None = None) -> dict[str, str]:
    """The provider configuration with upstream key names and defaults (terraformConfig)."""
    return {"uri": resolve_uri(uri, environ=environ)}
