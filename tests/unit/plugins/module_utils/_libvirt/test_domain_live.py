# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What a running domain takes from its new definition without a restart: each case is a
definition, the running XML and the pending option paths; the planned changes, and the running
XML once they are simulated (what check mode predicts), are checked."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain_live, schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt

ROOT_DISK = "<disk type='file' device='disk'><driver name='qemu' type='raw'/><source file='/p/root.raw'/><target dev='vda' bus='virtio'/></disk>"


def _domain(
    *, memory: str = "<memory unit='KiB'>1048576</memory>", current: str = "1048576", vcpu: str = "<vcpu current='1'>3</vcpu>", devices: str = ""
) -> t.Any:
    return schema.parse(
        f"<domain type='qemu'><name>d</name>{memory}<currentMemory unit='KiB'>{current}</currentMemory>{vcpu}<devices>{devices}</devices></domain>"
    )


def _nic(mac: str, network: str = "default", running: bool = False) -> str:
    extra = f"<target dev='vnet{mac[-1]}'/><alias name='net0'/>" if running else ""
    return f"<interface type='network'><mac address='{mac}'/><source network='{network}'/><model type='virtio'/>{extra}</interface>"


def _cdrom(source: str | None, *, bus: str = "ide", fmt: str | None = "raw") -> str:
    driver = f"<driver name='qemu' type='{fmt}'/>" if fmt else "<driver name='qemu'/>"
    src = f"<source file='{source}'/>" if source else ""
    return f"<disk type='file' device='cdrom'>{driver}{src}<target dev='hdc' bus='{bus}'/><readonly/></disk>"


def _vnc(passwd: str | None, *, running: bool = False) -> str:
    attrs = " port='5900' autoport='yes' listen='127.0.0.1'" if running else " port='-1' autoport='yes'"
    password = f" passwd='{passwd}'" if passwd else ""
    listen = "<listen type='address' address='127.0.0.1'/>" if running else "<listen type='address'/>"
    return f"<graphics type='vnc'{attrs}{password}>{listen}</graphics>"


