# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import re
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.modules import libvirt_network, libvirt_pool

TEST_URI = "test:///default"
Run = t.Callable[..., dict[str, t.Any]]


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    """Holds test:///default open, so its state lives across the module runs of a test."""
    connection = libvirt.open(TEST_URI)
    yield connection
    connection.close()


NETWORK: dict[str, t.Any] = {
    "uri": TEST_URI,
    "name": "unit-net",
    "bridge": {"name": "unitbr0", "stp": "on", "delay": "0"},
    "ips": [{"address": "192.168.99.1", "prefix": 24, "dhcp": {"ranges": [{"start": "192.168.99.10", "end": "192.168.99.20"}]}}],
}


def test_network_lifecycle(conn: t.Any, run_module: Run) -> None:
    result = run_module(libvirt_network.main, NETWORK, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["diff"]["before"] == {}
    assert "unit-net" not in conn.listNetworks() + conn.listDefinedNetworks()  # check mode made nothing

    result = run_module(libvirt_network.main, NETWORK)
    assert result["changed"] is True
    assert result["network"]["running"] is True
    assert result["network"]["uuid"] == conn.networkLookupByName("unit-net").UUIDString()

    assert run_module(libvirt_network.main, NETWORK)["changed"] is False
    assert run_module(libvirt_network.main, NETWORK, check_mode=True)["changed"] is False

    uuid = result["network"]["uuid"]
    hosts = [{"mac": "52:54:00:00:00:99", "name": "h", "ip": "192.168.99.9"}]
    changed = {**NETWORK, "ips": [{**NETWORK["ips"][0], "dhcp": {**NETWORK["ips"][0]["dhcp"], "hosts": hosts}}]}
    xml_before = conn.networkLookupByName("unit-net").XMLDesc(0)
    result = run_module(libvirt_network.main, changed, check_mode=True)
    assert (result["changed"], result["update_method"]) == (True, "update")
    assert conn.networkLookupByName("unit-net").XMLDesc(0) == xml_before  # check mode changed nothing
    result = run_module(libvirt_network.main, changed, diff=True)
    assert (result["changed"], result["update_method"]) == (True, "update")
    assert result["diff"]["after"]["ips"][0]["dhcp"]["hosts"] == hosts
    assert result["network"]["uuid"] == uuid
    assert run_module(libvirt_network.main, changed)["changed"] is False

    xml_before = conn.networkLookupByName("unit-net").XMLDesc(0)
    assert run_module(libvirt_network.main, {**changed, "mtu": {"size": 9000}}, check_mode=True)["changed"] is True
    assert conn.networkLookupByName("unit-net").XMLDesc(0) == xml_before
    result = run_module(libvirt_network.main, {**changed, "mtu": {"size": 9000}})
    assert result["update_method"] == "redefine"
    assert result["restart_required"] is True
    assert result["network"]["uuid"] == uuid  # redefined in place
    result = run_module(libvirt_network.main, {**changed, "mtu": {"size": 9000}, "restart": True})
    assert (result["changed"], result["update_method"]) == (True, "redefine+restart")
    # (That the restart converges is an integration test: the test driver drops the new
    # definition of a running network, the real daemon applies it at the restart.)

    assert run_module(libvirt_network.main, {**changed, "running": False})["network"]["running"] is False
    assert run_module(libvirt_network.main, {**changed, "running": True, "autostart": True})["network"]["autostart"] is True

    result = run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-net", "state": "absent"}, check_mode=True)
    assert result["changed"] is True
    assert "unit-net" in conn.listNetworks()
    result = run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-net", "state": "absent"})
    assert (result["changed"], result["network"]["uuid"]) == (True, uuid)
    result = run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-net", "state": "absent"})
    assert (result["changed"], result["network"]) == (False, {})


@pytest.mark.parametrize(
    ("given", "written"),
    [(True, "on"), ("on", "on"), ("yes", "on"), ("true", "on"), (False, "off"), ("off", "off"), ("no", "off")],
)
def test_switches_converge_in_every_spelling(conn: t.Any, run_module: Run, given: t.Any, written: str) -> None:
    """libvirt's RNG spells stp on/off and ipv6 yes/no: the options are booleans that take those
    words too (and YAML's), write libvirt's spelling, and compare equal on the next run."""
    args = {"uri": TEST_URI, "name": "unit-switch", "bridge": {"name": "switchbr0", "stp": given}, "ipv6": given}
    try:
        assert run_module(libvirt_network.main, args)["changed"] is True
        xml = conn.networkLookupByName("unit-switch").XMLDesc(0)
        assert f"stp='{written}'" in xml
        assert ("ipv6='yes'" in xml) is (written == "on")  # libvirt leaves out ipv6="no"
        again = run_module(libvirt_network.main, args)
        assert (again["changed"], again["network"]["bridge"]["stp"]) == (False, written == "on")
        assert run_module(libvirt_network.main, args, check_mode=True)["changed"] is False
    finally:
        run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-switch", "state": "absent"})


@pytest.mark.parametrize(
    ("ips", "message"),
    [
        ([{"address": "10.0.0.300", "prefix": 24}], "ips[0].address: '10.0.0.300' is not an IP address"),
        ([{"address": "not-an-ip", "prefix": 24}], "ips[0].address: 'not-an-ip' is not an IP address"),
        ([{"address": "10.0.0.1", "prefix": 33}], "ips[0].prefix: 33 is not a prefix length of an IPv4 address (0 to 32)"),
        ([{"address": "fd00::1", "prefix": 129}], "ips[0].prefix: 129 is not a prefix length of an IPv6 address (0 to 128)"),
        ([{"address": "10.0.0.1", "netmask": "255.0.255.0"}], "ips[0].netmask: '255.0.255.0' is not an IPv4 netmask"),
        ([{"address": "fd00::1", "netmask": "255.255.255.0"}], "ips[0].netmask: only an IPv4 address takes a netmask"),
        ([{"address": "10.0.0.1", "prefix": 24, "dhcp": {"hosts": [{"mac": "52:54:00:zz:00:01", "ip": "10.0.0.5"}]}}], "ips[0].dhcp.hosts[0].mac: "),
    ],
)
@pytest.mark.parametrize("check_mode", [True, False])
def test_a_bad_address_fails_the_check_run_as_the_real_run(conn: t.Any, run_module: Run, ips: list[dict[str, t.Any]], message: str, check_mode: bool) -> None:
    """libvirt refuses these when it defines the network, which a check run never gets to."""
    result = run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-bad-ip", "running": False, "ips": ips}, check_mode=check_mode)
    assert result.get("failed") is True, result
    assert result["msg"].startswith(message), result["msg"]
    assert "unit-bad-ip" not in conn.listNetworks() + conn.listDefinedNetworks()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"dns": {"host": [{"ip": "1.2.3", "hostnames": [{"hostname": "h"}]}]}}, "dns.host[0].ip: '1.2.3' is not an IP address"),
        ({"dns": {"forwarders": [{"addr": "resolver"}]}}, "dns.forwarders[0].addr: 'resolver' is not an IP address"),
        ({"routes": [{"address": "10.9.0.0", "prefix": 16, "gateway": "10.0.0.256"}]}, "routes[0].gateway: '10.0.0.256' is not an IP address"),
        ({"mac": {"address": "52:54:00:00:01"}}, "mac.address: '52:54:00:00:01' is not a MAC address"),
    ],
)
def test_every_address_option_is_checked_in_a_check_run(conn: t.Any, run_module: Run, args: dict[str, t.Any], message: str) -> None:
    result = run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-bad-ip", "running": False, **args}, check_mode=True)
    assert result.get("failed") is True, result
    assert result["msg"].startswith(message), result["msg"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"bridge": {"name": "b", "colour": "red"}}, "colour"),
        ({"ips": [{"prefix": "twenty"}]}, "prefix"),
        ({"ipv6": "maybe"}, "ipv6"),
        ({"dns": {"txts": [{"value": "v"}]}}, "name"),
        ({"virtual_port": {"params": {"any": {"profile_id": "p"}, "mido_net": {"interface_id": "i"}}}}, "virtual_port.params: only one of"),
        ({"metadata": {"xml": "<unclosed>"}}, "metadata.xml: not valid XML"),
        ({"ips": [{"address": "10.1.1.1", "prefix": 24, "netmask": "255.255.255.0"}]}, "ips[0]: give at most one of prefix, netmask; got prefix, netmask"),
    ],
)
def test_network_bad_input_fails_before_anything_is_touched(conn: t.Any, run_module: Run, args: dict[str, t.Any], message: str) -> None:
    result = run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-bad", **args})
    assert result["failed"] is True
    assert message in result["msg"]
    assert "unit-bad" not in conn.listNetworks() + conn.listDefinedNetworks()


