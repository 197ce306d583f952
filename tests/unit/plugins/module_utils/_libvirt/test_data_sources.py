# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import data_sources as ds
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import connect, libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import (
    LibvirtConnectionError,
    LibvirtError,
    LibvirtNotFoundError,
    LibvirtValidationError,
)
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.ids import go_hash_string

TEST_URI = "test:///default"


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    with connect(TEST_URI) as connection:
        yield connection


def test_node_info_matches_upstream_on_the_test_driver(conn: t.Any) -> None:
    result = ds.node_info(conn)
    assert result.values == {
        "id": "3163122404942841546",  # upstream's hash of "i686-3145728-16-2-2-2-2"
        "cpu_model": "i686",
        "memory_total_kb": 3145728,
        "cpu_cores_total": 16,
        "numa_nodes": 2,
        "cpu_sockets": 2,
        "cpu_cores_per_socket": 2,
        "cpu_threads_per_core": 2,
    }
    assert result.warnings == []


class FakeNodeConn:
    """Only the calls node_memory_total_kb makes, to cover the drivers test:/// lacks."""

    def __init__(self, mib: int, cells: dict[int, int] | None, host_total: int | None) -> None:
        self.info = ["x86_64", mib, 2, 2600, len(cells or {0: 0}), 1, 2, 1]
        self.cells = cells
        self.host_total = host_total

    def getMemoryStats(self, cell: int, flags: int = 0) -> dict[str, int]:
        if cell == libvirt.VIR_NODE_MEMORY_STATS_ALL_CELLS:
            if self.host_total is None:
                raise libvirt.libvirtError("this function is not supported by the connection driver")
            return {"total": self.host_total, "free": 1}
        if self.cells is None:
            raise libvirt.libvirtError("NUMA isn't available on this host")
        return {"total": self.cells[cell], "free": 1}


@pytest.mark.parametrize(
    ("mib", "cells", "host_total", "expected"),
    [
        # NUMA host: virNodeGetInfo sums the cells, which can differ from /proc/meminfo.
        (4697, {0: 4810528}, 24683656, 4810528),
        (8191, {0: 4194000, 1: 4194000}, 8388000, 8388000),
        # No NUMA: the whole-host total is what virNodeGetInfo reports.
        (24105, None, 24683656, 24683656),
        # Neither agrees with the MiB figure (memory grew in between): MiB * 1024.
        (5000, {0: 4810528}, 24683656, 5120000),
        # Test driver: no memory stats at all.
        (3072, None, None, 3145728),
    ],
)
def test_node_memory_total_kb(mib: int, cells: dict[int, int] | None, host_total: int | None, expected: int) -> None:
    fake = FakeNodeConn(mib, cells, host_total)
    assert ds.node_memory_total_kb(t.cast("t.Any", fake), fake.info) == expected


@pytest.mark.parametrize(
    ("capability", "devices"),
    [
        (None, ["computer", "scsi_host1", "scsi_host11", "scsi_host2"]),
        ("scsi_host", ["scsi_host1", "scsi_host11", "scsi_host2"]),
        ("system", ["computer"]),
        ("pci", []),
        ("no-such-capability", []),  # passed to libvirt unchecked, as upstream
    ],
)
def test_node_devices(conn: t.Any, capability: str | None, devices: list[str]) -> None:
    result = ds.node_devices(conn, capability)
    assert result.values == {
        "id": str(go_hash_string(f"{capability or 'all'}-{len(devices)}")),
        "capability": capability,
        "devices": devices,
    }


def test_node_devices_ids_match_upstream_vectors(conn: t.Any) -> None:
    assert ds.node_devices(conn, "pci").values["id"] == str(go_hash_string("pci-0"))
    assert go_hash_string("all-0") == 92904196


def test_node_device_info_on_the_test_driver(conn: t.Any) -> None:
    values = ds.node_device_info(conn, "scsi_host1").values
    assert (values["id"], values["name"], values["path"], values["parent"]) == ("scsi_host1", "scsi_host1", "", "computer")
    assert values["capability"]["type"] == "scsi_host"
    assert values["capability"]["host"] == 1
    computer = ds.node_device_info(conn, "computer").values
    assert computer["parent"] == "" and computer["capability"]["type"] == "system"


