# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import ipaddress
import typing as t
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain_summary as ds
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import guest_addresses as ga
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import connect, libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError, LibvirtValidationError

TEST_URI = "test:///default"
NS = ds.WORKSPACE_METADATA_NS

WORKSPACE_DOMAIN = f"""<domain type='test'>
  <name>dvt-summary-ws</name>
  <title>Jane's workspace</title>
  <description>two
lines</description>
  <memory unit='MiB'>512</memory>
  <currentMemory unit='MiB'>256</currentMemory>
  <vcpu current='1'>2</vcpu>
  <metadata>
    <other:thing xmlns:other="https://example.com/other"><other:owner>not this</other:owner></other:thing>
    <ws:workspace xmlns:ws="{NS}">
      <ws:owner>jane</ws:owner>
      <ws:name>dev</ws:name>
      <ws:agent><ws:name>main</ws:name><ws:arch>amd64</ws:arch></ws:agent>
      <ws:app>code</ws:app>
      <ws:app>term</ws:app>
    </ws:workspace>
  </metadata>
  <os><type>hvm</type></os>
  <devices><interface type='network'><source network='default'/></interface></devices>
</domain>"""


@pytest.fixture
def conn() -> t.Iterator[t.Any]:
    with connect(TEST_URI) as connection:
        yield connection


@pytest.fixture
def workspace_domain(conn: t.Any) -> t.Iterator[t.Any]:
    dom = conn.defineXML(WORKSPACE_DOMAIN)
    dom.setAutostart(1)
    try:
        yield dom
    finally:
        if dom.isActive():
            dom.destroy()
        dom.undefine()


def test_the_test_driver_domain(conn: t.Any) -> None:
    summary = ds.domain_summary(conn.lookupByName("test"), source="lease")
    assert summary == {
        "name": "test",
        "uuid": "6695eb01-f6a4-8304-79aa-97f2502e193f",
        "id": 1,
        "state": "running",
        "persistent": True,
        "autostart": False,
        "vcpu": 2,
        "vcpu_current": 2,
        "memory": 8388608,
        "current_memory": 2097152,
        "title": None,
        "description": None,
        "workspace": {},
        "interfaces": [{"name": "testnet0", "hwaddr": "aa:bb:cc:dd:ee:ff", "addrs": [{"type": "ipv4", "addr": "192.168.122.3", "prefix": 24}]}],
        "address": "192.168.122.3",
    }


def test_a_workspace_domain_shut_off_then_running(conn: t.Any, workspace_domain: t.Any) -> None:
    summary = ds.domain_summary(workspace_domain, source="any")
    assert summary["state"] == "shutoff"
    assert summary["id"] is None
    assert summary["autostart"] is True
    assert (summary["vcpu"], summary["vcpu_current"]) == (2, 1)
    assert (summary["memory"], summary["current_memory"]) == (524288, 262144)
    assert summary["title"] == "Jane's workspace"
    assert summary["description"] == "two\nlines"
    assert summary["workspace"] == {"owner": "jane", "name": "dev", "agent": {"name": "main", "arch": "amd64"}, "app": ["code", "term"]}
    # Addresses are only asked of active domains.
    assert summary["interfaces"] == []
    assert summary["address"] is None

    workspace_domain.create()
    summary = ds.domain_summary(workspace_domain, source="agent")
    assert summary["state"] == "running"
    assert summary["id"] > 0
    assert summary["interfaces"][0]["addrs"][0]["type"] == "ipv4"
    assert summary["address"] == summary["interfaces"][0]["addrs"][0]["addr"]
    assert ds.domain_summary(workspace_domain, source=None)["interfaces"] == []


def test_summaries_are_sorted_and_filtered(conn: t.Any, workspace_domain: t.Any) -> None:
    names = [s["name"] for s in ds.domain_summaries(conn, source=None)]
    assert names == sorted(names)
    assert {"test", "dvt-summary-ws"} <= set(names)
    only = ds.domain_summaries(conn, source=None, names=["dvt-*"], states=["shutoff"])
    assert [s["name"] for s in only] == ["dvt-summary-ws"]
    assert [s["name"] for s in ds.domain_summaries(conn, source=None, names=["test", "dvt-summary-ws"], states=["active"])] == ["test"]
    assert ds.domain_summaries(conn, source=None, states=["paused"]) == []


