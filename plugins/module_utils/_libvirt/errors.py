# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The libvirt family's exceptions, and the one place libvirt error codes are mapped."""

from __future__ import annotations

import re
import typing as t

__all__ = [
    "LibvirtConnectionError",
    "LibvirtError",
    "LibvirtNotFoundError",
    "LibvirtValidationError",
    "is_not_found",
    "is_unsupported",
]

# virErrorNumber values that mean "the object does not exist" (libvirt's virerror.h).
_NOT_FOUND_CODES = frozenset(
    {
        42,  # VIR_ERR_NO_DOMAIN
        43,  # VIR_ERR_NO_NETWORK
        49,  # VIR_ERR_NO_STORAGE_POOL
        50,  # VIR_ERR_NO_STORAGE_VOL
        53,  # VIR_ERR_NO_NODE_DEVICE
        72,  # VIR_ERR_NO_DOMAIN_SNAPSHOT
    }
)

# virErrorNumber values with which a driver refuses a call or a flag it does not support.
_UNSUPPORTED_CODES = frozenset(
    {
        3,  # VIR_ERR_NO_SUPPORT
        8,  # VIR_ERR_INVALID_ARG ("unsupported flags")
        74,  # VIR_ERR_ARGUMENT_UNSUPPORTED
    }
)


# libxml2 follows its message with the line it could not parse and a caret under it. When
# libvirt parses a file it was pointed at (test:///etc/shadow), that line is the file's.
_SOURCE_ECHO = re.compile(r"\n[^\n]*\n[ \t]*\^[ \t]*(?=\n|$)")


class LibvirtError(Exception):
    """Base class: the message is ready to be shown to the user as it is (any source line
    a libvirt error echoes, which can be a file's content, is left out)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(_SOURCE_ECHO.sub("", message))


class LibvirtConnectionError(LibvirtError):
    """The libvirt URI could not be opened."""


class LibvirtNotFoundError(LibvirtError):
    """A named object (domain, device, ...) does not exist."""


class LibvirtValidationError(LibvirtError):
    """User input is invalid; raised before anything is touched."""


def is_not_found(exc: BaseException) -> bool:
    """True for a libvirtError whose code says the object does not exist."""
    get_code: t.Callable[[], int] | None = getattr(exc, "get_error_code", None)
    return get_code is not None and get_code() in _NOT_FOUND_CODES


def is_unsupported(exc: BaseException) -> bool:
    """True for a libvirtError that says the driver does not support the call or its flags."""
    get_code: t.Callable[[], int] | None = getattr(exc, "get_error_code", None)
    return get_code is not None and get_code() in _UNSUPPORTED_CODES
