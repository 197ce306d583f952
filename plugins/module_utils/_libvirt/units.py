# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt's size units (virScaleInteger), so 1 GiB and 1073741824 bytes compare equal."""

from __future__ import annotations

from .errors import LibvirtValidationError

__all__ = ["to_bytes"]

_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def to_bytes(value: int, unit: str | None, *, default: str = "bytes", path: str = "unit") -> int:
    """``value`` ``unit`` in bytes, with libvirt's rules: b/bytes; k, KiB (1024) and KB (1000),
    and the same for M, G, T, P, E; letters in any case."""
    suffix = (unit or default).strip()
    if suffix.lower() in ("b", "byte", "bytes"):
        return value
    power = _POWERS.get(suffix[:1].lower())
    rest = suffix[1:].lower()
    if power is None or rest not in ("", "ib", "b"):
        raise LibvirtValidationError(f"{path}: unknown unit {suffix!r} (use bytes, KiB, MiB, GiB, TiB, KB, MB, GB...)")
    return int(value * (1000 if rest == "b" else 1024) ** power)