def test_a_domain_that_goes_away_is_left_out(conn: t.Any) -> None:
    class Vanishing:
        def name(self) -> str:
            return "gone"

        def state(self, _flags: int = 0) -> t.Any:
            error = libvirt.libvirtError("Domain not found")
            error.err = (42, 0, "Domain not found", 2, "", None, None, 0, 0)
            raise error

    class Conn:
        def listAllDomains(self, _flags: int) -> list[t.Any]:
            return [Vanishing(), conn.lookupByName("test")]

    assert [s["name"] for s in ds.domain_summaries(Conn(), source=None)] == ["test"]


def test_other_libvirt_errors_are_raised() -> None:
    class Conn:
        def listAllDomains(self, _flags: int) -> list[t.Any]:
            raise libvirt.libvirtError("connection lost")

    with pytest.raises(LibvirtError, match="^Unable to list the domains: connection lost"):
        ds.domain_summaries(Conn(), source=None)


def test_an_unknown_source_is_refused(conn: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match="^source: must be one of lease, agent, any"):
        ds.domain_summary(conn.lookupByName("test"), source="dhcp")


@pytest.mark.parametrize(
    ("addrs", "expected"),
    [
        ([], None),
        ([("lo", "127.0.0.1"), ("lo", "::1")], None),
        ([("lo", "127.0.0.1"), ("eth0", "fe80::1"), ("eth0", "2001:db8::5")], "2001:db8::5"),
        ([("eth0", "2001:db8::5"), ("eth0", "169.254.3.3"), ("eth1", "192.168.213.150")], "192.168.213.150"),
        ([("eth0", "10.0.0.2"), ("eth1", "192.168.213.150")], "10.0.0.2"),
        ([("eth0", "not an address"), ("eth0", "0.0.0.0"), ("eth0", "10.0.0.3")], "10.0.0.3"),
    ],
)
def test_primary_address(addrs: list[tuple[str, str]], expected: str | None) -> None:
    interfaces: list[dict[str, t.Any]] = []
    for name, addr in addrs:
        if not interfaces or interfaces[-1]["name"] != name:
            interfaces.append({"name": name, "hwaddr": None, "addrs": []})
        interfaces[-1]["addrs"].append({"type": "ipv6" if ":" in addr else "ipv4", "addr": addr, "prefix": 24})
    assert ds.primary_address(interfaces) == expected


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ("", {}),
        ("<metadata/>", {}),
        (f"<metadata><workspace xmlns='{NS}'>text only</workspace></metadata>", {}),
        (f"<metadata><workspace xmlns='{NS}'><owner> jane </owner><empty/></workspace></metadata>", {"owner": "jane", "empty": ""}),
        ("<metadata><workspace xmlns='https://example.com/x'><owner>jane</owner></workspace></metadata>", {}),
        (f"<metadata><w:workspace xmlns:w='{NS}'><w:a>1</w:a><w:a>2</w:a><w:a>3</w:a></w:workspace></metadata>", {"a": ["1", "2", "3"]}),
    ],
)
def test_parse_workspace_metadata(metadata: str, expected: dict[str, t.Any]) -> None:
    assert ds.parse_workspace_metadata(ET.fromstring(f"<domain>{metadata}</domain>")) == expected


# --- the address a guest is reached at: guests lie ----------------------------------------

ATTACHED_MAC = "52:54:00:00:00:01"
BRIDGED_MAC = "52:54:00:00:00:02"
HOST = ga.HostAddresses(
    subnets={"default": (ipaddress.ip_network("192.168.122.0/24"), ipaddress.ip_network("fd00:1::/64")), "isolated": ()},
    own=frozenset({ipaddress.ip_address("192.168.122.1"), ipaddress.ip_address("fd00:1::1"), ipaddress.ip_address("10.9.9.9")}),
)
ATTACHMENTS = {ATTACHED_MAC: "default", BRIDGED_MAC: None}


def _interfaces(*addrs: tuple[str, str] | tuple[str, str, int]) -> list[dict[str, t.Any]]:
    """Interfaces of (MAC, address[, prefix]) pairs, one interface per MAC in order."""
    interfaces: list[dict[str, t.Any]] = []
    for mac, addr, *prefix in addrs:
        if not interfaces or interfaces[-1]["hwaddr"] != mac:
            interfaces.append({"name": f"eth{len(interfaces)}", "hwaddr": mac, "addrs": []})
        interfaces[-1]["addrs"].append({"type": "ipv6" if ":" in addr else "ipv4", "addr": addr, "prefix": prefix[0] if prefix else 24})
    return interfaces


GOOD = (ATTACHED_MAC, "192.168.122.50")


