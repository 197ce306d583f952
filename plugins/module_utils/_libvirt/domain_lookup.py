# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Which domain a value names when it may be a domain's name or its UUID.

Whoever defines a domain chooses its name, and libvirt lets that name have the shape of a UUID,
another domain's included. So a value of UUID shape is looked up as a UUID first, and when a
*different* domain is named exactly that value, the value is ambiguous and refused, naming both
domains so that the user can give the other identifier. Only when no domain has that UUID is
the value taken as the name of the domain called so. A value of any other shape is a name."""

from __future__ import annotations

import re
import typing as t

from .._common.text import printable
from .connection import libvirt
from .errors import is_not_found

__all__ = ["AmbiguousDomainError", "DomainNotFoundError", "find_domain", "uuid_shape"]

# 32 hexadecimal digits, with or without the hyphens of the 8-4-4-4-12 form, nothing around.
_UUID_SHAPE = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\Z")


class DomainNotFoundError(Exception):
    """No domain has the value as its UUID or its name; ``libvirt_error`` is libvirt's own answer
    to the name lookup (upstream's messages end with it)."""

    def __init__(self, message: str, libvirt_error: Exception | None) -> None:
        super().__init__(message)
        self.libvirt_error = libvirt_error


class AmbiguousDomainError(Exception):
    """The value is one domain's UUID and another's name. The message completes "the value ..."."""

    def __init__(self, value: str, *, uuid_of: tuple[str, str], named: tuple[str, str]) -> None:
        self.value = value
        self.uuid_of = uuid_of  # (name, UUID) of the domain with that UUID
        self.named = named  # (name, UUID) of the domain with that name
        super().__init__(f"is ambiguous: it is the UUID of domain '{printable(uuid_of[0])}' and the name of another domain, whose UUID is {named[1]}")


def uuid_shape(value: str) -> str | None:
    """``value`` in the canonical 8-4-4-4-12 lower-case form when it has the shape of a UUID."""
    if not _UUID_SHAPE.match(value):
        return None
    digits = value.replace("-", "").lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def _found(lookup: t.Callable[[str], t.Any], key: str) -> tuple[t.Any, Exception | None]:
    """What ``lookup`` finds, or None and libvirt's not-found error (other errors propagate)."""
    try:
        return lookup(key), None
    except libvirt.libvirtError as exc:
        if is_not_found(exc):
            return None, exc
        raise


def find_domain(conn: t.Any, value: str) -> t.Any:
    """The domain ``value`` names (see the module's docstring). AmbiguousDomainError,
    DomainNotFoundError, or libvirt's error when a lookup fails otherwise."""
    canonical = uuid_shape(value)
    by_uuid = _found(conn.lookupByUUIDString, canonical)[0] if canonical is not None else None
    # Looked up even when the UUID matched: a domain named so must not go unnoticed.
    by_name, not_named = _found(conn.lookupByName, value)
    if by_uuid is not None and by_name is not None:
        uuid_of, named = (by_uuid.name(), by_uuid.UUIDString()), (by_name.name(), by_name.UUIDString())
        if uuid_of[1] != named[1]:
            raise AmbiguousDomainError(value, uuid_of=uuid_of, named=named)
    domain = by_uuid if by_uuid is not None else by_name
    if domain is None:
        raise DomainNotFoundError("neither a domain of that name nor of that UUID" if canonical else "no domain of that name", not_named)
    return domain