CASES: list[tuple[str, t.Any, t.Any, list[str], list[str]]] = [
    (
        "balloon down",
        _domain(current="786432"),
        _domain(),
        ["current_memory"],
        ["current_memory 1048576 KiB -> 786432 KiB (balloon)"],
    ),
    (
        "balloon in another unit",
        _domain(memory="<memory unit='GiB'>1</memory>", current="524288"),
        _domain(),
        ["current_memory"],
        ["current_memory 1048576 KiB -> 524288 KiB (balloon)"],
    ),
    (
        "balloon above the running maximum: on restart",
        _domain(memory="<memory unit='KiB'>2097152</memory>", current="2097152"),
        _domain(),
        ["memory", "current_memory"],
        [],
    ),
    (
        "no balloon device",
        _domain(current="786432", devices="<memballoon model='none'/>"),
        _domain(devices="<memballoon model='none'/>"),
        ["current_memory"],
        [],
    ),
    (
        "memory paths pending, balloon already there",
        _domain(),
        _domain(),
        ["memory_backing"],
        [],
    ),
    (
        "more vCPUs",
        _domain(vcpu="<vcpu current='2'>3</vcpu>"),
        _domain(),
        ["vcpu_current"],
        ["vcpu_current 1 -> 2 (hot-plug)"],
    ),
    (
        "all vCPUs",
        _domain(vcpu="<vcpu>3</vcpu>"),
        _domain(),
        ["vcpu_current"],
        ["vcpu_current 1 -> 3 (hot-plug)"],
    ),
    (
        "fewer vCPUs: on restart",
        _domain(vcpu="<vcpu current='1'>3</vcpu>"),
        _domain(vcpu="<vcpu current='2'>3</vcpu>"),
        ["vcpu_current"],
        [],
    ),
    (
        "more vCPUs than the running maximum: on restart",
        _domain(vcpu="<vcpu>4</vcpu>"),
        _domain(),
        ["vcpu", "vcpu_current"],
        [],
    ),
    (
        "a NIC plugged in",
        _domain(devices=_nic("52:54:00:00:00:01") + _nic("52:54:00:00:00:02")),
        _domain(devices=_nic("52:54:00:00:00:01", running=True)),
        ["devices.interfaces"],
        ["interface 52:54:00:00:00:02 plugged in"],
    ),
    (
        "a NIC unplugged",
        _domain(devices=_nic("52:54:00:00:00:01")),
        _domain(devices=_nic("52:54:00:00:00:01", running=True) + _nic("52:54:00:00:00:02", running=True)),
        ["devices.interfaces"],
        ["interface 52:54:00:00:00:02 unplugged"],
    ),
    (
        "a NIC on another network: plugged out and in again",
        _domain(devices=_nic("52:54:00:00:00:01", "other")),
        _domain(devices=_nic("52:54:00:00:00:01", running=True)),
        ["devices.interfaces[0].source.network.network"],
        ["interface 52:54:00:00:00:01 unplugged", "interface 52:54:00:00:00:01 plugged in"],
    ),
    (
        "a NIC without its MAC yet (check mode)",
        _domain(devices="<interface type='network'><source network='default'/></interface>"),
        _domain(),
        ["devices.interfaces"],
        ["interface plugged in"],
    ),
    (
        "NICs the same, nothing to plug",
        _domain(devices=_nic("52:54:00:00:00:01")),
        _domain(devices=_nic("52:54:00:00:00:01", running=True)),
        ["devices.interfaces[0].model.type"],
        [],
    ),
    (
        "a virtio disk plugged in",
        _domain(devices=ROOT_DISK),
        _domain(),
        ["devices.disks"],
        ["disk vda plugged in"],
    ),
    (
        "a virtio disk unplugged",
        _domain(),
        _domain(devices=ROOT_DISK),
        ["devices.disks"],
        ["disk vda unplugged"],
    ),
    (
        "an IDE disk: on restart",
        _domain(devices=ROOT_DISK.replace("virtio", "ide").replace("vda", "hda")),
        _domain(),
        ["devices.disks"],
        [],
    ),
    (
        "media in",
        _domain(devices=_cdrom("/p/a.iso")),
        _domain(devices=_cdrom(None, fmt=None)),
        ["devices.disks[0].source"],
        ["disk hdc media changed"],
    ),
    (
        "media changed",
        _domain(devices=_cdrom("/p/b.iso")),
        _domain(devices=_cdrom("/p/a.iso")),
        ["devices.disks[0].source"],
        ["disk hdc media changed"],
    ),
    (
        "media out",
        _domain(devices=_cdrom(None)),
        _domain(devices=_cdrom("/p/a.iso")),
        ["devices.disks[0].source"],
        ["disk hdc media changed"],
    ),
    (
        "an empty drive is empty whatever its format",
        _domain(devices=_cdrom(None)),
        _domain(devices=_cdrom(None, fmt=None)),
        ["devices.disks[0].driver.type"],
        [],
    ),
    (
        "a CD-ROM drive is never plugged",
        _domain(devices=_cdrom(None, bus="scsi")),
        _domain(),
        ["devices.disks"],
        [],
    ),
    (
        "a VNC password changed",
        _domain(devices=_vnc("two")),
        _domain(devices=_vnc("one", running=True)),
        ["devices.graphics[0].vnc.passwd"],
        ["graphics[0] password"],
    ),
    (
        "a VNC password added: on restart",
        _domain(devices=_vnc("two")),
        _domain(devices=_vnc(None, running=True)),
        ["devices.graphics[0].vnc.passwd"],
        [],
    ),
    (
        "a VNC port changed: on restart",
        _domain(devices=_vnc("one")),
        _domain(devices=_vnc("one", running=True)),
        ["devices.graphics[0].vnc.port"],
        [],
    ),
    (
        "a display added: on restart",
        _domain(devices=_vnc("one") + _vnc("two")),
        _domain(devices=_vnc("one", running=True)),
        ["devices.graphics"],
        [],
    ),
    ("nothing pending, nothing planned", _domain(current="786432", devices=_nic("52:54:00:00:00:02")), _domain(), [], []),
]


