# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_traps import domain_traps

REACHABLE: dict[str, t.Any] = {"devices": {"serials": [{"source": {"pty": {}}}]}}


def _kvm(**options: t.Any) -> dict[str, t.Any]:
    return {"name": "ws1", "type": "kvm", **REACHABLE, **options}


@pytest.mark.parametrize(
    ("desired", "definition", "starts"),
    [
        # Memory without a unit, below 64 MiB in KiB: 2 MiB, where 2048 MiB was meant.
        ({"memory": 2048}, _kvm(), ["memory: 2048 has no memory_unit, so libvirt reads it in KiB (its default unit) and the guest gets 2 MiB"]),
        ({"current_memory": 512}, _kvm(), ["current_memory: 512 has no current_memory_unit"]),
        # current_memory follows memory when not given: memory's warning alone names the fix.
        ({"memory": 2048, "current_memory": 2048}, _kvm(), ["memory: 2048 has no memory_unit"]),
        ({"memory": 2048, "current_memory": 1024}, _kvm(), ["memory: 2048 has no memory_unit", "current_memory: 1024 has no current_memory_unit"]),
        ({"memory": 65535}, _kvm(), ["memory: 65535 has no memory_unit"]),
        ({"memory": 65536}, _kvm(), []),  # 64 MiB in KiB: a size in KiB meant as such
        ({"memory": 2048, "memory_unit": "MiB"}, _kvm(), []),
        ({"memory": 2048, "memory_unit": "KiB"}, _kvm(), []),  # said so: KiB meant
        # More than the host has (a 3 GiB host here): bytes meant; not known without the host's size.
        (
            {"memory": 4294967296},
            _kvm(),
            [
                "memory: 4294967296 has no memory_unit, so libvirt reads it in KiB (its default unit) and the guest gets 4096 GiB, "
                "more than this host's 3 GiB; set memory_unit: b if you meant 4294967296 bytes (4 GiB), or write the size with its unit "
                "(memory: 4GiB)"
            ],
        ),
        ({"maximum_memory": 3145729}, _kvm(), ["maximum_memory: 3145729 has no maximum_memory_unit"]),
        ({"maximum_memory": 2048}, _kvm(), []),  # a hot-plug ceiling: its size alone says nothing
        ({"memory": 3145728}, _kvm(), []),  # all the host has: plausible
        ({"memory": 4294967296, "memory_unit": "b"}, _kvm(), []),
        # q35 and virt machines without ACPI.
        ({}, _kvm(os={"type_machine": "q35"}), ["features.acpi: domain 'ws1' is a q35 machine without ACPI"]),
        ({}, _kvm(os={"type_machine": "pc-q35-7.2"}), ["features.acpi: domain 'ws1' is a pc-q35-7.2 machine without ACPI"]),
        ({}, _kvm(os={"type_machine": "virt"}, features={"apic": {}}), ["features.acpi: domain 'ws1' is a virt machine without ACPI"]),
        ({}, _kvm(os={"type_machine": "q35"}, features={"acpi": True}), []),
        ({}, _kvm(os={"type_machine": "pc"}), []),  # i440fx finds its devices without ACPI
        # Nothing to reach the guest by.
        ({}, {"name": "ws1", "type": "kvm", "devices": {"disks": [{}]}}, ["devices: domain 'ws1' has no console, serial port or graphics"]),
        ({}, {"name": "ws1", "type": "kvm", "devices": {"consoles": [{}]}}, []),
        ({}, {"name": "ws1", "type": "kvm", "devices": {"graphics": [{"vnc": {}}]}}, []),
        # libvirt's test driver runs no guest: only the unit is worth a word.
        ({"memory": 1}, {"name": "t", "type": "test", "os": {"type_machine": "q35"}}, ["memory: 1 has no memory_unit"]),
    ],
)
def test_traps_warn_naming_the_option_and_the_fix(desired: dict[str, t.Any], definition: dict[str, t.Any], starts: list[str]) -> None:
    warnings = domain_traps(desired, definition, host_kib=3145728)
    assert len(warnings) == len(starts), warnings
    for warning, start in zip(warnings, starts):
        assert warning.startswith(start)
    fixes = {
        "memory": "set memory_unit: ",
        "current_memory": "set current_memory_unit: MiB",
        "maximum_memory": "set maximum_memory_unit: b",
        "features.acpi": "set features: {acpi: true}",
    }
    for warning in warnings:
        option = warning.split(":", 1)[0]
        assert fixes.get(option, "add devices.serials: [{source: {pty: {}}, target: {port: 0}}]") in warning


def test_without_the_host_size_only_the_small_values_warn() -> None:
    assert domain_traps({"memory": 4294967296}, _kvm()) == []
    assert len(domain_traps({"memory": 2048}, _kvm())) == 1
