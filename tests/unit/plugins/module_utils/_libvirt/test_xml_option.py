# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The ``xml`` option of libvirt_network, libvirt_pool and libvirt_volume, with definitions
written the way community.libvirt's examples write them."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.modules import (
    libvirt_network,
    libvirt_network_info,
    libvirt_pool,
    libvirt_pool_info,
    libvirt_volume,
    libvirt_volume_info,
)

TEST_URI = "test:///default"
Run = t.Callable[..., dict[str, t.Any]]

NETWORK_XML = """<network>
  <name>unit-xml-net</name>
  <forward mode='nat'>
    <nat>
      <port start='1024' end='65535'/>
    </nat>
  </forward>
  <bridge name='unitxmlbr0' stp='on' delay='0'/>
  <ip address='192.168.123.1' netmask='255.255.255.0'>
    <dhcp>
      <range start='192.168.123.128' end='192.168.123.254'/>
    </dhcp>
  </ip>
</network>
"""

POOL_XML = """<pool type='dir'>
  <name>unit-xml-pool</name>
  <capacity unit='bytes'>0</capacity>
  <allocation unit='bytes'>0</allocation>
  <available unit='bytes'>0</available>
  <source>
  </source>
  <target>
    <path>/unit-xml-pool</path>
  </target>
</pool>
"""

VOLUME_XML = """<volume>
  <name>unit-xml.qcow2</name>
  <allocation>0</allocation>
  <capacity unit='M'>10</capacity>
  <target>
    <format type='qcow2'/>
    <permissions>
      <mode>0644</mode>
    </permissions>
  </target>
</volume>
"""

# (module, the task's other arguments, XML, lookup of the object, its removal)
CASES = {
    "network": (libvirt_network.main, {}, NETWORK_XML, lambda c: c.networkLookupByName("unit-xml-net")),
    "pool": (libvirt_pool.main, {}, POOL_XML, lambda c: c.storagePoolLookupByName("unit-xml-pool")),
    "volume": (
        libvirt_volume.main,
        {"pool": "default-pool"},
        VOLUME_XML,
        lambda c: c.storagePoolLookupByName("default-pool").storageVolLookupByName("unit-xml.qcow2"),
    ),
}
PLAN = ("changed", "operation", "changed_paths")


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    connection = libvirt.open(TEST_URI)  # keeps the test driver's state across module runs
    yield connection
    connection.close()


def _exists(lookup: t.Callable[[t.Any], t.Any], conn: t.Any) -> bool:
    try:
        lookup(conn)
    except libvirt.libvirtError:
        return False
    return True


@pytest.mark.parametrize("kind", sorted(CASES))
def test_xml_defines_then_no_change(conn: t.Any, run_module: Run, kind: str) -> None:
    main, extra, xml, lookup = CASES[kind]
    args = {"uri": TEST_URI, "xml": xml, **extra}
    planned = run_module(main, args, check_mode=True, diff=True)
    assert not _exists(lookup, conn)  # check mode made nothing
    done = run_module(main, args, diff=True)
    assert "failed" not in done, done
    assert {k: planned.get(k) for k in PLAN} == {k: done.get(k) for k in PLAN}
    assert (done["changed"], done["operation"]) == (True, "create")
    assert planned["diff"]["after"] == done["diff"]["after"]
    assert _exists(lookup, conn)
    again = run_module(main, args, check_mode=True)
    assert again["changed"] is False, again
    again = run_module(main, args)
    assert again["changed"] is False, again
    # name given too: it agrees with the XML's
    named = run_module(main, {**args, "name": done[kind]["name"]})
    assert named["changed"] is False, named
    removed = run_module(main, {"uri": TEST_URI, "xml": xml, "state": "absent", **extra})
    assert removed["changed"] is True
    assert not _exists(lookup, conn)


def test_network_xml_change_is_applied_and_planned(conn: t.Any, run_module: Run) -> None:
    args = {"uri": TEST_URI, "xml": NETWORK_XML}
    run_module(libvirt_network.main, args)
    changed = {**args, "xml": NETWORK_XML.replace("192.168.123.254", "192.168.123.200")}
    planned = run_module(libvirt_network.main, changed, check_mode=True)
    done = run_module(libvirt_network.main, changed)
    assert {k: planned.get(k) for k in PLAN} == {k: done.get(k) for k in PLAN}
    assert done["changed"] is True
    assert run_module(libvirt_network.main, changed)["changed"] is False
    run_module(libvirt_network.main, {"uri": TEST_URI, "name": "unit-xml-net", "state": "absent"})