def test_node_device_info_unknown_device(conn: t.Any) -> None:
    with pytest.raises(LibvirtNotFoundError, match=r"^Failed to get device information: Unable to retrieve device nope: .*'nope'"):
        ds.node_device_info(conn, "nope")


def test_node_device_info_empty_name_fails_before_asking(conn: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match="^name: must not be empty"):
        ds.node_device_info(conn, "")


NODE_DEVICE_TABLE: list[tuple[str, str, dict[str, t.Any]]] = [
    (
        "pci",
        """<device><name>pci_0000_00_01_0</name><path>/sys/devices/pci0000:00/0000:00:01.0</path>
        <parent>computer</parent><driver><name>virtio-pci</name></driver>
        <capability type='pci'><class>0x020000</class><domain>0</domain><bus>0</bus><slot>1</slot>
        <function>0</function><product id='0x1000'>Virtio network device</product>
        <vendor id='0x1af4'>Red Hat, Inc.</vendor><iommuGroup number='7'><address domain='0x0000'/></iommuGroup>
        </capability></device>""",
        {
            "type": "pci", "domain": 0, "bus": 0, "slot": 1, "function": 0, "class": "0x020000",
            "product_id": "0x1000", "product_name": "Virtio network device", "vendor_id": "0x1af4",
            "vendor_name": "Red Hat, Inc.", "iommu_group": 7,
        },
    ),
    (
        "pci without names (as on the test host)",
        """<device><name>pci_0000_00_01_0</name><capability type='pci'><class>0xffff00</class><domain>0</domain>
        <bus>0</bus><slot>1</slot><function>0</function><product id='0x1045'/><vendor id='0x1af4'/></capability></device>""",
        {
            "type": "pci", "domain": 0, "bus": 0, "slot": 1, "function": 0, "class": "0xffff00",
            "product_id": "0x1045", "vendor_id": "0x1af4",
        },
    ),
    (
        "usb_device",
        """<device><name>usb_1_2</name><parent>usb_usb1</parent><capability type='usb_device'><bus>1</bus>
        <device>2</device><product id='0x0001'>QEMU USB Tablet</product><vendor id='0x0627'/></capability></device>""",
        {"type": "usb_device", "bus": 1, "device_number": 2, "product_id": "0x0001", "product_name": "QEMU USB Tablet", "vendor_id": "0x0627"},
    ),
    (
        "net",
        """<device><name>net_eth0_52_54_00_12_34_56</name><path>/sys/devices/virtual/net/eth0</path><parent>computer</parent>
        <capability type='net'><interface>eth0</interface><address>52:54:00:12:34:56</address>
        <link speed='1000' state='up'/><feature name='rx'/><capability type='80203'/></capability></device>""",
        {"type": "net", "interface": "eth0", "address": "52:54:00:12:34:56", "link_speed": "1000", "link_state": "up"},
    ),
    (
        "net, link down",
        """<device><name>net_lo_00_00_00_00_00_00</name><capability type='net'><interface>lo</interface>
        <address>00:00:00:00:00:00</address><link state='unknown'/></capability></device>""",
        {"type": "net", "interface": "lo", "address": "00:00:00:00:00:00", "link_state": "unknown"},
    ),
    (
        "storage: the bus name is not forced into the numeric bus",
        """<device><name>block_vda</name><path>/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda</path>
        <devnode type='dev'>/dev/vda</devnode><parent>pci_0000_00_02_0</parent><capability type='storage'>
        <block>/dev/vda</block><bus>ata</bus><drive_type>disk</drive_type><model>QEMU HARDDISK</model><vendor>0x1af4</vendor>
        <serial>QM00001</serial><size>274877906944</size><logical_block_size>512</logical_block_size>
        <num_blocks>536870912</num_blocks></capability></device>""",
        {
            "type": "storage", "block": "/dev/vda", "storage_bus": "ata", "drive_type": "disk", "model": "QEMU HARDDISK",
            "vendor_name": "0x1af4", "serial": "QM00001", "size": 274877906944, "logical_block_size": 512,
            "num_blocks": 536870912,
        },
    ),
    (
        "scsi",
        """<device><name>scsi_0_0_0_0</name><parent>scsi_target0_0_0</parent><capability type='scsi'><host>0</host>
        <bus>0</bus><target>0</target><lun>0</lun><type>disk</type></capability></device>""",
        {"type": "scsi", "host": 0, "bus": 0, "target": 0, "lun": 0, "scsi_type": "disk"},
    ),
    (
        "scsi_host",
        """<device><name>scsi_host11</name><parent>computer</parent><capability type='scsi_host'><host>11</host>
        <unique_id>0</unique_id></capability></device>""",
        {"type": "scsi_host", "host": 11},
    ),
    ("system", "<device><name>computer</name><capability type='system'><hardware/></capability></device>", {"type": "system"}),
    ("usb", "<device><name>usb_usb1</name><capability type='usb'><number>0</number></capability></device>", {"type": "usb"}),
    ("drm", "<device><name>drm_card0</name><capability type='drm'><type>primary</type></capability></device>", {"type": "drm"}),
    ("other types are unknown", "<device><name>mdev_x</name><capability type='mdev'><type id='x'/></capability></device>", {"type": "unknown"}),
    ("no capability", "<device><name>odd</name></device>", {"type": "unknown"}),
]  # fmt: skip


