# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Opening libvirt connections; the provider configuration (uri.py) is named here too."""

from __future__ import annotations

import contextlib
import traceback
import typing as t

from .errors import LibvirtConnectionError
from .uri import DEFAULT_URI, LIBVIRT_CONNECTION_ARGSPEC, URI_ENV, provider_config, resolve_uri

try:
    import libvirt
except ImportError:
    libvirt = None  # type: ignore[assignment]  # reported through HAS_LIBVIRT at run time
    HAS_LIBVIRT = False
    LIBVIRT_IMPORT_ERROR: str | None = traceback.format_exc()
else:
    HAS_LIBVIRT = True
    LIBVIRT_IMPORT_ERROR = None
    # libvirt prints every error to stderr by default ("libvirt: QEMU Driver error : ...");
    # errors reach the user through our exceptions instead.
    libvirt.registerErrorHandler(lambda _ctx, _err: None, None)

if t.TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "DEFAULT_URI",
    "HAS_LIBVIRT",
    "LIBVIRT_CONNECTION_ARGSPEC",
    "LIBVIRT_IMPORT_ERROR",
    "URI_ENV",
    "connect",
    "libvirt",
    "provider_config",
    "resolve_uri",
]


@contextlib.contextmanager
def connect(uri: str | None, *, read_only: bool = False) -> Iterator[libvirt.virConnect]:
    """Open ``uri`` (resolved as upstream does) and close it afterwards."""
    resolved = resolve_uri(uri)
    try:
        conn = libvirt.openReadOnly(resolved) if read_only else libvirt.open(resolved)
    except libvirt.libvirtError as exc:
        raise LibvirtConnectionError(f"Unable to Connect to Libvirt: An error occurred while connecting to libvirt. URI: {resolved} Error: {exc}") from exc
    try:
        yield conn
    finally:
        with contextlib.suppress(libvirt.libvirtError):
            conn.close()