POOL: dict[str, t.Any] = {"uri": TEST_URI, "name": "unit-pool", "type": "dir", "target": {"path": "/unit-pool/", "permissions": {"mode": "755"}}}


def test_pool_lifecycle(conn: t.Any, run_module: Run) -> None:
    assert run_module(libvirt_pool.main, POOL, check_mode=True)["changed"] is True
    assert "unit-pool" not in conn.listStoragePools() + conn.listDefinedStoragePools()
    result = run_module(libvirt_pool.main, POOL)
    assert result["changed"] is True
    assert (result["pool"]["running"], result["pool"]["autostart"]) == (True, True)  # upstream's defaults
    assert {"capacity", "allocation", "available"} <= set(result["pool"])
    # "/unit-pool/" and "755" are what libvirt stores as "/unit-pool" and "0755".
    assert run_module(libvirt_pool.main, POOL)["changed"] is False
    xml_before = conn.storagePoolLookupByName("unit-pool").XMLDesc(0)
    result = run_module(libvirt_pool.main, {**POOL, "target": {"path": "/unit-pool", "permissions": {"mode": "0700"}}}, check_mode=True, diff=True)
    assert result["changed"] is True
    assert result["diff"]["after"]["target"]["permissions"]["mode"] == "0700"
    assert conn.storagePoolLookupByName("unit-pool").XMLDesc(0) == xml_before  # check mode changed nothing
    result = run_module(libvirt_pool.main, {**POOL, "type": "logical"})
    assert result["failed"] is True
    assert "cannot change in place" in result["msg"]
    result = run_module(libvirt_pool.main, {"uri": TEST_URI, "name": "unit-pool", "state": "absent"})
    assert result["changed"] is True
    assert "unit-pool" not in conn.listStoragePools() + conn.listDefinedStoragePools()