@pytest.mark.parametrize(
    ("kind", "xml", "args", "message"),
    [
        ("network", "<network><name>x</name>", {}, "xml: not valid XML"),
        ("network", "<pool type='dir'><name>x</name></pool>", {}, "xml: the root element must be <network>, not <pool>"),
        ("pool", NETWORK_XML, {}, "xml: the root element must be <pool>, not <network>"),
        ("volume", POOL_XML, {"pool": "default-pool"}, "xml: the root element must be <volume>, not <pool>"),
        ("network", NETWORK_XML, {"name": "other"}, "xml: its <name> is 'unit-xml-net' but name is 'other'"),
        ("network", NETWORK_XML, {"mtu": {"size": 9000}}, "xml: cannot be combined with the network options (mtu)"),
        ("pool", POOL_XML, {"type": "dir"}, "xml: cannot be combined with the storage pool options (type)"),
        ("volume", VOLUME_XML, {"pool": "default-pool", "capacity": "1G"}, "xml: cannot be combined with the volume options (capacity)"),
        ("network", "<network><bridge name='b'/></network>", {}, "xml: the network has no <name>"),
        ("network", NETWORK_XML.replace("192.168.123.128", "10.0.0.1"), {}, "ips[0].dhcp.ranges[0].start: 10.0.0.1 is not in the network's subnet"),
        ("network", NETWORK_XML.replace("<bridge", "<mtu size='99999999999'/><bridge"), {}, "xml: mtu.size"),
        # entities and DTDs: refused, never resolved or fetched
        (
            "network",
            '<?xml version="1.0"?><!DOCTYPE network [<!ENTITY e SYSTEM "file:///etc/passwd">]><network><name>&e;</name></network>',
            {},
            "xml: a DOCTYPE",
        ),
        (
            "pool",
            '<!DOCTYPE pool SYSTEM "http://192.0.2.1/pool.dtd"><pool type="dir"><name>p</name></pool>',
            {},
            "xml: a DOCTYPE",
        ),
        (
            "network",
            '<!DOCTYPE n [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><network><name>&b;</name></network>',
            {},
            "xml: a DOCTYPE",
        ),
        ("network", "<network><name>&undeclared;</name></network>", {}, "xml: not valid XML"),
    ],
)
def test_bad_xml_touches_nothing(conn: t.Any, run_module: Run, kind: str, xml: str, args: dict[str, t.Any], message: str) -> None:
    main = CASES[kind][0]
    before = (conn.listAllNetworks(), conn.listAllStoragePools(), conn.storagePoolLookupByName("default-pool").listVolumes())
    for check_mode in (True, False):
        result = run_module(main, {"uri": TEST_URI, "xml": xml, **args}, check_mode=check_mode)
        assert result.get("failed") is True, result
        assert message in result["msg"], result["msg"]
    after = (conn.listAllNetworks(), conn.listAllStoragePools(), conn.storagePoolLookupByName("default-pool").listVolumes())
    assert [len(x) for x in after] == [len(x) for x in before]


def test_name_or_xml_is_required(run_module: Run) -> None:
    result = run_module(libvirt_network.main, {"uri": TEST_URI})
    assert result["failed"] is True
    assert "name, xml" in result["msg"]


INFO = {
    "network": (libvirt_network_info.main, {"name": ["unit-xml-net"]}, "networks"),
    "pool": (libvirt_pool_info.main, {"name": ["unit-xml-pool"]}, "pools"),
    "volume": (libvirt_volume_info.main, {"pool": ["default-pool"], "name": ["unit-xml.qcow2"]}, "volumes"),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_info_options_turn_xml_into_options(conn: t.Any, run_module: Run, kind: str) -> None:
    """What the migration guide says: an object made from XML, read back with the info
    module, is described by options that are no change."""
    main, extra, xml, _lookup = CASES[kind]
    info_main, info_args, key = INFO[kind]
    run_module(main, {"uri": TEST_URI, "xml": xml, **extra})
    options = run_module(info_main, {"uri": TEST_URI, **info_args})[key][0]["options"]
    again = run_module(main, {"uri": TEST_URI, **options})
    assert again["changed"] is False, again
    run_module(main, {"uri": TEST_URI, "xml": xml, "state": "absent", **extra})


@pytest.mark.parametrize(
    "xml",
    [
        '<!DOCTYPE domain [<!ENTITY e "x">]><domain type="qemu"><name>&e;</name><memory>1024</memory></domain>',
        '<!DOCTYPE domain SYSTEM "http://example.invalid/d.dtd"><domain type="qemu"><name>d</name></domain>',
    ],
)
def test_libvirt_domains_xml_takes_no_doctype_either(xml: str) -> None:
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain

    with pytest.raises(LibvirtValidationError, match=r"^xml: a DOCTYPE"):
        domain._desired({"xml": xml})


def test_parsed_xml_never_expands_an_entity() -> None:
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema

    root = schema.parse('<!DOCTYPE n [<!ENTITY e "EXPANDED">]><n>&e;</n>')
    assert "EXPANDED" not in (root.text or "")
