# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What a converted resource becomes: one task of the playbook, and what is shared by the
converters of both providers."""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.text import printable
from .errors import NotConvertedError

__all__ = ["Task", "drop_nulls", "limited", "unknown_attributes"]


@dataclasses.dataclass
class Task:
    """One task: ``module`` (short name) with ``args``, named after the Terraform address."""

    address: str
    module: str
    args: dict[str, t.Any]
    rank: int  # the order of kinds, where the state's dependencies leave a choice
    secrets: set[str] = dataclasses.field(default_factory=set)  # values masked in the diff
    masked_options: tuple[str, ...] = ()  # top-level options shown as a mask in the diff (no_log ones)
    spec: dict[str, t.Any] = dataclasses.field(default_factory=dict)  # the module's argument spec: its option names
    depends_on: set[str] = dataclasses.field(default_factory=set)  # addresses of tasks to run first
    register: str | None = None
    workspace_entry: tuple[str, dict[str, t.Any]] | None = None  # (address, entry) for the workspace state
    not_carried: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (attribute path, why) set in the state, not an option

    @property
    def fqcn(self) -> str:
        return f"devinfra.providers.{self.module}"


def drop_nulls(value: t.Any) -> t.Any:
    """``value`` without the attributes Terraform writes as null (not set); an object or a list
    that was set stays, even when nothing in it is (``vnc = {}`` chooses the VNC branch)."""
    if isinstance(value, dict):
        return {key: drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_nulls(item) for item in value if item is not None]
    return value


def limited(names: t.Iterable[str], limit: int = 8) -> str:
    shown = sorted(printable(str(name), 60) for name in names)
    return ", ".join(shown[:limit]) + (f" and {len(shown) - limit} more" if len(shown) > limit else "")


def unknown_attributes(attributes: dict[str, t.Any], known: t.Collection[str], legacy: t.Collection[str] = (), legacy_what: str = "") -> None:
    """Refuse attributes no option takes; ``legacy`` ones are an older provider's, in an object of the current schema."""
    unknown = [key for key in attributes if key not in known]
    if not unknown:
        return
    old = [key for key in unknown if key in legacy]
    if old:
        raise NotConvertedError(
            f"its attributes ({limited(old)}) are those of {legacy_what}, beside the current schema's: no version of the provider writes such an object"
        )
    raise NotConvertedError(f"attributes the module does not take: {limited(unknown)}")