@pytest.mark.parametrize("volumes", [0, 1])
def test_removing_a_stopped_pool_keeps_its_storage_in_a_check_run_as_in_the_real_run(conn: t.Any, run_module: Run, volumes: int) -> None:
    """A stopped pool's volumes cannot be listed without starting it, which a check run cannot
    do: its storage is kept, with a warning, whether or not it holds volumes, and the check run
    says so as the real run does (the real run started it and deleted an empty one's storage)."""
    pool = {**POOL, "name": "unit-stopped-pool"}
    assert run_module(libvirt_pool.main, pool)["changed"] is True
    handle = conn.storagePoolLookupByName("unit-stopped-pool")
    for index in range(volumes):
        handle.createXML(f"<volume><name>kept{index}.img</name><capacity>1024</capacity></volume>", 0)
    handle.destroy()
    remove = {"uri": TEST_URI, "name": "unit-stopped-pool", "state": "absent"}
    planned = run_module(libvirt_pool.main, remove, check_mode=True)
    result = run_module(libvirt_pool.main, remove)
    for outcome in (planned, result):
        assert (outcome["changed"], outcome["operation"], outcome["storage_deleted"]) == (True, "delete", False), outcome
        assert "is not active, so the volumes it may hold cannot be listed" in str(outcome.get("warnings")), outcome
    assert "unit-stopped-pool" not in conn.listStoragePools() + conn.listDefinedStoragePools()


@pytest.mark.parametrize(("destroy", "deleted"), [({"delete": True}, True), ({"delete": False}, False), ({}, True)])
def test_a_check_run_says_whether_the_storage_goes_as_the_real_run_does(conn: t.Any, run_module: Run, destroy: dict[str, t.Any], deleted: bool) -> None:
    pool = {**POOL, "name": "unit-gone-pool"}
    assert run_module(libvirt_pool.main, pool)["changed"] is True
    remove = {"uri": TEST_URI, "name": "unit-gone-pool", "state": "absent", "destroy": destroy}
    planned = run_module(libvirt_pool.main, remove, check_mode=True)
    assert "unit-gone-pool" in conn.listStoragePools()
    result = run_module(libvirt_pool.main, remove)
    assert planned["storage_deleted"] is result["storage_deleted"] is deleted
    assert (planned["operation"], planned.get("warnings")) == (result["operation"], result.get("warnings"))


