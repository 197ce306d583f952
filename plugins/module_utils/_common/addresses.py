# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What an address really is, for every family that judges one (a guest's address, a domain
named like an address, a storage endpoint)."""

from __future__ import annotations

import ipaddress
import typing as t

__all__ = ["unmapped"]

IPAddress = t.Union[ipaddress.IPv4Address, ipaddress.IPv6Address]


def unmapped(ip: IPAddress) -> IPAddress:
    """The IPv4 address an IPv4-mapped IPv6 address (``::ffff:127.0.0.1``) reaches, else ``ip``:
    older Pythons do not look through it in ``is_loopback`` and the others."""
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return mapped if mapped is not None else ip
