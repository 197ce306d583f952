# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.modules import (
    libvirt_domain_interface_addresses_info,
    libvirt_node_device_info,
    libvirt_node_devices_info,
    libvirt_node_info,
)

TEST_URI = "test:///default"


@pytest.mark.parametrize("check_mode", [False, True])
def test_node_info(run_module: t.Callable[..., dict[str, t.Any]], check_mode: bool) -> None:
    result = run_module(libvirt_node_info.main, {"uri": TEST_URI}, check_mode=check_mode)
    assert result["changed"] is False
    assert result["id"] == "3163122404942841546"
    assert result["memory_total_kb"] == 3145728


def test_uri_from_environment(run_module: t.Callable[..., dict[str, t.Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIBVIRT_DEFAULT_URI", TEST_URI)
    assert run_module(libvirt_node_info.main, {})["cpu_model"] == "i686"


def test_node_devices(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    result = run_module(libvirt_node_devices_info.main, {"uri": TEST_URI, "capability": "system"})
    assert (result["devices"], result["capability"], result["changed"]) == (["computer"], "system", False)


def test_node_device_info(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    result = run_module(libvirt_node_device_info.main, {"uri": TEST_URI, "name": "scsi_host11"})
    assert (result["id"], result["parent"], result["capability"]["host"]) == ("scsi_host11", "scsi_host1", 11)


def test_domain_interface_addresses(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    result = run_module(libvirt_domain_interface_addresses_info.main, {"uri": TEST_URI, "domain": "test"})
    assert result["source"] == "any"
    assert result["interfaces"][0]["hwaddr"] == "aa:bb:cc:dd:ee:ff"


@pytest.mark.parametrize(
    ("main", "args", "message"),
    [
        (libvirt_node_device_info.main, {"name": "nope"}, "Failed to get device information: Unable to retrieve device nope: "),
        (libvirt_domain_interface_addresses_info.main, {"domain": "ghost"}, "Domain Not Found: Unable to find domain 'ghost'"),
        (libvirt_domain_interface_addresses_info.main, {"domain": "test", "source": "arp"}, "value of source must be one of: lease, agent, any"),
        (libvirt_node_device_info.main, {}, "missing required arguments: name"),
        (libvirt_node_info.main, {"uri": "bogus:///"}, "URI: bogus:/// Error: "),
        (libvirt_node_info.main, {"uri": ""}, "uri: must not be empty"),
    ],
)
def test_errors(run_module: t.Callable[..., dict[str, t.Any]], main: t.Callable[[], None], args: dict[str, t.Any], message: str) -> None:
    result = run_module(main, {"uri": TEST_URI, **args})
    assert result["failed"] is True
    assert message in result["msg"]