def test_pool_needs_a_type_to_be_created(conn: t.Any, run_module: Run) -> None:
    result = run_module(libvirt_pool.main, {"uri": TEST_URI, "name": "unit-untyped"})
    assert result["failed"] is True
    assert result["msg"].startswith("type: required to create storage pool 'unit-untyped'")


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        (
            [{"start": "192.168.99.10", "end": "192.168.99.20"}, {"start": "10.0.0.1", "end": "10.0.0.9"}],
            r"ips\[0\]\.dhcp\.ranges\[1\]\.start: 10\.0\.0\.1 is not in",
        ),
        ([{"start": "192.168.99.30", "end": "192.168.99.20"}], r"ips\[0\]\.dhcp\.ranges\[0\]: start 192\.168\.99\.30 is after end"),
        ([{"start": "192.168.99.10", "end": "not-an-ip"}], r"ips\[0\]\.dhcp\.ranges\[0\]\.end: 'not-an-ip' is not an IP address"),
    ],
)
def test_a_live_update_is_checked_whole_before_anything_is_applied(conn: t.Any, run_module: Run, ranges: list[dict[str, str]], message: str) -> None:
    """One valid range and one outside the subnet used to leave the first one live and
    persistent, the old range gone, before libvirt refused the second."""
    run_module(libvirt_network.main, NETWORK)
    before = conn.networkLookupByName("unit-net").XMLDesc(0)  # the test driver keeps one definition
    changed = {**NETWORK, "ips": [{**NETWORK["ips"][0], "dhcp": {"ranges": ranges}}]}
    result = run_module(libvirt_network.main, changed)
    assert result["failed"] is True
    assert re.match(message, result["msg"]), result["msg"]
    assert conn.networkLookupByName("unit-net").XMLDesc(0) == before
    run_module(libvirt_network.main, {**NETWORK, "state": "absent"})


def test_a_live_update_libvirt_refuses_half_way_is_undone(conn: t.Any, run_module: Run) -> None:
    """Changes libvirt refuses only when it gets to them (a second host with the same MAC):
    the ones applied before are undone, live and in the definition."""
    run_module(libvirt_network.main, NETWORK)
    before = conn.networkLookupByName("unit-net").XMLDesc(0)
    hosts = [{"mac": "52:54:00:00:00:98", "ip": "192.168.99.8"}, {"mac": "52:54:00:00:00:98", "ip": "192.168.99.7"}]
    ranges = [*NETWORK["ips"][0]["dhcp"]["ranges"], {"start": "192.168.99.100", "end": "192.168.99.120"}]
    changed = {**NETWORK, "ips": [{**NETWORK["ips"][0], "dhcp": {"ranges": ranges, "hosts": hosts}}]}
    result = run_module(libvirt_network.main, changed)
    assert result["failed"] is True
    assert "changes applied before it were undone" in result["msg"], result["msg"]
    assert conn.networkLookupByName("unit-net").XMLDesc(0) == before
    assert run_module(libvirt_network.main, NETWORK)["changed"] is False
    run_module(libvirt_network.main, {**NETWORK, "state": "absent"})


def test_a_netmask_and_its_prefix_length_are_one_value(conn: t.Any, run_module: Run) -> None:
    """A network defined with netmask='255.255.255.0' is the same as prefix 24 (the libvirt_host
    role gives a prefix); a real change replaces the other spelling, which libvirt refuses beside it."""
    xml = "<network><name>unit-mask</name><bridge name='unitbr9'/><ip address='192.168.98.1' netmask='255.255.255.0'/></network>"
    conn.networkDefineXML(xml)
    try:
        as_prefix = {"uri": TEST_URI, "name": "unit-mask", "running": False, "ips": [{"address": "192.168.98.1", "prefix": 24}]}
        assert run_module(libvirt_network.main, as_prefix)["changed"] is False
        as_netmask = {**as_prefix, "ips": [{"address": "192.168.98.1", "netmask": "255.255.255.0"}]}
        assert run_module(libvirt_network.main, as_netmask)["changed"] is False
        wider = {**as_prefix, "ips": [{"address": "192.168.98.1", "prefix": 16}]}
        result = run_module(libvirt_network.main, wider, diff=True)
        assert result["changed"] is True, result
        stored = conn.networkLookupByName("unit-mask").XMLDesc(0)
        assert "prefix='16'" in stored and "netmask" not in stored
        assert run_module(libvirt_network.main, wider)["changed"] is False
        narrower = {**as_prefix, "ips": [{"address": "192.168.98.1", "netmask": "255.255.255.128"}]}
        assert run_module(libvirt_network.main, narrower)["changed"] is True
        stored = conn.networkLookupByName("unit-mask").XMLDesc(0)
        assert "netmask='255.255.255.128'" in stored and "prefix" not in stored
        assert run_module(libvirt_network.main, {**as_prefix, "ips": [{"address": "192.168.98.1", "prefix": 25}]})["changed"] is False
    finally:
        conn.networkLookupByName("unit-mask").undefine()