@pytest.mark.parametrize(("xml", "expected"), [row[1:] for row in NODE_DEVICE_TABLE], ids=[row[0] for row in NODE_DEVICE_TABLE])
def test_parse_node_device_xml(xml: str, expected: dict[str, t.Any]) -> None:
    capability = ds.parse_node_device_xml("dev", xml)["capability"]
    assert set(capability) == set(ds.NODE_DEVICE_CAPABILITY_KEYS)
    assert {k: v for k, v in capability.items() if v is not None} == expected


def test_parse_node_device_xml_path_and_parent_default_to_empty_strings() -> None:
    values = ds.parse_node_device_xml("odd", "<device><name>odd</name></device>")
    assert (values["path"], values["parent"]) == ("", "")


@pytest.mark.parametrize(
    "xml",
    [
        "<device><name>x</name><capability type='pci'><bus>zero</bus></capability></device>",
        "<device><name>x</name>",
    ],
)
def test_parse_node_device_xml_errors_name_the_device(xml: str) -> None:
    with pytest.raises(LibvirtError, match="^Failed to parse device XML: Unable to parse device XML for x: "):
        ds.parse_node_device_xml("x", xml)


@pytest.mark.parametrize("source", ["lease", "agent", "any"])
@pytest.mark.parametrize("by", ["name", "uuid"])
def test_domain_interface_addresses(conn: t.Any, source: str, by: str) -> None:
    uuid = conn.lookupByName("test").UUIDString()
    domain = "test" if by == "name" else uuid
    result = ds.domain_interface_addresses(conn, domain, source)
    assert result.values == {
        "id": uuid,
        "domain": domain,
        "source": source,
        "interfaces": [{"name": "testnet0", "hwaddr": "aa:bb:cc:dd:ee:ff", "addrs": [{"type": "ipv4", "addr": "192.168.122.3", "prefix": 24}]}],
    }
    assert result.warnings == []


def test_domain_interface_addresses_unknown_domain(conn: t.Any) -> None:
    with pytest.raises(LibvirtNotFoundError) as err:
        ds.domain_interface_addresses(conn, "ghost", "any")
    assert str(err.value).startswith("Domain Not Found: Unable to find domain 'ghost': domain not found by UUID or name 'ghost': ")


