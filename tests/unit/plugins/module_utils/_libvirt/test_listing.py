# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.listing import list_domains, list_networks, list_pools, list_volumes
from ansible_collections.devinfra.providers.plugins.modules import (
    libvirt_domain,
    libvirt_domain_info,
    libvirt_domain_snapshot,
    libvirt_network,
    libvirt_network_info,
    libvirt_pool,
    libvirt_pool_info,
    libvirt_volume,
    libvirt_volume_info,
)

TEST_URI = "test:///default"
Run = t.Callable[..., dict[str, t.Any]]

DOMAIN_XML = """<domain type='test'><name>{name}</name><memory>131072</memory><vcpu>1</vcpu>
<os><type>hvm</type></os><devices><disk type='file' device='disk'><source file='/guest/{name}.img'/>
<target dev='vda' bus='virtio'/></disk></devices></domain>"""


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    """test:///default with more to list: two stopped workspaces, a transient domain, an
    inactive network and pool, and volumes in two pools. Removed again afterwards (the
    driver's state outlives a test while anything still refers to the connection)."""
    connection = libvirt.open(TEST_URI)
    made: list[t.Callable[[], t.Any]] = []
    try:
        for name in ("ws-a", "ws-b"):
            dom = connection.defineXML(DOMAIN_XML.format(name=name))
            made.append(dom.undefine)
        transient = connection.createXML(DOMAIN_XML.format(name="scratch"), 0)
        made.append(transient.destroy)
        net = connection.networkDefineXML("<network><name>ws-net</name><bridge name='wsbr0'/><ip address='10.9.0.1' prefix='24'/></network>")
        made.append(net.undefine)
        pool = connection.storagePoolDefineXML("<pool type='dir'><name>ws-pool</name><target><path>/ws-pool</path></target></pool>", 0)
        made.append(pool.undefine)
        pool.create(0)
        made.append(pool.destroy)
        volume = pool.createXML("<volume><name>ws-a.qcow2</name><capacity>1048576</capacity><target><format type='qcow2'/></target></volume>", 0)
        made.append(volume.delete)
        default_pool = connection.storagePoolLookupByName("default-pool")
        raw = default_pool.createXML("<volume><name>base.img</name><capacity unit='MiB'>4</capacity><target><format type='raw'/></target></volume>", 0)
        made.append(raw.delete)
        yield connection
    finally:
        for undo in reversed(made):
            undo()
        connection.close()


def test_domains_all(conn: t.Any) -> None:
    domains = list_domains(conn, {}).values["domains"]
    assert [d["name"] for d in domains] == ["scratch", "test", "ws-a", "ws-b"]
    by_name = {d["name"]: d for d in domains}
    test = by_name["test"]
    assert (test["state"], test["active"], test["persistent"], test["autostart"], test["current_snapshot"], test["snapshots"]) == (
        "running",
        True,
        True,
        False,
        None,
        [],
    )
    assert test["id"] == conn.lookupByName("test").ID()
    assert test["uuid"] == test["options"]["uuid"] == conn.lookupByName("test").UUIDString()
    assert test["options"]["devices"]["disks"][0]["target"] == {"dev": "vda", "bus": "virtio"}
    assert "id" not in test["options"]
    ws_a = by_name["ws-a"]
    assert (ws_a["state"], ws_a["active"], ws_a["id"], ws_a["options"]["running"]) == ("shutoff", False, None, False)
    assert (by_name["scratch"]["persistent"], by_name["scratch"]["state"]) == (False, "running")


@pytest.mark.parametrize(
    ("names", "states", "expected"),
    [
        (["ws-*"], None, ["ws-a", "ws-b"]),
        (["ws-a", "test"], None, ["test", "ws-a"]),
        (["ws-[b]"], None, ["ws-b"]),
        (["nothing"], None, []),
        (None, ["shutoff"], ["ws-a", "ws-b"]),
        (None, ["inactive"], ["ws-a", "ws-b"]),
        (None, ["active"], ["scratch", "test"]),
        (None, ["running", "paused"], ["scratch", "test"]),
        (["ws-*", "test"], ["running"], ["test"]),
    ],
)
def test_domain_filters(conn: t.Any, names: list[str] | None, states: list[str] | None, expected: list[str]) -> None:
    assert [d["name"] for d in list_domains(conn, {"name": names, "state": states}).values["domains"]] == expected


def test_paused_is_active(conn: t.Any) -> None:
    conn.lookupByName("test").suspend()
    try:
        assert [d["state"] for d in list_domains(conn, {"name": ["test"], "state": ["active"]}).values["domains"]] == ["paused"]
    finally:
        conn.lookupByName("test").resume()