def test_pool_refresh_true_is_no_change_and_runs_in_check_mode(run_module: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    refreshed: list[str] = []
    real = libvirt.virStoragePool.refresh

    def counted(self: t.Any, flags: int = 0) -> int:
        refreshed.append(self.name())
        return int(real(self, flags))

    monkeypatch.setattr(libvirt.virStoragePool, "refresh", counted)
    args = {"uri": "test:///default", "name": "default-pool", "refresh": True}
    for check in (False, True):
        result = run_module(libvirt_pool.main, args, check_mode=check)
        assert result.get("changed") is False, result
    assert refreshed == ["default-pool", "default-pool"]
    bad = run_module(libvirt_pool.main, {**args, "refresh": "sometimes"})
    assert bad["failed"] is True and bad["msg"].startswith("refresh: expected a boolean")
    # upstream's <refresh> element still goes to the XML
    element = run_module(libvirt_pool.main, {**args, "refresh": {"volume": {"allocation": "never"}}}, check_mode=True)
    assert element["changed"] is True


def test_pool_build_and_delete_modes_map_to_libvirt_flags() -> None:
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import pool as pool_utils

    assert {mode: pool_utils.build_flags(mode) for mode in pool_utils.POOL_ARGSPEC["create"]["options"]["build_mode"]["choices"]} == {
        "new": libvirt.VIR_STORAGE_POOL_BUILD_NEW,
        "repair": libvirt.VIR_STORAGE_POOL_BUILD_REPAIR,
        "resize": libvirt.VIR_STORAGE_POOL_BUILD_RESIZE,
        "overwrite": libvirt.VIR_STORAGE_POOL_BUILD_OVERWRITE,
        "no_overwrite": libvirt.VIR_STORAGE_POOL_BUILD_NO_OVERWRITE,
    }
    assert {mode: pool_utils.delete_flags(mode) for mode in pool_utils.POOL_ARGSPEC["destroy"]["options"]["delete_mode"]["choices"]} == {
        "normal": libvirt.VIR_STORAGE_POOL_DELETE_NORMAL,
        "zeroed": libvirt.VIR_STORAGE_POOL_DELETE_ZEROED,
    }


@pytest.mark.parametrize(
    ("args", "option"),
    [({"create": {"build_mode": "format"}}, "build_mode"), ({"state": "absent", "destroy": {"delete_mode": "shred"}}, "delete_mode")],
)
def test_pool_bad_build_or_delete_mode_fails_naming_the_option(conn: t.Any, run_module: Run, args: dict[str, t.Any], option: str) -> None:
    before = sorted(conn.listAllStoragePools(), key=lambda p: p.name())
    result = run_module(libvirt_pool.main, {**POOL, **args})
    assert result["failed"] is True
    assert option in result["msg"]
    assert [p.name() for p in sorted(conn.listAllStoragePools(), key=lambda p: p.name())] == [p.name() for p in before]


def test_pool_build_and_delete_flags_reach_libvirt(conn: t.Any, run_module: Run) -> None:
    # The test driver takes no build or delete flag: a refused build leaves no pool behind, and a
    # refused zeroed delete fails the task (the real daemon's dir pools are covered in integration).
    refused = run_module(libvirt_pool.main, {**POOL, "create": {"build_mode": "no_overwrite"}})
    assert refused["failed"] is True
    assert "unsupported flags (0x4)" in refused["msg"]
    assert "unit-pool" not in conn.listStoragePools() + conn.listDefinedStoragePools()
    made = run_module(libvirt_pool.main, POOL)
    assert made["changed"] is True
    zeroed = run_module(libvirt_pool.main, {**POOL, "state": "absent", "destroy": {"delete": True, "delete_mode": "zeroed"}})
    assert zeroed["failed"] is True
    assert zeroed["msg"].startswith("destroy.delete_mode: libvirt cannot delete a 'dir' pool's storage zeroed")
    assert "unit-pool" in conn.listStoragePools()  # nothing touched
    gone = run_module(libvirt_pool.main, {**POOL, "state": "absent", "destroy": {"delete": True}})
    assert gone["changed"] is True
    assert "unit-pool" not in conn.listStoragePools() + conn.listDefinedStoragePools()