@pytest.mark.parametrize(
    ("origin", "rule", "addrs", "expected"),
    [
        # Each hostile address alone gives no address; before a good one, the good one.
        *[
            case
            for hostile in [
                (ATTACHED_MAC, "::ffff:127.0.0.1"),  # IPv4-mapped loopback (older Pythons' is_loopback misses it)
                (ATTACHED_MAC, "::ffff:7f00:35"),  # the same, spelt otherwise: 127.0.0.53
                (ATTACHED_MAC, "::1"),
                (ATTACHED_MAC, "127.0.0.53"),
                (ATTACHED_MAC, "0.0.0.0"),
                (ATTACHED_MAC, "0.1.2.3"),  # "this network"
                (ATTACHED_MAC, "::"),
                (ATTACHED_MAC, "255.255.255.255"),
                (ATTACHED_MAC, "192.168.122.255"),  # the subnet's broadcast, as reported
                (ATTACHED_MAC, "192.168.122.255", 32),  # ... and as the libvirt network has it
                (ATTACHED_MAC, "192.168.122.0"),  # the subnet's network address
                (ATTACHED_MAC, "169.254.10.20"),
                (ATTACHED_MAC, "fe80::1"),
                (ATTACHED_MAC, "fe80::1%eth0"),
                (ATTACHED_MAC, "224.0.0.251"),
                (ATTACHED_MAC, "ff02::1"),
                (ATTACHED_MAC, "240.0.0.7"),  # reserved
                (ATTACHED_MAC, "192.168.122.1"),  # the bridge's own address
                (ATTACHED_MAC, "::ffff:192.168.122.1"),
                (ATTACHED_MAC, "fd00:1::1"),
                (ATTACHED_MAC, "not an address"),
            ]
            for origin in ("lease", "agent")
            for case in (
                pytest.param(origin, "attached_networks", [hostile], None, id=f"{origin}-{'/'.join(map(str, hostile[1:]))}-alone"),
                pytest.param(origin, "any", [hostile, GOOD], "192.168.122.50", id=f"{origin}-{'/'.join(map(str, hostile[1:]))}-then-good"),
            )
        ],
        pytest.param("agent", "any", [(BRIDGED_MAC, "10.9.9.9")], None, id="agent-a-host-interface-address"),
        # An agent address outside the subnets of the networks its interface is attached to.
        pytest.param("agent", "attached_networks", [(ATTACHED_MAC, "10.1.2.3")], None, id="agent-outside-the-subnet"),
        pytest.param("agent", "any", [(ATTACHED_MAC, "10.1.2.3")], "10.1.2.3", id="agent-outside-the-subnet-allowed"),
        pytest.param("lease", "attached_networks", [(ATTACHED_MAC, "10.1.2.3")], "10.1.2.3", id="lease-not-checked-against-subnets"),
        # An interface on a host bridge (no libvirt subnet) or of an unknown MAC: the agent is not believed.
        pytest.param("agent", "attached_networks", [(BRIDGED_MAC, "192.168.122.50")], None, id="agent-bridged-interface"),
        pytest.param("agent", "any", [(BRIDGED_MAC, "10.1.2.3")], "10.1.2.3", id="agent-bridged-interface-allowed"),
        pytest.param("agent", "attached_networks", [("52:54:00:00:00:99", "192.168.122.50")], None, id="agent-unknown-mac"),
        pytest.param("agent", "attached_networks", [(ATTACHED_MAC.upper(), "192.168.122.50")], "192.168.122.50", id="agent-mac-in-upper-case"),
        pytest.param("agent", "attached_networks", [(ATTACHED_MAC, "fd00:1::5", 64)], "fd00:1::5", id="agent-ipv6-in-the-subnet"),
        pytest.param("agent", "attached_networks", [(ATTACHED_MAC, "fd00:1::5", 64), GOOD], "192.168.122.50", id="ipv4-first"),
        pytest.param("agent", "attached_networks", [(ATTACHED_MAC, "192.168.122.49"), GOOD], "192.168.122.49", id="the-first-usable"),
    ],
)
def test_choose_address(origin: str, rule: str, addrs: list[t.Any], expected: str | None) -> None:
    assert ga.choose_address(_interfaces(*addrs), origin=origin, host=HOST, attachments=ATTACHMENTS, agent_addresses=rule) == expected