def test_names_are_one_line(conn: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match=r"^name\[1\]: contains a control character"):
        list_domains(conn, {"name": ["ok", "bad\n"]})


def test_domain_snapshots(conn: t.Any, run_module: Run) -> None:
    snap = {"uri": TEST_URI, "domain": "ws-a", "name": "first", "description": "one"}
    run_module(libvirt_domain_snapshot.main, snap)
    run_module(libvirt_domain_snapshot.main, {**snap, "name": "second", "description": None})
    try:
        (ws_a,) = list_domains(conn, {"name": ["ws-a"]}).values["domains"]
        assert ws_a["current_snapshot"] == "second"
        assert [(s["name"], s["parent"], s["current"], s["state"], s["disk_only"], s["memory"]) for s in ws_a["snapshots"]] == [
            ("first", None, False, "shutoff", False, "no"),
            ("second", "first", True, "shutoff", False, "no"),
        ]
        assert ws_a["snapshots"][0]["options"] == {"domain": "ws-a", "name": "first", "disk_only": False, "description": "one"}
        # A listed snapshot fed back to its module changes nothing.
        for listed in ws_a["snapshots"]:
            assert run_module(libvirt_domain_snapshot.main, {"uri": TEST_URI, **listed["options"]})["changed"] is False
    finally:
        for snapshot in conn.lookupByName("ws-a").listAllSnapshots(0):
            snapshot.delete(0)


def test_networks(conn: t.Any) -> None:
    networks = list_networks(conn, {}).values["networks"]
    assert [(n["name"], n["state"], n["active"], n["bridge"]) for n in networks] == [
        ("default", "active", True, "virbr0"),
        ("ws-net", "inactive", False, "wsbr0"),
    ]
    assert networks[1]["options"] == {
        "name": "ws-net",
        "bridge": {"name": "wsbr0", "stp": True, "delay": "0"},
        "ips": [{"address": "10.9.0.1", "prefix": 24}],
        "running": False,
        "autostart": False,
    }
    assert [n["name"] for n in list_networks(conn, {"state": ["active"]}).values["networks"]] == ["default"]
    assert [n["name"] for n in list_networks(conn, {"name": ["ws-*"], "state": ["active"]}).values["networks"]] == []


def test_pools(conn: t.Any) -> None:
    conn.storagePoolDefineXML("<pool type='dir'><name>idle</name><target><path>/idle</path></target></pool>", 0)
    try:
        pools = {p["name"]: p for p in list_pools(conn, {}).values["pools"]}
        assert sorted(pools) == ["default-pool", "idle", "ws-pool"]
        ws = pools["ws-pool"]
        assert (ws["type"], ws["state"], ws["active"], ws["path"], ws["volume_count"]) == ("dir", "running", True, "/ws-pool", 1)
        assert ws["capacity"] >= ws["available"] > 0
        assert "capacity" not in ws["options"] and "uuid" not in ws["options"]
        idle = pools["idle"]
        assert (idle["state"], idle["active"], idle["volume_count"]) == ("inactive", False, None)
        assert [p["name"] for p in list_pools(conn, {"state": ["inactive"]}).values["pools"]] == ["idle"]
        assert [p["name"] for p in list_pools(conn, {"state": ["active"], "name": ["*pool"]}).values["pools"]] == ["default-pool", "ws-pool"]
    finally:
        conn.storagePoolLookupByName("idle").undefine()


def test_volumes(conn: t.Any) -> None:
    volumes = list_volumes(conn, {}).values["volumes"]
    assert [(v["pool"], v["name"], v["format"], v["capacity"], v["type"]) for v in volumes] == [
        ("default-pool", "base.img", "raw", 4194304, "file"),
        ("ws-pool", "ws-a.qcow2", "qcow2", 1048576, "file"),
    ]
    qcow2 = volumes[1]
    assert (qcow2["path"], qcow2["key"], qcow2["backing_store"]) == ("/ws-pool/ws-a.qcow2", "/ws-pool/ws-a.qcow2", None)
    assert qcow2["options"]["capacity"] == 1048576
    assert qcow2["options"]["capacity_unit"] == "bytes"
    assert (qcow2["options"]["pool"], qcow2["options"]["target"]["format"]) == ("ws-pool", {"type": "qcow2"})
    assert "key" not in qcow2["options"] and "allocation" not in qcow2["options"]
    assert [v["name"] for v in list_volumes(conn, {"pool": ["ws-*"]}).values["volumes"]] == ["ws-a.qcow2"]
    assert [v["name"] for v in list_volumes(conn, {"name": ["*.img"]}).values["volumes"]] == ["base.img"]


