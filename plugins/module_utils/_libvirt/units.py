# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""libvirt's size units (virScaleInteger), so 1 GiB and 1073741824 bytes compare equal, and
the one parser of sizes as people write them (``10G``, ``512MiB``, ``2GB``) for every option
that takes a size."""

from __future__ import annotations

import re
import typing as t

from .errors import LibvirtValidationError

__all__ = ["LONG_MAX", "SIZE_FORMS", "ULONG_MAX", "same_unit", "scale", "split_size", "to_bytes"]

_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}
# libvirt's bounds on a size in bytes: any scaled integer (virScaleInteger's limit), and a
# domain's memory (virMemoryMaxValue on 64-bit hosts: off_t).
ULONG_MAX = 2**64 - 1
LONG_MAX = 2**63 - 1
# A whole number, then a unit (libvirt takes no fraction and no sign).
_SIZE = re.compile(r"^\s*(\d+)\s*([A-Za-z]*)\s*$")
SIZE_FORMS = (
    "an integer, or a string of a whole number and a unit such as 10GiB, 512M or 2GB (units in any case: b or bytes; "
    "k, KiB = 1024 and KB = 1000 bytes; M, MiB, MB; G, GiB, GB; T, TiB, TB; P, PiB, PB; E, EiB, EB)"
)


def scale(unit: str, *, path: str = "unit") -> int:
    """Bytes per ``unit``, with libvirt's rules: b/byte/bytes; k, KiB (1024) and KB (1000),
    and the same for M, G, T, P, E; letters in any case."""
    suffix = unit.strip()
    if suffix.lower() in ("b", "byte", "bytes"):
        return 1
    power = _POWERS.get(suffix[:1].lower())
    rest = suffix[1:].lower()
    if power is None or rest not in ("", "ib", "b"):
        raise LibvirtValidationError(f"{path}: unknown unit {suffix!r} (use bytes, KiB, MiB, GiB, TiB, KB, MB, GB...)")
    return int((1000 if rest == "b" else 1024) ** power)


def to_bytes(value: int, unit: str | None, *, default: str = "bytes", path: str = "unit") -> int:
    """``value`` ``unit`` in bytes (``default`` when there is no unit)."""
    return value * scale(unit or default, path=path)


def split_size(value: t.Any, *, path: str) -> tuple[int, str | None]:
    """A size as given (an integer, or ``"<number><unit>"``) as (number, unit or None when
    it has none). Anything else, a negative number included, is refused naming ``path``."""
    if isinstance(value, int) and not isinstance(value, bool):
        number, unit = value, ""
    elif isinstance(value, float) and value.is_integer():
        number, unit = int(value), ""
    else:
        found = _SIZE.match(value) if isinstance(value, str) else None
        if found is None:
            raise LibvirtValidationError(f"{path}: expected a size, {SIZE_FORMS}; got {value!r}")
        number, unit = int(found.group(1)), found.group(2)
    if number < 0:
        raise LibvirtValidationError(f"{path}: a size cannot be negative, got {value!r}")
    if unit:
        try:
            scale(unit)
        except LibvirtValidationError:
            raise LibvirtValidationError(f"{path}: unknown unit {unit!r} in {value!r}; expected {SIZE_FORMS}") from None
    return number, unit or None


def same_unit(before: tuple[int, str | None], after: tuple[int, str | None], *, default: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """Two sizes (number, unit) in one unit, for a diff: ``after``'s when ``before`` is a
    whole number of it, else ``before``'s when ``after`` is, else bytes."""
    before_bytes = to_bytes(before[0], before[1], default=default)
    after_bytes = to_bytes(after[0], after[1], default=default)
    for unit in (after[1] or default, before[1] or default):
        size = scale(unit)
        if before_bytes % size == 0 and after_bytes % size == 0:
            return (before_bytes // size, unit), (after_bytes // size, unit)
    return (before_bytes, "bytes"), (after_bytes, "bytes")
