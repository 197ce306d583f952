# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""How hard the property-based tests search: one place for every family's tests.

Two profiles. ``ci`` (the default, what scripts/test.sh and CI run): each test's own number of
examples and a deadline per example, so that a run stays bounded on a slow machine. ``full``:
ten times the examples and no deadline, a longer and deeper search to run before a release.
The profile is DEVINFRA_HYPOTHESIS_PROFILE, or, since ansible-test hands the tests a filtered
environment, the word in the file ``tests/unit/.hypothesis-profile`` of the collection tree
(``scripts/test.sh`` writes it from that variable)."""

from __future__ import annotations

import datetime
import os
import pathlib

__all__ = ["DEADLINE", "PROFILE", "examples"]

PROFILES = {"ci": (1, datetime.timedelta(seconds=10)), "full": (10, None)}


def _chosen() -> str:
    name = os.environ.get("DEVINFRA_HYPOTHESIS_PROFILE", "")
    if not name:
        marker = pathlib.Path(__file__).with_name(".hypothesis-profile")
        name = marker.read_text(encoding="ascii").strip() if marker.is_file() else "ci"
    if name not in PROFILES:
        raise ValueError(f"DEVINFRA_HYPOTHESIS_PROFILE: {name!r} is none of {', '.join(PROFILES)}")
    return name


PROFILE = _chosen()
_SCALE, DEADLINE = PROFILES[PROFILE]


def examples(count: int) -> int:
    """The number of examples a test that asks for ``count`` in the ci profile runs now."""
    return count * _SCALE
