# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The listing info modules' ``xml`` and ``inactive`` options on libvirt's test driver: the XML
only when asked for, the persistent definition with inactive, and secrets masked."""

from __future__ import annotations

import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import masked_xml
from ansible_collections.devinfra.providers.plugins.modules import (
    libvirt_domain_info,
    libvirt_network_info,
    libvirt_pool_info,
    libvirt_volume_info,
)

TEST_URI = "test:///default"
RunModule = t.Callable[..., dict[str, t.Any]]
PASSWORD = "DVTSECRETvnc0815"  # a test value the secrets scan looks for
MODULES = [
    (libvirt_domain_info.main, "domains", "<domain "),
    (libvirt_network_info.main, "networks", "<network"),
    (libvirt_pool_info.main, "pools", "<pool "),
    (libvirt_volume_info.main, "volumes", "<volume "),
]


@pytest.fixture(autouse=True, scope="module")
def conn() -> t.Iterator[t.Any]:
    """One connection for the whole module (the test driver forgets what it holds when its last
    connection closes), with a volume for the volume listing."""
    connection = libvirt.open(TEST_URI)
    pool = connection.storagePoolLookupByName("default-pool")
    volume = pool.createXML("<volume><name>xml-info.img</name><capacity>1048576</capacity></volume>", 0)
    yield connection
    volume.delete(0)
    connection.close()


@pytest.mark.parametrize(("main", "key", "root"), MODULES)
def test_xml_only_when_asked_for(run_module: RunModule, main: t.Callable[[], None], key: str, root: str) -> None:
    plain = run_module(main, {"uri": TEST_URI})
    assert plain[key] and all("xml" not in item for item in plain[key])
    for check_mode in (False, True):
        listed = run_module(main, {"uri": TEST_URI, "xml": True}, check_mode=check_mode)
        assert listed["changed"] is False and listed[key]
        for item in listed[key]:
            assert item["xml"].startswith(root) and f"<name>{item['name']}</name>" in item["xml"]
        # the rest of each item is as without xml
        assert [{k: v for k, v in item.items() if k != "xml"} for item in listed[key]] == plain[key]


@pytest.mark.parametrize(("main", "key"), [(libvirt_domain_info.main, "domains"), (libvirt_network_info.main, "networks")])
def test_inactive_alone_is_refused(run_module: RunModule, main: t.Callable[[], None], key: str) -> None:
    failed = run_module(main, {"uri": TEST_URI, "inactive": True})
    assert failed.get("failed") and "inactive: only with xml: true" in failed["msg"]


@pytest.mark.parametrize(("main", "option"), [(libvirt_pool_info.main, "inactive"), (libvirt_volume_info.main, "inactive")])
def test_pools_and_volumes_take_no_inactive(run_module: RunModule, main: t.Callable[[], None], option: str) -> None:
    failed = run_module(main, {"uri": TEST_URI, "xml": True, option: True})
    assert failed.get("failed") and "Unsupported parameters" in failed["msg"]


def test_domain_inactive_is_the_persistent_definition(run_module: RunModule, conn: t.Any) -> None:
    name = "xml-info-dom"
    xml = "<domain type='test'><name>{}</name><uuid>5d1c1f0e-6e55-4c8e-9a51-3f4be1d0a001</uuid><memory unit='MiB'>{}</memory><os><type>hvm</type></os></domain>"
    dom = conn.defineXML(xml.format(name, 128))
    try:
        dom.create()
        conn.defineXML(xml.format(name, 256))  # the next start's definition; the running one keeps 128 MiB
        args = {"uri": TEST_URI, "name": [name], "xml": True}
        live = run_module(libvirt_domain_info.main, args)["domains"][0]["xml"]
        persistent = run_module(libvirt_domain_info.main, {**args, "inactive": True})["domains"][0]["xml"]
        assert "<memory unit='KiB'>131072</memory>" in live and "id='" in live
        assert "<memory unit='KiB'>262144</memory>" in persistent and "id='" not in persistent
    finally:
        dom.destroy()
        dom.undefine()


def test_network_inactive_asks_for_the_persistent_definition(run_module: RunModule, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test driver keeps no separate network definition (it refuses the flag, and the one
    it has is the answer): the flag asked for is what is checked here."""
    flags: list[int] = []
    original = libvirt.virNetwork.XMLDesc

    def spy(self: t.Any, flag: int = 0) -> str:
        flags.append(flag)
        return str(original(self, flag))

    monkeypatch.setattr(libvirt.virNetwork, "XMLDesc", spy)
    args = {"uri": TEST_URI, "name": ["default"], "xml": True}
    assert "<name>default</name>" in run_module(libvirt_network_info.main, args)["networks"][0]["xml"]
    assert libvirt.VIR_NETWORK_XML_INACTIVE not in flags[-1:]  # the live one
    flags.clear()
    assert "<name>default</name>" in run_module(libvirt_network_info.main, {**args, "inactive": True})["networks"][0]["xml"]
    assert flags.count(libvirt.VIR_NETWORK_XML_INACTIVE) >= 2  # the options' read and the xml's


def test_a_graphics_password_never_shows(run_module: RunModule, conn: t.Any) -> None:
    name = "xml-info-vnc"
    dom = conn.defineXML(
        f"<domain type='test'><name>{name}</name><memory unit='MiB'>64</memory><os><type>hvm</type></os>"
        f"<devices><graphics type='vnc' port='-1' passwd='{PASSWORD}'/></devices></domain>"
    )
    try:
        assert PASSWORD in dom.XMLDesc(libvirt.VIR_DOMAIN_XML_SECURE)  # libvirt holds it
        for inactive in (False, True):
            result = run_module(libvirt_domain_info.main, {"uri": TEST_URI, "name": [name], "xml": True, "inactive": inactive})
            assert "<graphics type='vnc'" in result["domains"][0]["xml"]
            assert PASSWORD not in str(result)
    finally:
        dom.undefine()


def test_masked_xml() -> None:
    xml = (
        "<domain><devices><graphics type='spice' passwd='s3cret'/><graphics type='vnc' autoport='yes'/>"
        "<disk><source protocol='https' name='x'><cookies><cookie name='session'>c00kie</cookie></cookies></source></disk>"
        "<x xmlns:q='urn:q' q:password='pw'/></devices></domain>"
    )
    masked = masked_xml(xml)
    assert "s3cret" not in masked and "c00kie" not in masked and "'pw'" not in masked
    assert 'passwd="********"' in masked or "passwd='********'" in masked
    assert '<cookie name="session">********</cookie>' in masked
    assert 'autoport="yes"' in masked  # the rest as it was
    plain = "<network>\n  <name>n</name>\n</network>"
    assert masked_xml(plain) is plain  # nothing to mask: libvirt's text as it is