@pytest.mark.parametrize(("definition", "running", "pending", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_planned_changes(definition: t.Any, running: t.Any, pending: list[str], expected: list[str]) -> None:
    assert [change.what for change in domain_live.live_changes(definition, running, pending)] == expected


def _devices(root: t.Any, tag: str) -> list[dict[str, t.Any]]:
    struct = {"interface": "DomainInterface", "disk": "DomainDisk", "graphics": "DomainGraphic"}[tag]
    return [schema.read(struct, element) for element in root.iterfind(f"devices/{tag}")]


@pytest.mark.parametrize(("definition", "running", "pending", "expected"), [case[1:] for case in CASES if case[4]], ids=[case[0] for case in CASES if case[4]])
def test_simulated_changes_bring_the_running_xml_to_the_definition(definition: t.Any, running: t.Any, pending: list[str], expected: list[str]) -> None:
    for change in domain_live.live_changes(definition, running, pending):
        change.simulate(running)
    memory = {k: v for k, v in schema.read("Domain", definition).items() if k in ("current_memory", "vcpu_current")}
    assert schema.compare("Domain", memory, schema.read("Domain", running, like=memory)) == []
    for tag in ("interface", "disk"):
        wanted = _devices(definition, tag)
        assert sorted(map(repr, wanted)) == sorted(repr(schema.read(s, e, like=w)) for s, e, w in _paired(running, tag, wanted))
    for asked, live in zip(_devices(definition, "graphics"), _devices(running, "graphics")):
        assert (asked.get("vnc") or {}).get("passwd") == (live.get("vnc") or {}).get("passwd")


def _paired(root: t.Any, tag: str, wanted: list[dict[str, t.Any]]) -> list[tuple[str, t.Any, dict[str, t.Any]]]:
    struct = {"interface": "DomainInterface", "disk": "DomainDisk"}[tag]
    elements = list(root.iterfind(f"devices/{tag}"))
    return [(struct, element, options) for element, options in zip(elements, wanted)]


class _Dom:
    """What a running domain's live changes call, recorded."""

    def __init__(self, balloon_reaches: int | None = None, agent_errors: int = 0, agent_code: int = 0) -> None:
        self.calls: list[tuple[str, t.Any, int]] = []
        self.balloon = 1048576
        self.balloon_reaches = balloon_reaches
        self.agent_errors, self.agent_code = agent_errors, agent_code

    def setMemoryFlags(self, kib: int, flags: int) -> int:  # libvirt's name
        self.calls.append(("setMemoryFlags", kib, flags))
        self.balloon = kib if self.balloon_reaches is None else self.balloon_reaches
        return 0

    def info(self) -> list[int]:
        return [1, 1048576, self.balloon, 1, 0]

    def setVcpusFlags(self, count: int, flags: int) -> int:
        self.calls.append(("setVcpusFlags", count, flags))
        if flags & libvirt.VIR_DOMAIN_VCPU_GUEST and self.agent_errors:
            self.agent_errors -= 1
            error = libvirt.libvirtError("guest agent reports less cpu than requested")
            error.err = (self.agent_code, 0, "", 0, "", None, None, 0, 0)
            raise error
        return 0

    def attachDeviceFlags(self, xml: str, flags: int) -> int:
        self.calls.append(("attachDeviceFlags", xml, flags))
        return 0


def test_the_balloon_is_set_live_and_waited_for() -> None:
    dom = _Dom()
    (change,) = domain_live.live_changes(_domain(current="786432"), _domain(), ["current_memory"])
    assert change.apply(dom) is None
    assert dom.calls == [("setMemoryFlags", 786432, libvirt.VIR_DOMAIN_AFFECT_LIVE)]


def test_a_balloon_that_does_not_move_is_warned_of(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domain_live, "BALLOON_SECONDS", 0.0)
    (change,) = domain_live.live_changes(_domain(current="786432"), _domain(), ["current_memory"])
    warning = change.apply(_Dom(balloon_reaches=1048576))
    assert warning is not None and "balloon is at 1048576 KiB of the 786432 KiB asked" in warning and "virtio_balloon" in warning


def test_vcpus_are_plugged_then_onlined_by_the_agent_once_the_guest_sees_them() -> None:
    dom = _Dom(agent_errors=2)
    (change,) = domain_live.live_changes(_domain(vcpu="<vcpu current='2'>3</vcpu>"), _domain(), ["vcpu_current"])
    assert change.apply(dom) is None
    live, guest = libvirt.VIR_DOMAIN_AFFECT_LIVE, libvirt.VIR_DOMAIN_VCPU_GUEST
    assert dom.calls == [("setVcpusFlags", 2, live)] + [("setVcpusFlags", 2, guest)] * 3


def test_vcpus_without_an_agent_are_warned_of_at_once() -> None:
    dom = _Dom(agent_errors=1, agent_code=libvirt.VIR_ERR_AGENT_UNRESPONSIVE)
    (change,) = domain_live.live_changes(_domain(vcpu="<vcpu current='2'>3</vcpu>"), _domain(), ["vcpu_current"])
    warning = change.apply(dom)
    assert warning is not None and warning.startswith("vcpu_current: 2 vCPUs are plugged into the running domain") and "/online" in warning
    assert len(dom.calls) == 2


def test_a_plugged_nic_keeps_the_definitions_mac_and_address() -> None:
    nic = _nic("52:54:00:00:00:02").replace("</interface>", "<address type='pci' domain='0x0000' bus='0x00' slot='0x07' function='0x0'/></interface>")
    dom = _Dom()
    (change,) = domain_live.live_changes(_domain(devices=nic), _domain(), ["devices.interfaces"])
    change.apply(dom)
    ((call, xml, flags),) = dom.calls
    assert call == "attachDeviceFlags" and flags == libvirt.VIR_DOMAIN_AFFECT_LIVE
    assert "52:54:00:00:00:02" in xml and 'slot="0x07"' in xml.replace("'", '"')


@pytest.mark.parametrize(
    ("desired", "host_arch", "refused"),
    [
        ({"os": {"firmware": "efi"}}, "x86_64", True),
        ({"os": {"firmware": "efi", "type_arch": "i686"}}, "aarch64", True),
        ({"os": {"firmware": "efi"}, "features": {"acpi": True}}, "x86_64", False),
        ({"os": {"firmware": "efi"}}, "aarch64", False),
        ({"os": {"firmware": "bios"}}, "x86_64", False),
        ({}, None, False),
    ],
)
def test_uefi_without_acpi_is_refused_before_anything_on_x86(desired: dict[str, t.Any], host_arch: str | None, refused: bool) -> None:
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError

    if refused:
        with pytest.raises(LibvirtValidationError, match=r"^features\.acpi: UEFI requires ACPI on this architecture"):
            domain._check_uefi_acpi(desired, lambda: host_arch)
    else:
        domain._check_uefi_acpi(desired, lambda: host_arch)
