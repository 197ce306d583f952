# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Upstream's id helpers, reproduced bit for bit so ids match terraform-provider-libvirt."""

from __future__ import annotations

__all__ = ["go_hash_string"]

_INT64_MIN = -(1 << 63)
_UINT64_MASK = (1 << 64) - 1


def _wrap_int64(value: int) -> int:
    value &= _UINT64_MASK
    return value - (1 << 64) if value >= 1 << 63 else value


def go_hash_string(text: str) -> int:
    """Upstream's ``hashString``: ``h = 31*h + rune`` over the code points in Go's wrapping
    int64, then ``-h`` when negative (which leaves math.MinInt64 negative, as in Go)."""
    h = 0
    for char in text:
        h = _wrap_int64(31 * h + ord(char))
    if h < 0:
        h = _wrap_int64(-h)
    return h
