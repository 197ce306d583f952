# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Which disks of which domains are on a volume, and how a volume grows under them. The test
# driver cannot resize a block device: the real daemon's case is the libvirt_volume target.

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.volume_users import DiskUse, VolumeRef, disk_uses, grow_method, volume_users

REF = VolumeRef("/var/lib/pool/ws1-data.qcow2", "workspaces", "ws1-data.qcow2")


def _domain(*disks: str) -> str:
    return f"<domain><name>d</name><devices>{''.join(disks)}<interface type='network'/></devices></domain>"


FILE_DISK = "<disk type='file' device='disk'><source file='/var/lib/pool/ws1-data.qcow2'/><target dev='vdb'/></disk>"
VOLUME_DISK = "<disk type='volume' device='disk'><source pool='workspaces' volume='ws1-data.qcow2' index='1'/><target dev='vdc'/></disk>"
BLOCK_DISK = "<disk type='block' device='disk'><source dev='/var/lib/pool/ws1-data.qcow2'/><target dev='sda'/></disk>"
READONLY = "<disk type='file' device='disk'><source file='/var/lib/pool/ws1-data.qcow2'/><readonly/><target dev='vdd'/></disk>"
CDROM = "<disk type='volume' device='cdrom'><source pool='workspaces' volume='ws1-data.qcow2'/><target dev='hdc'/></disk>"
OVERLAY = (
    "<disk type='file' device='disk'><source file='/var/lib/pool/ws1-root.qcow2'/>"
    "<backingStore type='file'><format type='qcow2'/><source file='/var/lib/pool/mid.qcow2'/>"
    "<backingStore type='file'><source file='/var/lib/pool/ws1-data.qcow2'/><backingStore/></backingStore></backingStore>"
    "<target dev='vda'/></disk>"
)
OTHERS = (
    "<disk type='file' device='disk'><source file='/var/lib/pool/ws1-data.qcow2.bak'/><target dev='vde'/></disk>"
    "<disk type='volume' device='disk'><source pool='other' volume='ws1-data.qcow2'/><target dev='vdf'/></disk>"
    "<disk type='volume' device='disk'><source pool='workspaces' volume='ws2-data.qcow2'/><target dev='vdg'/></disk>"
    "<disk type='network' device='disk'><source protocol='nbd' name='ws1-data.qcow2'/><target dev='vdh'/></disk>"
    "<disk type='file' device='cdrom'><target dev='hdd'/></disk>"
)


@pytest.mark.parametrize(
    ("disks", "expected"),
    [
        ((FILE_DISK,), [DiskUse("d", "vdb", True, writable=True)]),
        ((VOLUME_DISK,), [DiskUse("d", "vdc", True, writable=True)]),
        ((BLOCK_DISK,), [DiskUse("d", "sda", True, writable=True)]),
        ((READONLY, CDROM), [DiskUse("d", "vdd", True, writable=False), DiskUse("d", "hdc", True, writable=False)]),
        ((OVERLAY,), [DiskUse("d", "vda", True, writable=False, backing=True)]),
        ((OTHERS,), []),
        ((OTHERS, VOLUME_DISK), [DiskUse("d", "vdc", True, writable=True)]),
    ],
    ids=["source-file", "source-pool-volume", "source-dev", "readonly-and-cdrom", "backing-chain", "others", "others-and-one"],
)
def test_the_disks_on_a_volume(disks: tuple[str, ...], expected: list[DiskUse]) -> None:
    assert disk_uses("d", _domain(*disks), REF, running=True) == expected


def test_a_volume_without_a_file_is_named_by_pool_and_volume_only() -> None:
    ref = VolumeRef(None, "workspaces", "ws1-data.qcow2")
    assert disk_uses("d", _domain(FILE_DISK, VOLUME_DISK), ref, running=False) == [DiskUse("d", "vdc", False, writable=True)]


WHERE = "volume 'ws1-data.qcow2' in pool 'workspaces'"


@pytest.mark.parametrize(
    ("uses", "method", "through"),
    [
        ([], "resize", None),
        ([DiskUse("stopped", "vdb", False, writable=True)], "resize", None),  # a stopped domain has nothing open
        ([DiskUse("ws1", "vdb", True, writable=True)], "block_resize", "ws1"),
        ([DiskUse("ws1", "vdb", True, writable=True), DiskUse("old", "vdb", False, writable=True)], "block_resize", "ws1"),
    ],
)
def test_how_a_volume_grows(uses: list[DiskUse], method: str, through: str | None) -> None:
    chosen, use = grow_method(uses, WHERE)
    assert chosen == method
    assert (use.domain if use else None) == through


@pytest.mark.parametrize(
    ("uses", "message"),
    [
        (
            [DiskUse("ws1", "vdb", True, writable=True), DiskUse("ws2", "vdc", True, writable=True)],
            rf"^capacity: {WHERE} is disk vdb of running domain 'ws1' and disk vdc of running domain 'ws2': a disk two running guests share",
        ),
        (
            [DiskUse("ws1", "vda", True, writable=False, backing=True)],
            rf"^capacity: {WHERE} is a backing file of disk vda of running domain 'ws1': a base image cannot grow",
        ),
    ],
    ids=["two-running-domains", "a-running-base"],
)
def test_growing_under_two_guests_or_a_base_is_refused(uses: list[DiskUse], message: str) -> None:
    with pytest.raises(LibvirtError, match=message):
        grow_method(uses, WHERE)


class _Domain:
    def __init__(self, name: str, xml: str, *, running: bool) -> None:
        self._name, self._xml, self._running = name, xml, running
        self.flags: list[int] = []

    def name(self) -> str:
        return self._name

    def isActive(self) -> int:
        return int(self._running)

    def XMLDesc(self, flags: int) -> str:
        self.flags.append(flags)
        return self._xml


class _Conn:
    def __init__(self, *domains: _Domain) -> None:
        self.domains = domains
        self.listed: list[int] = []

    def listAllDomains(self, flags: int) -> tuple[_Domain, ...]:
        self.listed.append(flags)
        return tuple(d for d in self.domains if d.isActive() or not flags)


def test_running_domains_are_read_live_stopped_ones_from_their_definition() -> None:
    running, stopped = _Domain("ws1", _domain(VOLUME_DISK), running=True), _Domain("ws0", _domain(FILE_DISK), running=False)
    conn: t.Any = _Conn(running, stopped)
    assert volume_users(conn, REF, running_only=True) == [DiskUse("ws1", "vdc", True, writable=True)]
    assert volume_users(conn, REF, running_only=False) == [DiskUse("ws1", "vdc", True, writable=True), DiskUse("ws0", "vdb", False, writable=True)]
    assert conn.listed == [1, 0]  # VIR_CONNECT_LIST_DOMAINS_ACTIVE, then all
    assert (running.flags, stopped.flags) == ([0, 0], [2])  # live XML; VIR_DOMAIN_XML_INACTIVE
