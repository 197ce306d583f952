# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The libvirt_domain module as Ansible runs it (argument validation included), on
libvirt's test driver."""

from __future__ import annotations

import json
import typing as t

import pytest

libvirt = pytest.importorskip("libvirt")

from ansible_collections.devinfra.providers.plugins.modules import libvirt_domain

TEST_URI = "test:///default"


@pytest.fixture(autouse=True, scope="module")
def _test_driver_state() -> t.Iterator[None]:
    """The test driver forgets its domains when its last connection closes: keep one open."""
    connection = libvirt.open(TEST_URI)
    yield
    connection.close()


def _args(name: str, **extra: t.Any) -> dict[str, t.Any]:
    return {
        "uri": TEST_URI,
        "name": name,
        "type": "test",
        "memory": 256,
        "memory_unit": "MiB",
        "vcpu": 1,
        "os": {"type": "hvm", "kernel_args": "console=ttyS0"},
        "devices": {
            "serials": [{"source": {"pty": {}}, "target": {"port": 0}}],
            "interfaces": [{"source": {"network": {"network": "default"}}, "wait_for_ip": {"timeout": 5}}],
        },
        **extra,
    }


def test_define_start_again_and_remove(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    args = _args("mod-dom-1", running=True)
    checked = run_module(libvirt_domain.main, args, check_mode=True, diff=True)
    assert checked["changed"] and checked["diff"]["before"] == {}
    created = run_module(libvirt_domain.main, args)
    assert created["changed"] and created["domain"]["running"]
    assert created["domain"]["os"]["cmdline"] == "console=ttyS0"
    assert created["interfaces"][0]["addrs"][0]["addr"]  # the test driver's fake lease
    again = run_module(libvirt_domain.main, args, diff=True)
    assert not again["changed"], again
    assert again["diff"]["before"] == again["diff"]["after"]
    assert "wait_for_ip" not in again["diff"]["after"]["devices"]["interfaces"][0]
    removed = run_module(libvirt_domain.main, {"uri": TEST_URI, "name": "mod-dom-1", "state": "absent"})
    assert removed["changed"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"uri": TEST_URI}, "one of the following is required: name, uuid, xml"),
        (_args("mod-dom-2", on_crash="explode"), "value of on_crash must be one of: destroy, restart, preserve"),
        (
            _args("mod-dom-2", devices={"interfaces": [{"source": {"bridge": {}}}]}),
            "devices.interfaces[0].source.bridge.bridge: required, missing in devices.interfaces[0].source.bridge",
        ),
        (
            _args("mod-dom-2", devices={"interfaces": [{"wait_for_ip": {"source": "arp"}}]}),
            "devices.interfaces[0].wait_for_ip: value of source must be one of: lease, agent, any",
        ),
        (_args("mod-dom-2", devices={"disks": [{"sorce": {}}]}), "devices.disks[0].sorce: unsupported option; devices.disks[0] takes acpi, address,"),
        # a type error anywhere in the tree names the option and the form it takes
        (
            _args("mod-dom-2", devices={"disks": [{"source": "/var/lib/libvirt/images/a.qcow2"}]}),
            "devices.disks[0].source: expected a dictionary (one of file, block, dir, network, volume, nvme, vhost_user, vhost_vdpa), got a string",
        ),
        (_args("mod-dom-2", os={"boot_devices": [["hd"]]}), "os.boot_devices[0]: expected a dictionary (options dev), got a list"),
        (_args("mod-dom-2", devices={"graphics": [{"vnc": {"port": "first"}}]}), "devices.graphics[0].vnc.port: expected an integer, got a string ('first')"),
        (
            _args("mod-dom-2", devices={"interfaces": [{"type": "bridge", "source": {"network": {"network": "default"}}}]}),
            "devices.interfaces[0].type: 'bridge' contradicts source.network, which is type 'network'",
        ),
    ],
)
def test_bad_input(run_module: t.Callable[..., dict[str, t.Any]], args: dict[str, t.Any], message: str) -> None:
    result = run_module(libvirt_domain.main, args)
    assert result["failed"]
    assert message in result["msg"]


def test_graphics_passwords_are_secrets(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    refused = run_module(libvirt_domain.main, _args("mod-dom-3", devices={"disks": "x", "graphics": [{"vnc": {"passwd": "early-secret"}}]}))
    assert refused["failed"] and "early-secret" not in repr(refused)  # past the refused option, still no_log
    args = _args("mod-dom-3", devices={"graphics": [{"vnc": {"auto_port": True, "passwd": "first-secret"}}]})
    run_module(libvirt_domain.main, args)
    changed = run_module(libvirt_domain.main, {**args, "devices": {"graphics": [{"vnc": {"auto_port": True, "passwd": "second-secret"}}]}}, diff=True)
    assert changed["changed"]  # compared against the secure definition
    text = repr(changed)
    assert "first-secret" not in text and "second-secret" not in text
    assert changed["diff"]["before"]["devices"]["graphics"][0]["vnc"]["passwd"] == "********"
    again = run_module(libvirt_domain.main, {**args, "devices": {"graphics": [{"vnc": {"auto_port": True, "passwd": "second-secret"}}]}})
    assert not again["changed"]


def test_a_disk_on_a_qcow2_volume_is_written_as_qcow2(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    connection = libvirt.open(TEST_URI)
    connection.storagePoolLookupByName("default-pool").createXML(
        "<volume><name>mod-dom-4.qcow2</name><capacity>1048576</capacity><target><format type='qcow2'/></target>"
        "<backingStore><path>/srv/images/base.qcow2</path></backingStore></volume>",
        0,
    )
    connection.close()
    disk = {"source": {"volume": {"pool": "default-pool", "volume": "mod-dom-4.qcow2"}}, "target": {"dev": "vda", "bus": "virtio"}}
    args = _args("mod-dom-4", devices={"disks": [disk]})
    checked = run_module(libvirt_domain.main, args, check_mode=True, diff=True)
    assert checked["changed"]
    assert checked["diff"]["after"]["devices"]["disks"][0]["driver"] == {"type": "qcow2"}
    warning = "devices.disks[0]: volume default-pool/mod-dom-4.qcow2 has its backing file at /srv/images/base.qcow2, outside the target path"
    assert warning in json.dumps(checked["warnings"])
    created = run_module(libvirt_domain.main, args)
    assert created["changed"] and created["domain"]["devices"]["disks"][0]["driver"]["type"] == "qcow2"
    again = run_module(libvirt_domain.main, args, diff=True)
    assert not again["changed"] and again["diff"]["before"] == again["diff"]["after"]
    refused = run_module(libvirt_domain.main, _args("mod-dom-4", devices={"disks": [{**disk, "driver": {"type": "raw"}}]}))
    assert refused["failed"]
    assert refused["msg"].startswith(
        "devices.disks[0].driver.type: 'raw' contradicts the format of volume default-pool/mod-dom-4.qcow2, which libvirt reports as 'qcow2'"
    )
