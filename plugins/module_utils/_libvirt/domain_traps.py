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


def _gib(kib: int) -> str:
    return f"{kib / 1024**2:.4g} GiB"


def _memory_without_unit(desired: dict[str, t.Any], host_kib: int | None) -> list[str]:
    """An integer memory without its unit is KiB: a few MiB (MiB meant) or more than the host
    has (bytes meant, 4294967296 for 4 GiB) is rarely what was asked for."""
    warnings = []
    for option in ("memory", "current_memory", "maximum_memory"):
        value, unit = desired.get(option), desired.get(f"{option}_unit")
        if not isinstance(value, int) or isinstance(value, bool) or unit is not None:
            continue
        if option == "current_memory" and (value, unit) == (desired.get("memory"), desired.get("memory_unit")):
            continue  # it follows memory (or says the same): memory's warning names the fix
        said = f"{option}: {value} has no {option}_unit, so libvirt reads it in KiB (its default unit) and the guest gets"
        if value < _SMALLEST_LIKELY_KIB and option != "maximum_memory":
            warnings.append(f"{said} {value / 1024:g} MiB; set {option}_unit: MiB (or GiB) if you meant {value} MiB, or write {option}: {value}MiB")
        elif host_kib and value > host_kib:
            meant = f"{value // 1024**3}GiB" if value % 1024**3 == 0 else f"{value}b"
            warnings.append(
                f"{said} {_gib(value)}, more than this host's {_gib(host_kib)}; set {option}_unit: b if you meant {value} bytes "
                f"({value / 1024**3:.4g} GiB), or write the size with its unit ({option}: {meant})"
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


def domain_traps(desired: dict[str, t.Any], definition: dict[str, t.Any], *, host_kib: int | None = None) -> list[str]:
    """The warnings for what was asked (``desired``: sizes as given) and for what the domain is,
    or will be, defined as (``definition``: its options, what libvirt added included);
    ``host_kib``: the host's memory, when known."""
    name = str(definition.get("name") or desired.get("name") or "")
    memory = _memory_without_unit(desired, host_kib)
    if definition.get("type") == "test":  # libvirt's test driver runs no guest to reach
        return memory
    return memory + _machine_without_acpi(name, definition) + _unreachable(name, definition)
