# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.ids import go_hash_string

# Upstream's hashString results. The first three are the ids of the test driver's host (node
# info, all devices, PCI devices); the others were computed by running upstream's function in
# Go and cover int64 wrap-around, non-ASCII runes and the empty string.
HASH_VECTORS = [
    ("i686-3145728-16-2-2-2-2", 3163122404942841546),
    ("all-0", 92904196),
    ("pci-3", 106486012),
    ("", 0),
    ("a", 97),
    ("x86_64-4810528-2-1-1-2-1", 7038034905375710328),
    ("storage-1", 101375801922911),
    ("net-4", 104709124),
    ("grüße-✓-🚀", 91214354452496),
    ("long" * 1000, 1795431400249109600),
    ("zzzzzzzzzzzzzzz", 391673535545605562),
]


@pytest.mark.parametrize(("text", "expected"), HASH_VECTORS)
def test_go_hash_string_matches_upstream(text: str, expected: int) -> None:
    assert go_hash_string(text) == expected


def test_go_hash_string_is_never_negative_except_min_int64() -> None:
    for text in ("", "a", "x86_64-4810528-2-1-1-2-1", "ü" * 50, "long" * 1000):
        assert 0 <= go_hash_string(text) < 1 << 63
