# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain_summary as ds
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
