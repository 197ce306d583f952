# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Definitions libvirt takes without a word that are rarely what was meant. Each gives a
warning naming the option and the fix; what is written stays as given, so configurations
still port key by key."""

from __future__ import annotations

import re
import typing as t

__all__ = ["domain_traps"]

# Below this many KiB a size without a unit is more likely MiB meant than a guest of a few MiB.
_SMALLEST_LIKELY_KIB = 64 * 1024
# Machines whose guests need ACPI for PCI hot-plug and to find their devices (q35 on x86, virt on Arm).
_ACPI_MACHINES = re.compile(r"^(q35|pc-q35-[\w.]+|virt|virt-[\w.]+)$")


def _memory_without_unit(desired: dict[str, t.Any]) -> list[str]:
    warnings = []
    for option in ("memory", "current_memory"):
        value, unit = desired.get(option), desired.get(f"{option}_unit")
        if isinstance(value, int) and not isinstance(value, bool) and unit is None and value < _SMALLEST_LIKELY_KIB:
            warnings.append(
                f"{option}: {value} has no {option}_unit, so libvirt reads it in KiB (its default unit) and the guest gets "
                f"{value / 1024:g} MiB; set {option}_unit: MiB (or GiB) if you meant {value} MiB"
            )
    return warnings


def _machine_without_acpi(name: str, definition: dict[str, t.Any]) -> list[str]:
    machine = str((definition.get("os") or {}).get("type_machine") or "")
    if _ACPI_MACHINES.match(machine) and not (definition.get("features") or {}).get("acpi"):
        return [
            f"features.acpi: domain '{name}' is a {machine} machine without ACPI, so its guest gets no PCI hot-plug and may find "
            "no network card (https://github.com/dmacvicar/terraform-provider-libvirt/issues/1324); set features: {acpi: true}"
        ]
    return []


def _unreachable(name: str, definition: dict[str, t.Any]) -> list[str]:
    devices = definition.get("devices") or {}
    if devices.get("consoles") or devices.get("serials") or devices.get("graphics"):
        return []
    return [
        f"devices: domain '{name}' has no console, serial port or graphics, so nobody can reach it when its network fails "
        "(virsh console finds nothing to open); add devices.serials: [{source: {pty: {}}, target: {port: 0}}]"
    ]


def domain_traps(desired: dict[str, t.Any], definition: dict[str, t.Any]) -> list[str]:
    """The warnings for what was asked (``desired``: sizes as given) and for what the domain is,
    or will be, defined as (``definition``: its options, what libvirt added included)."""
    name = str(definition.get("name") or desired.get("name") or "")
    if definition.get("type") == "test":  # libvirt's test driver runs no guest to reach
        return _memory_without_unit(desired)
    return _memory_without_unit(desired) + _machine_without_acpi(name, definition) + _unreachable(name, definition)