def test_volumes_of_an_inactive_pool(conn: t.Any) -> None:
    conn.storagePoolDefineXML("<pool type='dir'><name>idle</name><target><path>/idle</path></target></pool>", 0)
    try:
        named = list_volumes(conn, {"pool": ["idle"]})
        assert (named.values["volumes"], named.warnings) == ([], ["storage pool 'idle' is not active: its volumes cannot be listed"])
        by_pattern = list_volumes(conn, {"pool": ["id*"]})  # a pattern asked for whatever matches: no warning
        assert (by_pattern.values["volumes"], by_pattern.warnings) == ([], [])
    finally:
        conn.storagePoolLookupByName("idle").undefine()


# --- a listed object fed back to its module changes nothing ---------------------------


@pytest.mark.parametrize(
    ("info", "key", "module"),
    [
        (libvirt_domain_info, "domains", libvirt_domain),
        (libvirt_network_info, "networks", libvirt_network),
        (libvirt_pool_info, "pools", libvirt_pool),
        (libvirt_volume_info, "volumes", libvirt_volume),
    ],
)
def test_options_feed_back_unchanged(conn: t.Any, run_module: Run, info: t.Any, key: str, module: t.Any) -> None:
    listed = run_module(info.main, {"uri": TEST_URI})
    assert listed["changed"] is False
    assert listed[key]
    for item in listed[key]:
        if key == "domains" and not item["persistent"]:
            continue  # the module would make the transient domain persistent
        for check_mode in (True, False):
            result = run_module(module.main, {"uri": TEST_URI, **item["options"]}, check_mode=check_mode, diff=True)
            assert "failed" not in result, result.get("msg")
            assert result["changed"] is False, (item["name"], result["diff"])
    assert run_module(info.main, {"uri": TEST_URI})[key] == listed[key]


@pytest.mark.parametrize(
    ("info", "args", "message"),
    [
        (libvirt_domain_info, {"state": ["asleep"]}, "value of state must be one or more of: active, blocked, crashed, inactive, nostate, paused"),
        (libvirt_network_info, {"state": ["running"]}, "value of state must be one or more of: active, inactive. Got no match for: running"),
        (libvirt_pool_info, {"name": ["a\x00b"]}, "name[0]: contains a control character (U+0000)"),
        (libvirt_volume_info, {"pool": ["\x1b[31m"]}, "pool[0]: contains a control character (U+001B)"),
        (libvirt_volume_info, {"uri": "bogus:///"}, "URI: bogus:/// Error: "),
    ],
)
def test_module_errors(run_module: Run, info: t.Any, args: dict[str, t.Any], message: str) -> None:
    result = run_module(info.main, {"uri": TEST_URI, **args})
    assert result["failed"] is True
    assert message in result["msg"]


@pytest.mark.parametrize("check_mode", [False, True])
def test_module_reads_in_check_mode(conn: t.Any, run_module: Run, check_mode: bool) -> None:
    result = run_module(libvirt_domain_info.main, {"uri": TEST_URI, "name": ["ws-a"]}, check_mode=check_mode)
    assert (result["changed"], [d["name"] for d in result["domains"]]) == (False, ["ws-a"])


class _FileVolume:
    """A volume as the QEMU driver describes a file: with the times it reads from the file."""

    XML = """<volume type='file'><name>disk.qcow2</name><key>/p/disk.qcow2</key>
      <capacity unit='bytes'>1048576</capacity><allocation unit='bytes'>4096</allocation>
      <target><path>/p/disk.qcow2</path><format type='qcow2'/>
        <permissions><mode>0600</mode><owner>0</owner><group>0</group></permissions>
        <timestamps><atime>1795572504.697161963</atime><mtime>1795572507.5</mtime><ctime>1795572507.5</ctime></timestamps>
      </target>
      <backingStore><path>/p/base.qcow2</path><format type='qcow2'/><timestamps><atime>1795572504.1</atime></timestamps></backingStore>
    </volume>"""

    def XMLDesc(self, _flags: int) -> str:
        return self.XML

    def info(self) -> list[int]:
        return [0, 1048576, 4096]

    def name(self) -> str:
        return "disk.qcow2"

    def key(self) -> str:
        return "/p/disk.qcow2"

    def path(self) -> str:
        return "/p/disk.qcow2"


def test_volume_options_leave_out_file_times() -> None:
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import listing

    listed = listing._volume(_FileVolume(), "p")
    assert listed["backing_store"] == "/p/base.qcow2"
    assert listed["options"]["target"] == {"path": "/p/disk.qcow2", "format": {"type": "qcow2"}, "permissions": {"mode": "0600", "owner": "0", "group": "0"}}
    assert listed["options"]["backing_store"] == {"path": "/p/base.qcow2", "format": {"type": "qcow2"}}
