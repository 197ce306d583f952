# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest
from ansible.errors import AnsibleLookupError
from ansible.plugins.loader import lookup_loader

TEST_URI = "test:///default"


def lookup(name: str, *terms: t.Any, variables: dict[str, t.Any] | None = None, **kwargs: t.Any) -> list[t.Any]:
    plugin = lookup_loader.get(f"devinfra.providers.{name}")
    assert plugin is not None, name
    result: list[t.Any] = plugin.run(list(terms), variables=variables or {}, **kwargs)
    return result


def test_node_info() -> None:
    (result,) = lookup("libvirt_node_info", uri=TEST_URI)
    assert result["id"] == "3163122404942841546"
    assert result["memory_total_kb"] == 3145728


def test_uri_from_variables_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    (result,) = lookup("libvirt_node_info", variables={"devinfra_libvirt_uri": TEST_URI})
    assert result["cpu_model"] == "i686"
    monkeypatch.setenv("LIBVIRT_DEFAULT_URI", TEST_URI)
    (result,) = lookup("libvirt_node_info")
    assert result["cpu_model"] == "i686"


def test_node_devices_term_or_option() -> None:
    by_term = lookup("libvirt_node_devices", "scsi_host", uri=TEST_URI)
    by_option = lookup("libvirt_node_devices", uri=TEST_URI, capability="scsi_host")
    assert by_term == by_option
    assert by_term[0]["devices"] == ["scsi_host1", "scsi_host11", "scsi_host2"]
    assert lookup("libvirt_node_devices", uri=TEST_URI)[0]["capability"] is None


def test_node_device_info() -> None:
    (result,) = lookup("libvirt_node_device_info", "computer", uri=TEST_URI)
    assert result["capability"]["type"] == "system"


def test_domain_interface_addresses() -> None:
    (result,) = lookup("libvirt_domain_interface_addresses", "test", uri=TEST_URI, source="lease")
    assert result["interfaces"][0]["addrs"] == [{"type": "ipv4", "addr": "192.168.122.3", "prefix": 24}]


@pytest.mark.parametrize(
    ("name", "terms", "kwargs", "message"),
    [
        ("libvirt_node_device_info", (), {}, "missing required option: name"),
        ("libvirt_domain_interface_addresses", (), {}, "missing required option: domain"),
        ("libvirt_node_info", ("x",), {}, "takes no terms, got 1"),
        ("libvirt_node_devices", ("a", "b"), {}, "takes at most one term (the capability), got 2"),
        ("libvirt_node_device_info", ("nope",), {}, "Unable to retrieve device nope: "),
        ("libvirt_domain_interface_addresses", ("ghost",), {}, "Unable to find domain 'ghost'"),
        ("libvirt_node_info", (), {"uri": "bogus:///"}, "URI: bogus:/// Error: "),
        ("libvirt_node_info", (), {"uri": ""}, "uri: must not be empty"),
    ],
)
def test_errors(name: str, terms: tuple[t.Any, ...], kwargs: dict[str, t.Any], message: str) -> None:
    with pytest.raises(AnsibleLookupError) as err:
        lookup(name, *terms, **{"uri": TEST_URI, **kwargs})
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("terms", "kwargs", "env", "expected"),
    [
        (("libvirt",), {}, {}, {"uri": "qemu:///system"}),
        (("libvirt",), {}, {"LIBVIRT_DEFAULT_URI": ""}, {"uri": "qemu:///system"}),
        (("libvirt",), {}, {"LIBVIRT_DEFAULT_URI": "test:///default"}, {"uri": "test:///default"}),
        ((), {"provider": "libvirt", "uri": "qemu:///session"}, {}, {"uri": "qemu:///session"}),
        (("workspace",), {}, {}, {"url": "https://mydeployment.coder.com"}),
        (("workspace",), {}, {"CODER_AGENT_URL": ""}, {"url": "https://mydeployment.coder.com"}),
        (("workspace",), {}, {"CODER_AGENT_URL": "https://coder.example.com"}, {"url": "https://coder.example.com"}),
        ((), {"provider": "workspace", "url": "http://localhost:3000"}, {"CODER_AGENT_URL": "https://x"}, {"url": "http://localhost:3000"}),
    ],
)
def test_provider_config(
    monkeypatch: pytest.MonkeyPatch, terms: tuple[str, ...], kwargs: dict[str, t.Any], env: dict[str, str], expected: dict[str, str]
) -> None:
    monkeypatch.delenv("LIBVIRT_DEFAULT_URI", raising=False)
    monkeypatch.delenv("CODER_AGENT_URL", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert lookup("provider_config", *terms, **kwargs) == [expected]


@pytest.mark.parametrize(
    ("terms", "kwargs", "message"),
    [
        (("workspace",), {"url": ""}, 'CODER_AGENT_URL must not be empty; got ""'),
        (("workspace",), {"url": "http://x:y"}, 'url: parse "http://x:y": invalid port ":y" after host'),
        (("libvirt",), {"uri": ""}, "uri: must not be empty"),
        ((), {}, "missing required option: provider"),
        (("nope",), {}, "nope"),
    ],
)
def test_provider_config_errors(terms: tuple[str, ...], kwargs: dict[str, t.Any], message: str) -> None:
    with pytest.raises(Exception) as err:
        lookup("provider_config", *terms, **kwargs)
    assert message in str(err.value)