@pytest.mark.parametrize(
    ("addr", "prefix", "why"),
    [
        ("::ffff:127.0.0.1", None, "loopback"),
        ("::ffff:7f00:35", 128, "loopback"),
        ("127.0.0.53", 8, "loopback"),
        ("255.255.255.255", None, "broadcast"),
        ("255.255.255.255", 32, "broadcast"),
        ("192.168.122.1", 24, "an address of the hypervisor itself"),
        ("::ffff:192.168.122.1", None, "an address of the hypervisor itself"),
        ("fd00:1::1", 64, "an address of the hypervisor itself"),
        ("0.0.0.0", None, "unspecified"),
        ("169.254.10.20", 16, "link-local"),
        ("224.0.0.251", 32, "multicast"),
        ("240.0.0.7", 32, "reserved"),
        ("192.168.122.50", 24, None),
    ],
)
def test_each_kind_of_address_is_dropped_by_its_own_rule(addr: str, prefix: int | None, why: str | None) -> None:
    """The rules overlap: Python's is_reserved takes in every IPv4-mapped address and
    255.255.255.255, and an address reported with its prefix is its subnet's broadcast. The
    cases above would still pass with the mapped-loopback or the broadcast rule gone; the reason
    given here pins each rule on its own."""
    assert ga.address_problem(addr, prefix, host=HOST) == why


def test_host_addresses_of_the_test_driver(conn: t.Any) -> None:
    host = ga.host_addresses(conn)
    assert host.subnets == {"default": (ipaddress.ip_network("192.168.122.0/24"),)}
    # The network's bridge address, and the host interface libvirt lists (eth1 of the test driver).
    assert host.own == {ipaddress.ip_address("192.168.122.1"), ipaddress.ip_address("192.168.0.5")}


def test_domain_attachments() -> None:
    root = ET.fromstring(
        "<domain><devices>"
        "<interface type='network'><mac address='52:54:00:AA:00:01'/><source network='default'/></interface>"
        "<interface type='bridge'><mac address='52:54:00:aa:00:02'/><source bridge='br0'/></interface>"
        "<interface type='network'><source network='nomac'/></interface>"
        "</devices></domain>"
    )
    assert ga.domain_attachments(root) == {"52:54:00:aa:00:01": "default", "52:54:00:aa:00:02": None}


class _Lying:
    """The test driver's domain "test", with the answers of each address source replaced."""

    def __init__(self, dom: t.Any, answers: dict[int, dict[str, t.Any]]) -> None:
        self._dom = dom
        self._answers = answers
        self.asked: list[int] = []

    def __getattr__(self, name: str) -> t.Any:
        return getattr(self._dom, name)

    def interfaceAddresses(self, source: int, _flags: int = 0) -> dict[str, t.Any]:
        self.asked.append(source)
        return self._answers.get(source, {})


def _answer(*addrs: str) -> dict[str, t.Any]:
    return {"eth0": {"hwaddr": "aa:bb:cc:dd:ee:ff", "addrs": [{"type": 1 if ":" in a else 0, "addr": a, "prefix": 24} for a in addrs]}}


LEASE, AGENT = 0, 1


@pytest.mark.parametrize(
    ("source", "lease", "agent", "address", "asked"),
    [
        pytest.param("any", ["192.168.122.10"], ["192.168.122.20"], "192.168.122.10", [LEASE], id="lease-and-agent-the-lease-wins"),
        pytest.param("any", ["127.0.0.1"], ["192.168.122.20"], "192.168.122.20", [LEASE, AGENT], id="unusable-lease-then-agent"),
        pytest.param("any", [], ["::ffff:127.0.0.1", "192.168.122.1", "255.255.255.255"], None, [LEASE, AGENT], id="agent-only-hostile"),
        pytest.param("agent", [], ["10.20.30.40"], None, [AGENT], id="agent-outside-the-attached-network"),
        pytest.param("agent", [], ["192.168.122.20"], "192.168.122.20", [AGENT], id="agent-in-the-attached-network"),
        pytest.param("lease", ["192.168.122.1"], [], None, [LEASE], id="lease-of-the-bridge-address"),
    ],
)
def test_the_summary_address_by_source(conn: t.Any, source: str, lease: list[str], agent: list[str], address: str | None, asked: list[int]) -> None:
    dom = _Lying(conn.lookupByName("test"), {LEASE: _answer(*lease), AGENT: _answer(*agent)})
    summary = ds.domain_summary(dom, source=source)
    assert summary["address"] == address
    assert dom.asked == asked
    if address is not None:
        assert address in [a["addr"] for iface in summary["interfaces"] for a in iface["addrs"]]


def test_an_unknown_agent_rule_is_refused(conn: t.Any) -> None:
    with pytest.raises(LibvirtValidationError, match="^agent_addresses: must be one of attached_networks, any"):
        ds.domain_summary(conn.lookupByName("test"), source="agent", agent_addresses="all")