def test_a_domain_named_like_another_s_uuid_is_ambiguous(conn: t.Any) -> None:
    """A value that is the UUID of "test" and the name of another domain is refused naming
    both (the snapshot module and the address lookups share this lookup); each domain is
    still reached by its other identifier."""
    uuid = conn.lookupByName("test").UUIDString()
    squatter = conn.defineXML(f"<domain type='test'><name>{uuid}</name><memory>65536</memory><os><type>hvm</type></os></domain>")
    try:
        with pytest.raises(LibvirtValidationError) as err:
            ds.lookup_domain(conn, uuid)
        assert str(err.value).startswith(
            f"domain '{uuid}' is ambiguous: it is the UUID of domain 'test' and the name of another domain, whose UUID is {squatter.UUIDString()}"
        )
        assert ds.lookup_domain(conn, "test").name() == "test"
        assert ds.lookup_domain(conn, squatter.UUIDString()).name() == uuid
    finally:
        squatter.undefine()


@pytest.mark.parametrize(
    ("domain", "source", "message"), [("", "any", "^domain: must not be empty"), ("test", "arp", "^source: must be one of lease, agent, any")]
)
def test_domain_interface_addresses_bad_input(conn: t.Any, domain: str, source: str, message: str) -> None:
    with pytest.raises(LibvirtValidationError, match=message):
        ds.domain_interface_addresses(conn, domain, source)


class FakeDomain:
    def __init__(self, answers: dict[int, t.Any]) -> None:
        self.answers = answers
        self.asked: list[int] = []

    def UUIDString(self) -> str:
        return "00000000-0000-0000-0000-000000000001"

    def interfaceAddresses(self, source: int, flags: int = 0) -> t.Any:
        self.asked.append(source)
        answer = self.answers[source]
        if isinstance(answer, Exception):
            raise answer
        return answer


LEASE = libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_LEASE
AGENT = libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT
V6 = {"vnet0": {"hwaddr": None, "addrs": [{"type": libvirt.VIR_IP_ADDR_TYPE_IPV6, "addr": "fd00::5", "prefix": 64}]}}


@pytest.mark.parametrize(
    ("source", "answers", "asked", "interfaces", "warned"),
    [
        # any: the lease answer wins when it is not empty; the agent is not asked.
        ("any", {LEASE: V6, AGENT: {}}, [LEASE], [{"name": "vnet0", "hwaddr": None, "addrs": [{"type": "ipv6", "addr": "fd00::5", "prefix": 64}]}], False),
        # any: an empty lease answer falls through to the agent.
        (
            "any",
            {LEASE: {}, AGENT: V6},
            [LEASE, AGENT],
            [{"name": "vnet0", "hwaddr": None, "addrs": [{"type": "ipv6", "addr": "fd00::5", "prefix": 64}]}],
            False,
        ),
        # Nothing found and a source failed: a warning, not an error.
        ("any", {LEASE: {}, AGENT: libvirt.libvirtError("QEMU guest agent is not configured")}, [LEASE, AGENT], [], True),
        ("agent", {AGENT: libvirt.libvirtError("QEMU guest agent is not configured")}, [AGENT], [], True),
        # Nothing found without an error: no warning.
        ("lease", {LEASE: {}}, [LEASE], [], False),
    ],
)
def test_domain_interface_addresses_sources(
    monkeypatch: pytest.MonkeyPatch, source: str, answers: dict[int, t.Any], asked: list[int], interfaces: list[t.Any], warned: bool
) -> None:
    domain = FakeDomain(answers)
    monkeypatch.setattr(ds, "lookup_domain", lambda _conn, _name: domain)
    result = ds.domain_interface_addresses(t.cast("t.Any", None), "vm", source)
    assert domain.asked == asked
    assert result.values["interfaces"] == interfaces
    assert bool(result.warnings) is warned
    if warned:
        assert result.warnings[0].startswith("No Interface Addresses Found: Unable to retrieve interface addresses for domain 'vm': ")


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("bogus:///x", "URI: bogus:///x Error: "),
        ("qemu+tcp://127.0.0.1:1/system", "URI: qemu+tcp://127.0.0.1:1/system Error: unable to connect to server"),
    ],
)
def test_connect_errors_name_the_uri(uri: str, message: str) -> None:
    with pytest.raises(LibvirtConnectionError, match="^Unable to Connect to Libvirt: An error occurred while connecting to libvirt. ") as err, connect(uri):
        pass
    assert message in str(err.value)
