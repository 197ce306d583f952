# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import typing as t
from unittest import mock

import pytest
from ansible.errors import AnsibleError, AnsibleParserError
from ansible.inventory.data import InventoryData
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import inventory_loader

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import printable
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import inventory_safety
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import connect, libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_summary import WORKSPACE_METADATA_NS

TEST_URI = "test:///default"
# The test driver: every test:///default connection of a process shares one host, on which
# the domain "test" runs. A second URI of the same driver reaches the same host, with other
# hypervisor names and URIs: enough for the several-hypervisors cases.
SECRET = "DVTSECRET-inventory-uri-password"
SECRET_URI = f"test://jane:{SECRET}@/default"

WORKSPACE_DOMAIN = f"""<domain type='test'>
  <name>dvt-inv-ws</name>
  <title>Jane's workspace</title>
  <description>{{{{ lookup('ansible.builtin.env', 'HOME') }}}}</description>
  <memory unit='MiB'>512</memory>
  <vcpu>2</vcpu>
  <metadata>
    <ws:workspace xmlns:ws="{WORKSPACE_METADATA_NS}">
      <ws:owner>jane</ws:owner>
      <ws:name>dev</ws:name>
      <ws:agent><ws:name>main</ws:name></ws:agent>
    </ws:workspace>
  </metadata>
  <os><type>hvm</type></os>
  <devices><interface type='network'><source network='default'/></interface></devices>
</domain>"""

STOPPED_DOMAIN = "<domain type='test'><name>dvt-inv-off</name><memory>65536</memory><os><type>hvm</type></os></domain>"


@pytest.fixture
def domains() -> t.Iterator[None]:
    """Two more domains on the test host: a running workspace with metadata, and one shut off."""
    with connect(TEST_URI) as conn:
        made = [conn.defineXML(WORKSPACE_DOMAIN), conn.defineXML(STOPPED_DOMAIN)]
        made[0].setAutostart(1)
        made[0].create()
        try:
            yield
        finally:
            for dom in made:
                if dom.isActive():
                    dom.destroy()
                dom.undefine()


class Parsed(t.NamedTuple):
    inventory: InventoryData
    plugin: t.Any
    warnings: list[str]

    def hostvars(self, host: str) -> dict[str, t.Any]:
        return dict(self.inventory.get_host(host).get_vars())

    def group(self, name: str) -> list[str]:
        return sorted(host.name for host in self.inventory.groups[name].get_hosts())

    def everything(self) -> str:
        """Every host, group and variable, as text."""
        return json.dumps(
            {
                "groups": sorted(self.inventory.groups),
                "hosts": {name: self.hostvars(name) for name in self.inventory.hosts},
            },
            default=str,
        )


@pytest.fixture
def parse(tmp_path: pathlib.Path) -> t.Callable[..., Parsed]:
    def run(config: dict[str, t.Any], *, cache: bool = True, file_name: str = "hosts.libvirt.yml", inventory: InventoryData | None = None) -> Parsed:
        path = tmp_path / file_name
        path.write_text(json.dumps({"plugin": "devinfra.providers.libvirt", **config}))  # JSON is YAML
        plugin = inventory_loader.get("devinfra.providers.libvirt")
        assert plugin is not None
        assert plugin.verify_file(str(path))
        plugin.display = mock.Mock()
        inventory = inventory if inventory is not None else InventoryData()
        plugin.parse(inventory, DataLoader(), str(path), cache=cache)
        with contextlib.suppress(AttributeError):  # as the inventory manager does after parse()
            plugin.update_cache_if_changed()  # (no cache plugin without the cache option)
        warnings = [call.args[0] for call in plugin.display.warning.call_args_list]
        return Parsed(inventory, plugin, warnings)

    return run


def test_the_test_driver_domain(parse: t.Callable[..., Parsed]) -> None:
    parsed = parse({"uris": [TEST_URI]})
    assert sorted(parsed.inventory.hosts) == ["test"]
    hostvars = parsed.hostvars("test")
    assert {k: v for k, v in hostvars.items() if k.startswith(("libvirt_", "ansible_host"))} == {
        "ansible_host": "192.168.122.3",
        "libvirt_name": "test",
        "libvirt_uuid": "6695eb01-f6a4-8304-79aa-97f2502e193f",
        "libvirt_id": 1,
        "libvirt_state": "running",
        "libvirt_persistent": True,
        "libvirt_autostart": False,
        "libvirt_vcpu": 2,
        "libvirt_vcpu_current": 2,
        "libvirt_memory": 8388608,
        "libvirt_current_memory": 2097152,
        "libvirt_title": None,
        "libvirt_description": None,
        "libvirt_workspace": {},
        "libvirt_interfaces": [{"name": "testnet0", "hwaddr": "aa:bb:cc:dd:ee:ff", "addrs": [{"type": "ipv4", "addr": "192.168.122.3", "prefix": 24}]}],
        "libvirt_uri": TEST_URI,
        "libvirt_hypervisor": "test_default",
        "libvirt_hypervisor_host": None,
    }
    assert parsed.group("hypervisor_test_default") == ["test"]
    assert parsed.group("state_running") == ["test"]
    assert parsed.warnings == []


@pytest.mark.usefixtures("domains")
def test_workspace_metadata_states_and_groups(parse: t.Callable[..., Parsed]) -> None:
    parsed = parse({"uris": [{"uri": TEST_URI, "name": "kvm-1"}]})
    assert sorted(parsed.inventory.hosts) == ["dvt-inv-off", "dvt-inv-ws", "test"]
    ws = parsed.hostvars("dvt-inv-ws")
    assert ws["libvirt_workspace"] == {"owner": "jane", "name": "dev", "agent": {"name": "main"}}
    assert ws["libvirt_title"] == "Jane's workspace"
    assert ws["libvirt_autostart"] is True
    assert ws["libvirt_memory"] == 524288
    assert ws["ansible_host"].startswith("192.168.122.")
    off = parsed.hostvars("dvt-inv-off")
    assert off["libvirt_state"] == "shutoff"
    assert off["libvirt_id"] is None
    assert off["libvirt_interfaces"] == []
    assert "ansible_host" not in off
    assert parsed.group("hypervisor_kvm_1") == ["dvt-inv-off", "dvt-inv-ws", "test"]
    assert parsed.group("state_running") == ["dvt-inv-ws", "test"]
    assert parsed.group("state_shutoff") == ["dvt-inv-off"]


@pytest.mark.usefixtures("domains")
@pytest.mark.parametrize(
    ("filters", "hosts"),
    [
        ({"states": ["running"]}, ["dvt-inv-ws", "test"]),
        ({"states": ["shutoff", "paused"]}, ["dvt-inv-off"]),
        ({"names": ["dvt-inv-*"]}, ["dvt-inv-off", "dvt-inv-ws"]),
        ({"names": ["dvt-inv-[xy]?", "te?t"]}, ["test"]),
        ({"names": ["dvt-*"], "states": ["running"]}, ["dvt-inv-ws"]),
        ({"names": ["nothing"]}, []),
        ({"states": ["active"]}, ["dvt-inv-ws", "test"]),
        ({"states": ["inactive"], "names": ["dvt-inv-off", "test"]}, ["dvt-inv-off"]),
    ],
)
def test_filters(parse: t.Callable[..., Parsed], filters: dict[str, t.Any], hosts: list[str]) -> None:
    assert sorted(parse({"uris": [TEST_URI], **filters}).inventory.hosts) == hosts


@pytest.mark.usefixtures("domains")
def test_constructed_compose_groups_keyed_groups(parse: t.Callable[..., Parsed]) -> None:
    parsed = parse(
        {
            "uris": [TEST_URI],
            "compose": {
                "memory_mib": "libvirt_memory // 1024",
                "ansible_user": "libvirt_workspace.owner | default('root')",
                # A value from libvirt is data, never a template: the description stays as it is.
                "description_copy": "libvirt_description",
            },
            "groups": {"autostarted": "libvirt_autostart", "big": "libvirt_memory > 1048576"},
            "keyed_groups": [
                {"key": "libvirt_state", "prefix": "st"},
                {"key": "libvirt_workspace.owner", "prefix": "owner", "default_value": "nobody"},
                {"key": "libvirt_hypervisor", "separator": "", "prefix": "on_"},
            ],
        }
    )
    ws = parsed.hostvars("dvt-inv-ws")
    assert ws["memory_mib"] == 512
    assert ws["ansible_user"] == "jane"
    assert ws["description_copy"] == "{{ lookup('ansible.builtin.env', 'HOME') }}"
    assert parsed.hostvars("test")["ansible_user"] == "root"
    assert parsed.group("autostarted") == ["dvt-inv-ws"]
    assert parsed.group("big") == ["test"]
    assert parsed.group("st_running") == ["dvt-inv-ws", "test"]
    assert parsed.group("st_shutoff") == ["dvt-inv-off"]
    assert parsed.group("owner_jane") == ["dvt-inv-ws"]
    assert parsed.group("on_test_default") == ["dvt-inv-off", "dvt-inv-ws", "test"]
    # libvirt_workspace.owner is undefined on the others: no group, no error (strict is off).
    assert "owner_nobody" not in parsed.inventory.groups


def test_strict_fails_on_an_undefined_variable(parse: t.Callable[..., Parsed]) -> None:
    config = {"uris": [TEST_URI], "compose": {"x": "libvirt_no_such_variable + 1"}}
    assert "x" not in parse(config).hostvars("test")
    with pytest.raises(AnsibleError, match="Could not set x for host test"):
        parse({**config, "strict": True})


def test_cache(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    cache_dir = tmp_path / "cache"
    config = {
        "uris": [TEST_URI, {"uri": SECRET_URI, "name": "jane"}],
        "duplicate_names": "suffix",
        "cache": True,
        "cache_plugin": "ansible.builtin.jsonfile",
        "cache_connection": str(cache_dir),
    }
    first = parse(config)
    assert sorted(first.inventory.hosts) == ["test.jane", "test.test_default"]
    (cache_file,) = cache_dir.iterdir()
    assert SECRET not in cache_file.read_text()
    assert "test://jane:********@/default" in cache_file.read_text()

    with connect(TEST_URI) as conn:
        dom = conn.defineXML(STOPPED_DOMAIN)
        try:
            # From the cache: the new domain is not there yet, and libvirt is not asked.
            with mock.patch("ansible_collections.devinfra.providers.plugins.inventory.libvirt.connect") as connect_mock:
                cached = parse(config)
            connect_mock.assert_not_called()
            assert cached.everything() == first.everything()
            # cache=False (ansible-inventory --flush-cache, meta: refresh_inventory) reads libvirt and updates the cache.
            fresh = parse(config, cache=False)
            assert "dvt-inv-off.test_default" in fresh.inventory.hosts
            assert "dvt-inv-off" in cache_file.read_text()
            assert fresh.everything() == parse(config).everything()
        finally:
            dom.undefine()


def test_a_run_with_a_skipped_hypervisor_is_not_cached(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    cache_dir = tmp_path / "cache"
    config = {
        "uris": [TEST_URI, "bogus:///"],
        "skip_unreachable": True,
        "cache": True,
        "cache_plugin": "ansible.builtin.jsonfile",
        "cache_connection": str(cache_dir),
    }
    parsed = parse(config)
    assert sorted(parsed.inventory.hosts) == ["test"]
    assert "hypervisor_bogus" in parsed.inventory.groups
    assert parsed.group("hypervisor_bogus") == []
    (warning,) = parsed.warnings
    assert warning.startswith("devinfra.providers.libvirt: hypervisor bogus (bogus:///): Unable to Connect to Libvirt")
    assert warning.endswith("its domains are left out (skip_unreachable)")
    assert not cache_dir.exists() or not list(cache_dir.iterdir())


def test_an_unreachable_hypervisor_fails_the_source(parse: t.Callable[..., Parsed]) -> None:
    with pytest.raises(AnsibleParserError, match=r"hypervisor bogus \(bogus:///\): Unable to Connect to Libvirt.*URI: bogus:/// Error: "):
        parse({"uris": [TEST_URI, "bogus:///"]})


def test_a_password_in_a_uri_is_never_shown(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    parsed = parse({"uris": [{"uri": SECRET_URI, "name": "jane"}]})
    assert parsed.hostvars("test")["libvirt_uri"] == "test://jane:********@/default"
    assert SECRET not in parsed.everything()
    # A URI that cannot be opened: neither the error nor the warning shows the password.
    bad_uri = f"bogus://jane:{SECRET}@/x"
    with pytest.raises(AnsibleParserError) as err:
        parse({"uris": [bad_uri]})
    assert SECRET not in str(err.value)
    assert "bogus://jane:********@/x" in str(err.value)
    assert err.value.__cause__ is None
    skipped = parse({"uris": [bad_uri], "skip_unreachable": True})
    assert skipped.warnings
    assert all(SECRET not in warning for warning in skipped.warnings)
    assert SECRET not in skipped.everything()
    # The default name of a hypervisor leaves the user and password out.
    assert "hypervisor_bogus_x" in skipped.inventory.groups


def test_duplicate_names_fail_by_default(parse: t.Callable[..., Parsed]) -> None:
    with pytest.raises(AnsibleParserError) as err:
        parse({"uris": [TEST_URI, {"uri": SECRET_URI, "name": "other"}]})
    message = str(err.value)
    assert "the domain name 'test' is on more than one hypervisor: test_default (test:///default), other (test://jane:********@/default)" in message
    assert "(the same UUID: one hypervisor reached through two URIs?)" in message
    assert "duplicate_names: suffix" in message
    assert SECRET not in message


@pytest.mark.usefixtures("domains")
def test_duplicate_names_suffix(parse: t.Callable[..., Parsed]) -> None:
    parsed = parse(
        {
            "uris": [{"uri": TEST_URI, "name": "a"}, {"uri": SECRET_URI, "name": "b"}],
            "names": ["test", "dvt-inv-ws"],
            "duplicate_names": "suffix",
        }
    )
    assert sorted(parsed.inventory.hosts) == ["dvt-inv-ws.a", "dvt-inv-ws.b", "test.a", "test.b"]
    assert parsed.group("hypervisor_a") == ["dvt-inv-ws.a", "test.a"]
    assert parsed.hostvars("test.b")["libvirt_name"] == "test"
    assert parsed.hostvars("test.b")["libvirt_hypervisor"] == "b"


@pytest.fixture
def other_host(tmp_path: pathlib.Path) -> str:
    """A second test host (its own domains and UUIDs): the test driver reads it from a file."""
    node = tmp_path / "node.xml"
    node.write_text(
        "<node>"
        "<domain type='test'><name>test</name><memory>65536</memory><os><type>hvm</type></os></domain>"
        "<domain type='test'><name>test.a</name><memory>65536</memory><os><type>hvm</type></os></domain>"
        "</node>"
    )
    return f"test://{node}"


def test_duplicate_names_on_two_hosts(parse: t.Callable[..., Parsed], other_host: str) -> None:
    uris = [{"uri": TEST_URI, "name": "a"}, {"uri": other_host, "name": "b"}]
    with pytest.raises(AnsibleParserError) as err:
        parse({"uris": uris})
    assert f"the domain name 'test' is on more than one hypervisor: a (test:///default), b ({other_host}); set duplicate_names" in str(err.value)
    # A suffixed name that is another domain's name: an error, never one host for two domains.
    with pytest.raises(AnsibleParserError, match="the host name 'test.a' is given to two domains"):
        parse({"uris": uris, "duplicate_names": "suffix"})
    parsed = parse({"uris": uris, "duplicate_names": "suffix", "names": ["test"]})
    assert sorted(parsed.inventory.hosts) == ["test.a", "test.b"]
    assert parsed.hostvars("test.a")["libvirt_uuid"] != parsed.hostvars("test.b")["libvirt_uuid"]
    assert parsed.group("hypervisor_b") == ["test.b"]


def test_default_uri(parse: t.Callable[..., Parsed], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIBVIRT_DEFAULT_URI", TEST_URI)
    parsed = parse({})
    assert parsed.hostvars("test")["libvirt_uri"] == TEST_URI


@pytest.mark.parametrize(
    ("source", "read_only"),
    [("lease", True), ("agent", False), ("any", False)],
)
def test_lease_only_needs_a_read_only_connection(parse: t.Callable[..., Parsed], source: str, read_only: bool) -> None:
    module = "ansible_collections.devinfra.providers.plugins.inventory.libvirt"
    with mock.patch(f"{module}.connect", wraps=connect) as connect_mock:
        parsed = parse({"uris": [TEST_URI], "source": source})
    connect_mock.assert_called_once_with(TEST_URI, read_only=read_only)
    assert parsed.hostvars("test")["ansible_host"] == "192.168.122.3"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"uris": []}, "uris: must be a non-empty list"),
        ({"uris": [""]}, r"uris\[0\]: must be a non-empty libvirt URI"),
        ({"uris": [TEST_URI, 5]}, r"uris\[1\]: must be a non-empty libvirt URI"),
        ({"uris": [{"name": "x"}]}, r"uris\[0\]\.uri: must be a non-empty libvirt URI"),
        ({"uris": [{"uri": TEST_URI, "nmae": "x"}]}, r"uris\[0\]: unknown key\(s\) nmae \(known: uri, name\)"),
        ({"uris": [{"uri": TEST_URI, "name": "--"}]}, r"uris\[0\]\.name: must be a string with a letter or a digit"),
        ({"uris": [{"uri": TEST_URI, "name": "a\nb"}]}, r"uris\[0\]\.name: contains (a|the) control character"),
        ({"uris": ["test:///default\n"]}, r"uris\[0\]\.*: contains (a|the) control character"),
        ({"uris": [TEST_URI, TEST_URI]}, r"uris\[1\]: the same URI as uris\[0\] \(test:///default\)"),
        ({"uris": [TEST_URI, {"uri": SECRET_URI, "name": "test default"}]}, r"uris\[1\]: the same hypervisor name as uris\[0\] \(test_default\)"),
        ({"uris": [TEST_URI], "states": ["up"]}, r"Invalid value \['up'\] for config 'states'"),
        ({"uris": [TEST_URI], "names": ["ok", "ws-\n"]}, r"names\[1\]: contains (a|the) control character"),
        ({"uris": [TEST_URI], "source": "dhcp"}, "source"),
        ({"uris": [TEST_URI], "duplicate_names": "merge"}, "duplicate_names"),
    ],
)
def test_bad_options(parse: t.Callable[..., Parsed], config: dict[str, t.Any], message: str) -> None:
    with mock.patch("ansible_collections.devinfra.providers.plugins.inventory.libvirt.connect") as connect_mock, pytest.raises(AnsibleError, match=message):
        parse(config)
    connect_mock.assert_not_called()


@pytest.mark.parametrize(
    ("file_name", "wanted"),
    [("hosts.libvirt.yml", True), ("hosts.libvirt.yaml", True), ("hosts.yml", False), ("libvirt.yml", False), ("hosts.libvirt.json", False)],
)
def test_verify_file(tmp_path: pathlib.Path, file_name: str, wanted: bool) -> None:
    path = tmp_path / file_name
    path.write_text("plugin: devinfra.providers.libvirt\n")
    plugin = inventory_loader.get("devinfra.providers.libvirt")
    assert plugin.verify_file(str(path)) is wanted


@pytest.mark.parametrize(
    ("uri", "masked", "name"),
    [
        ("qemu:///system", "qemu:///system", "qemu_system"),
        ("qemu+ssh://root@kvm1.example.com/system", "qemu+ssh://root@kvm1.example.com/system", "qemu_ssh_kvm1_example_com_system"),
        ("qemu+tcp://u:pw@kvm2:16509/system?x=1", "qemu+tcp://u:********@kvm2:16509/system?x=1", "qemu_tcp_kvm2_16509_system"),
        ("test:///default", "test:///default", "test_default"),
        ("xen://[::1]/", "xen://[::1]/", "xen_1"),
    ],
)
def test_uri_masks_and_default_names(uri: str, masked: str, name: str) -> None:
    from ansible_collections.devinfra.providers.plugins.inventory import libvirt as plugin_module

    assert plugin_module.mask_uri(uri) == masked
    assert plugin_module.default_name(uri) == name


# --- hostile domain names ------------------------------------------------------------------

MODULE = "ansible_collections.devinfra.providers.plugins.inventory.libvirt"


def _domain_xml(name: str, *, description: str = "", owner: str | None = None) -> str:
    metadata = f"<metadata><ws:workspace xmlns:ws='{WORKSPACE_METADATA_NS}'><ws:owner>{owner}</ws:owner></ws:workspace></metadata>" if owner else ""
    return f"<domain type='test'><name>{name}</name><description>{description}</description>{metadata}<memory>65536</memory><os><type>hvm</type></os></domain>"


@contextlib.contextmanager
def defined(*xmls: str) -> t.Iterator[None]:
    with connect(TEST_URI) as conn:
        made = [conn.defineXML(xml) for xml in xmls]
        try:
            yield
        finally:
            for dom in made:
                dom.undefine()


@pytest.mark.parametrize(
    "name",
    [
        "all",
        "ungrouped",
        "localhost",
        "LOCALHOST",
        "localhost.localdomain",
        "ip6-localhost",
        "evil.localhost",
        "127.0.0.1",
        "127.1",
        "2130706433",
        "::1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
        "state_running",
        "state_shutoff",
        "hypervisor_test_default",
        "hypervisor_other",
        "web*",
        "!test",
        "evil\u202egnp.exe",
    ],
)
def test_a_domain_with_a_reserved_name_is_left_out(parse: t.Callable[..., Parsed], name: str) -> None:
    with defined(_domain_xml(name)):
        parsed = parse({"uris": [TEST_URI]})
    assert sorted(parsed.inventory.hosts) == ["test"]
    assert parsed.group("hypervisor_test_default") == ["test"]
    assert parsed.group("state_running") == ["test"]
    assert parsed.inventory.localhost is None  # Ansible's implicit localhost stays local
    (warning,) = parsed.warnings
    assert warning.startswith(f"devinfra.providers.libvirt: the domain {printable(name)!r} of hypervisor test_default (test:///default) is left out")
    assert "\u202e" not in warning


def test_a_domain_named_like_another_hypervisors_group(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    """hypervisor_a on hypervisor b: b's group never takes a's hosts in, whatever the order."""
    node = tmp_path / "b.xml"
    node.write_text("<node><domain type='test'><name>hypervisor_a</name><memory>65536</memory><os><type>hvm</type></os></domain></node>")
    for uris in (
        [{"uri": TEST_URI, "name": "a"}, {"uri": f"test://{node}", "name": "b"}],
        [{"uri": f"test://{node}", "name": "b"}, {"uri": TEST_URI, "name": "a"}],
    ):
        parsed = parse({"uris": uris})
        assert sorted(parsed.inventory.hosts) == ["test"]
        assert parsed.group("hypervisor_a") == ["test"]
        assert parsed.group("hypervisor_b") == []
        assert parsed.inventory.groups["hypervisor_b"].child_groups == []
        assert any("'hypervisor_a' of hypervisor b" in warning for warning in parsed.warnings)


def _other_source() -> InventoryData:
    """An inventory another source filled first: a group with a secret and a host."""
    inventory = InventoryData()
    inventory.add_group("webservers")
    inventory.set_variable("webservers", "db_password", "DVTSECRET-group-var")
    inventory.add_host("db1", "webservers")
    inventory.reconcile_inventory()
    return inventory


@pytest.mark.parametrize("name", ["webservers", "db1"])
def test_a_domain_named_like_a_group_or_host_of_another_source(parse: t.Callable[..., Parsed], name: str) -> None:
    with defined(_domain_xml(name)):
        parsed = parse({"uris": [TEST_URI]}, inventory=_other_source())
    assert parsed.group("webservers") == ["db1"]
    assert parsed.inventory.groups["webservers"].child_groups == []
    assert "libvirt_name" not in parsed.hostvars("db1")
    assert parsed.group("hypervisor_test_default") == ["test"]
    (warning,) = parsed.warnings
    assert f"the domain {name!r} of hypervisor test_default" in warning


def test_a_host_of_another_source_is_merged_only_when_asked(parse: t.Callable[..., Parsed]) -> None:
    with defined(_domain_xml("db1")):
        skipped = parse({"uris": [TEST_URI]}, inventory=_other_source())
        merged = parse({"uris": [TEST_URI], "existing_hosts": "merge"}, inventory=_other_source())
    assert "libvirt_name" not in skipped.hostvars("db1")
    assert any("set existing_hosts: merge" in warning for warning in skipped.warnings)
    assert merged.hostvars("db1")["libvirt_name"] == "db1"
    assert sorted(merged.group("hypervisor_test_default")) == ["db1", "test"]
    assert merged.group("webservers") == ["db1"]  # still in its own group, nothing more
    with defined(_domain_xml("webservers")):
        grouped = parse({"uris": [TEST_URI], "existing_hosts": "merge"}, inventory=_other_source())
    assert "libvirt_name" not in grouped.hostvars("db1") and "webservers" not in grouped.inventory.hosts


def test_a_domain_named_like_a_group_of_the_groups_option(parse: t.Callable[..., Parsed]) -> None:
    with defined(_domain_xml("big")):
        parsed = parse({"uris": [TEST_URI], "groups": {"big": "libvirt_memory > 1048576"}})
    assert "big" not in parsed.inventory.hosts
    assert parsed.group("big") == ["test"]


def test_duplicates_of_a_reserved_name_do_not_fail_the_source(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    node = tmp_path / "b.xml"
    node.write_text("<node><domain type='test'><name>all</name><memory>65536</memory><os><type>hvm</type></os></domain></node>")
    with defined(_domain_xml("all")):
        parsed = parse({"uris": [{"uri": TEST_URI, "name": "a"}, {"uri": f"test://{node}", "name": "b"}]})
    assert sorted(parsed.inventory.hosts) == ["test"]
    assert len(parsed.warnings) == 2


@pytest.mark.parametrize(
    ("owner", "keyed"),
    [
        ("webservers", {"prefix": "", "separator": ""}),
        ("all", {"prefix": "", "separator": ""}),
        ("ungrouped", {"prefix": "", "separator": ""}),
        ("db1", {"prefix": "", "separator": ""}),
        ("other", {"prefix": "hypervisor"}),
        ("running", {"prefix": "state"}),
        ("all", {"prefix": "", "separator": "", "parent_group": "owners"}),
        ("webservers", {"prefix": "", "separator": "", "parent_group": "owners"}),
    ],
)
def test_hostile_metadata_cannot_join_existing_groups(parse: t.Callable[..., Parsed], owner: str, keyed: dict[str, t.Any]) -> None:
    """A keyed group named from a guest's metadata: never an existing group, Ansible's, the
    plugin's or a host's name."""
    with defined(_domain_xml("dvt-inv-evil", owner=owner)):
        parsed = parse(
            {"uris": [TEST_URI], "names": ["dvt-inv-evil"], "keyed_groups": [{"key": "libvirt_workspace.owner", **keyed}]},
            inventory=_other_source(),
        )
    assert parsed.group("webservers") == ["db1"]
    assert "dvt-inv-evil" not in [h.name for h in parsed.inventory.groups["ungrouped"].get_hosts()]
    assert parsed.inventory.groups["hypervisor_test_default"].get_hosts() == [parsed.inventory.get_host("dvt-inv-evil")]
    assert "db1" not in parsed.inventory.groups
    for group in parsed.inventory.groups.values():
        assert parsed.inventory.groups["all"] not in group.child_groups
    (warning,) = parsed.warnings
    assert warning.startswith(
        f"devinfra.providers.libvirt: host dvt-inv-evil: the keyed group {keyed['prefix'] + (keyed.get('separator', '_') if keyed['prefix'] else '') + owner!r}"
    )


def test_keyed_groups_the_host_is_already_in_are_fine(parse: t.Callable[..., Parsed]) -> None:
    parsed = parse({"uris": [TEST_URI], "keyed_groups": [{"key": "libvirt_state", "prefix": "state"}]})
    assert parsed.group("state_running") == ["test"]
    assert parsed.warnings == []


# --- hostile guest addresses, end to end -----------------------------------------------------


@pytest.mark.parametrize(
    ("addrs", "address"),
    [
        (["::ffff:127.0.0.1"], None),
        (["127.0.0.53", "::1"], None),
        (["192.168.122.1"], None),  # the bridge of the network "default"
        (["192.168.122.255"], None),
        (["255.255.255.255", "0.0.0.0", "::"], None),
        (["169.254.9.9", "fe80::5", "224.0.0.1"], None),
        (["10.20.30.40"], None),  # not in the subnet of the network the interface is on
        (["::ffff:127.0.0.1", "192.168.122.77"], "192.168.122.77"),
    ],
)
def test_hostile_agent_addresses(parse: t.Callable[..., Parsed], addrs: list[str], address: str | None) -> None:
    answer = {"testnet0": {"hwaddr": "aa:bb:cc:dd:ee:ff", "addrs": [{"type": 1 if ":" in a else 0, "addr": a, "prefix": 24} for a in addrs]}}
    with mock.patch.object(libvirt.virDomain, "interfaceAddresses", return_value=answer):
        parsed = parse({"uris": [TEST_URI], "source": "agent"})
    assert parsed.hostvars("test").get("ansible_host") == address
    assert parsed.hostvars("test")["libvirt_interfaces"][0]["addrs"][0]["addr"] == addrs[0]  # shown as reported


def test_agent_addresses_any(parse: t.Callable[..., Parsed]) -> None:
    answer = {"testnet0": {"hwaddr": "aa:bb:cc:dd:ee:ff", "addrs": [{"type": 0, "addr": "10.20.30.40", "prefix": 24}]}}
    with mock.patch.object(libvirt.virDomain, "interfaceAddresses", return_value=answer):
        assert "ansible_host" not in parse({"uris": [TEST_URI], "source": "agent"}).hostvars("test")
        assert parse({"uris": [TEST_URI], "source": "agent", "agent_addresses": "any"}).hostvars("test")["ansible_host"] == "10.20.30.40"


# --- the cache: where it lives, what it holds -------------------------------------------------


def _cache_config(cache_dir: pathlib.Path) -> dict[str, t.Any]:
    return {"uris": [TEST_URI], "cache": True, "cache_plugin": "ansible.builtin.jsonfile", "cache_connection": str(cache_dir)}


def _fill_cache(parse: t.Callable[..., Parsed], cache_dir: pathlib.Path) -> pathlib.Path:
    parse(_cache_config(cache_dir))
    (cache_file,) = cache_dir.iterdir()
    return cache_file


def _tamper(cache_file: pathlib.Path, change: t.Callable[[t.Any], t.Any]) -> None:
    """Rewrite the records in the cache file (ansible-core 2.19+ keeps them as a JSON text in
    the key __payload__, in its cache profile, which can carry data tags)."""
    stored = json.loads(cache_file.read_text())
    records = json.loads(stored["__payload__"])
    changed = change(records)
    stored["__payload__"] = json.dumps(records if changed is None else changed)
    cache_file.write_text(json.dumps(stored))


def _set_address(records: t.Any) -> None:
    records[0]["domains"][0]["address"] = "127.0.0.1"


NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")


@pytest.mark.parametrize(
    "make_unsafe",
    [
        pytest.param(lambda d, f: os.chmod(d, 0o777), id="directory-world-writable"),
        pytest.param(lambda d, f: os.chmod(d, 0o1777), id="directory-sticky-world-writable"),
        pytest.param(lambda d, f: os.chmod(d, 0o775), id="directory-group-writable"),
        pytest.param(lambda d, f: os.chmod(f, 0o666), id="file-world-writable"),
        pytest.param(lambda d, f: os.chmod(d.parent, 0o777), id="parent-world-writable"),
        pytest.param(lambda d, f: os.chown(d, NOBODY, NOBODY), id="directory-owned-by-nobody", marks=needs_root),
        pytest.param(lambda d, f: os.chown(f, NOBODY, NOBODY), id="file-owned-by-nobody", marks=needs_root),
        pytest.param(lambda d, f: os.chown(d.parent, NOBODY, NOBODY), id="parent-owned-by-nobody", marks=needs_root),
        pytest.param(lambda d, f: (f.unlink(), f.symlink_to("/etc/hostname")), id="file-a-symlink"),
    ],
)
def test_a_cache_another_user_can_write_is_not_used(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path, make_unsafe: t.Callable[..., t.Any]) -> None:
    cache_dir = tmp_path / "parent" / "cache"
    cache_dir.parent.mkdir(mode=0o755)
    cache_file = _fill_cache(parse, cache_dir)
    _tamper(cache_file, _set_address)  # what the other user wrote
    make_unsafe(cache_dir, cache_file)
    before = os.lstat(cache_file)
    with mock.patch(f"{MODULE}.connect", wraps=connect) as connect_mock:
        parsed = parse(_cache_config(cache_dir))
    connect_mock.assert_called_once()  # the hypervisor was asked
    assert parsed.hostvars("test")["ansible_host"] == "192.168.122.3"
    (warning,) = parsed.warnings
    assert warning.startswith(f"devinfra.providers.libvirt: the inventory cache in {cache_dir} is not used: ")
    assert "another user could rewrite" in warning
    after = os.lstat(cache_file)  # neither read into the inventory nor written
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_a_sticky_tmp_on_the_way_is_fine(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    cache_dir = sticky / "cache"
    _fill_cache(parse, cache_dir)
    with mock.patch(f"{MODULE}.connect") as connect_mock:
        parsed = parse(_cache_config(cache_dir))
    connect_mock.assert_not_called()
    assert parsed.warnings == []


def _deep(depth: int) -> t.Any:
    value: t.Any = "x"
    for _level in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_set_address, id="address-loopback"),
        pytest.param(lambda r: r[0]["domains"][0].update(address="::ffff:127.0.0.1"), id="address-mapped-loopback"),
        pytest.param(lambda r: r[0]["domains"][0].update(address="not an address"), id="address-not-an-address"),
        pytest.param(lambda r: r[0]["domains"][0].update(name=["test"]), id="name-a-list"),
        pytest.param(lambda r: r[0]["domains"][0].update(name="x" * 5000), id="name-too-long"),
        pytest.param(lambda r: r[0]["domains"][0].update(id="1"), id="id-a-string"),
        pytest.param(lambda r: r[0]["domains"][0].update(persistent="yes"), id="persistent-a-string"),
        pytest.param(lambda r: r[0]["domains"][0].update(memory=-1), id="memory-negative"),
        pytest.param(lambda r: r[0]["domains"][0].update(state="owned"), id="state-unknown"),
        pytest.param(lambda r: r[0]["domains"][0].update(uuid="../../etc"), id="uuid-not-a-uuid"),
        pytest.param(lambda r: r[0]["domains"][0].update(description={"x": 1}), id="description-a-dict"),
        pytest.param(lambda r: r[0]["domains"][0].update(workspace=_deep(40)), id="workspace-too-deep"),
        pytest.param(lambda r: r[0]["domains"][0].update(workspace={"a": 1}), id="workspace-a-number"),
        pytest.param(lambda r: r[0]["domains"][0].update(interfaces={"eth0": {}}), id="interfaces-a-dict"),
        pytest.param(lambda r: r[0]["domains"][0]["interfaces"][0]["addrs"][0].update(prefix="24"), id="prefix-a-string"),
        pytest.param(lambda r: r[0]["domains"][0]["interfaces"][0].update(hwaddr="$(reboot)"), id="hwaddr-not-a-mac"),
        pytest.param(lambda r: r[0]["domains"][0].update(ansible_host="127.0.0.1"), id="an-extra-key"),
        pytest.param(lambda r: r[0]["domains"][0].pop("state"), id="a-missing-key"),
        pytest.param(lambda r: r[0].update(domains=[r[0]["domains"][0]] * 4), id="too-many-domains"),  # the limit is 3 here
        pytest.param(lambda r: r[0].update(host=5), id="host-a-number"),
        pytest.param(lambda r: {"records": r}, id="not-a-list"),
        pytest.param(lambda r: "test", id="a-string"),
    ],
)
def test_a_tampered_cache_record_is_not_used(
    parse: t.Callable[..., Parsed], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, change: t.Callable[[t.Any], t.Any]
) -> None:
    monkeypatch.setattr(inventory_safety, "_MAX_DOMAINS", 3)
    cache_dir = tmp_path / "cache"
    cache_file = _fill_cache(parse, cache_dir)
    _tamper(cache_file, change)
    with mock.patch(f"{MODULE}.connect", wraps=connect) as connect_mock:
        parsed = parse(_cache_config(cache_dir))
    connect_mock.assert_called_once()
    assert sorted(parsed.inventory.hosts) == ["test"]
    assert parsed.hostvars("test")["ansible_host"] == "192.168.122.3"
    assert "ansible_host" not in [k for k, v in parsed.hostvars("test").items() if v == "127.0.0.1"]
    (warning,) = parsed.warnings
    assert warning.startswith("devinfra.providers.libvirt: the cached inventory is not used, it is not what this plugin writes (")
    # The cache is written anew: the next run reads it without a warning.
    with mock.patch(f"{MODULE}.connect") as connect_mock:
        again = parse(_cache_config(cache_dir))
    connect_mock.assert_not_called()
    assert again.warnings == []


def test_a_cache_of_other_hypervisors_is_read_again_silently(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    cache_dir = tmp_path / "cache"
    _fill_cache(parse, cache_dir)
    with mock.patch(f"{MODULE}.connect", wraps=connect) as connect_mock:
        parsed = parse({**_cache_config(cache_dir), "uris": [{"uri": TEST_URI, "name": "renamed"}]})
    connect_mock.assert_called_once()
    assert parsed.warnings == []
    assert parsed.group("hypervisor_renamed") == ["test"]


def _trusted(text: str) -> dict[str, t.Any]:
    """A string trusted as a template, as ansible-core's cache profile writes one."""
    return {"value": text, "tags": [{"__ansible_type": "TrustedAsTemplate"}], "__ansible_type": "_AnsibleTaggedStr"}


def _trust_everything(value: t.Any) -> t.Any:
    if isinstance(value, str):
        return _trusted(value)
    if isinstance(value, list):
        return [_trust_everything(item) for item in value]
    if isinstance(value, dict):
        return {key: _trust_everything(item) for key, item in value.items()}
    return value


def test_cached_values_are_never_templated(parse: t.Callable[..., Parsed], tmp_path: pathlib.Path) -> None:
    """A cache file rewritten with strings tagged as trusted templates (the cache profile of
    ansible-core 2.19+ keeps data tags): the plugin reads them as plain data."""
    from ansible.template import is_trusted_as_template

    cache_dir = tmp_path / "cache"
    config = {**_cache_config(cache_dir), "compose": {"description_copy": "libvirt_description", "name_copy": "libvirt_name"}}
    with defined(_domain_xml("dvt-inv-tpl", description="x")):
        parse(config)
    (cache_file,) = cache_dir.iterdir()

    def plant(records: t.Any) -> t.Any:
        domain = next(d for d in records[0]["domains"] if d["name"] == "dvt-inv-tpl")
        domain["description"] = "{{ 6 * 7 }}"
        return _trust_everything(records)

    _tamper(cache_file, plant)
    with mock.patch(f"{MODULE}.connect") as connect_mock:
        parsed = parse(config)
    connect_mock.assert_not_called()  # the record has the right shape: it is used, as data
    hostvars = parsed.hostvars("dvt-inv-tpl")
    assert hostvars["description_copy"] == "{{ 6 * 7 }}"
    assert hostvars["name_copy"] == "dvt-inv-tpl"
    assert not is_trusted_as_template(hostvars["libvirt_description"])
    assert not is_trusted_as_template(hostvars["libvirt_name"])


CONNECTION_VARS = ("ansible_connection", "ansible_libvirt_uri", "ansible_libvirt_domain")


def test_no_guest_agent_connection_by_default(parse: t.Callable[..., Parsed]) -> None:
    hostvars = parse({"uris": [TEST_URI]}).hostvars("test")
    assert not set(CONNECTION_VARS) & set(hostvars)


def test_guest_agent_connection(parse: t.Callable[..., Parsed], other_host: str, tmp_path: pathlib.Path) -> None:
    config = {
        "uris": [{"uri": TEST_URI, "name": "a"}, {"uri": other_host, "name": "b"}],
        "names": ["test"],
        "duplicate_names": "suffix",
        "guest_agent_connection": True,
        "cache": True,
        "cache_plugin": "ansible.builtin.jsonfile",
        "cache_connection": str(tmp_path / "cache"),
    }
    for parsed in (parse(config), parse(config)):  # read from the hypervisors, then from the cache
        for host, uri in (("test.a", TEST_URI), ("test.b", other_host)):
            hostvars = parsed.hostvars(host)
            assert {key: hostvars[key] for key in CONNECTION_VARS} == {
                "ansible_connection": "devinfra.providers.libvirt_qemu",
                "ansible_libvirt_uri": uri,
                "ansible_libvirt_domain": "test",  # the domain's name, not the suffixed host name
            }
        assert parsed.hostvars("test.a")["ansible_host"] == "192.168.122.3"  # still there, for other uses
        assert parsed.warnings == []
    # compose can set them otherwise
    composed = parse({**config, "cache": False, "compose": {"ansible_connection": "'ssh'"}})
    assert composed.hostvars("test.a")["ansible_connection"] == "ssh"
    assert composed.hostvars("test.a")["ansible_libvirt_domain"] == "test"


def test_guest_agent_connection_never_puts_a_password_in_host_variables(parse: t.Callable[..., Parsed]) -> None:
    parsed = parse(
        {
            "uris": [{"uri": TEST_URI, "name": "a"}, {"uri": SECRET_URI, "name": "jane"}],
            "duplicate_names": "suffix",
            "guest_agent_connection": True,
        }
    )
    assert parsed.hostvars("test.a")["ansible_libvirt_uri"] == TEST_URI
    assert not set(CONNECTION_VARS) & set(parsed.hostvars("test.jane"))
    (warning,) = parsed.warnings
    assert "the hosts of hypervisor jane (test://jane:********@/default) get no guest agent connection: its URI holds a password" in warning
    assert SECRET not in parsed.everything() + warning


def test_guest_agent_connection_reaches_the_plugin(parse: t.Callable[..., Parsed]) -> None:
    """The variables the inventory sets are the options of the connection plugin."""
    from ansible.playbook.play_context import PlayContext
    from ansible.plugins.loader import connection_loader

    hostvars = parse({"uris": [TEST_URI], "guest_agent_connection": True}).hostvars("test")
    conn = connection_loader.get(hostvars["ansible_connection"], PlayContext())
    assert conn is not None
    conn.set_options(var_options={**hostvars, "inventory_hostname": "test"})
    assert conn.get_option("libvirt_uri") == TEST_URI
    assert conn.get_option("libvirt_domain") == "test"
    assert conn.get_option("remote_addr") == "192.168.122.3"  # ansible_host: libvirt_domain wins over it


def test_guest_agent_connection_of_a_domain_named_like_a_uuid(parse: t.Callable[..., Parsed]) -> None:
    """A domain named like the UUID of "test" is given by its own UUID: the connection takes a
    value of UUID shape as a UUID first, and refuses one that is also another domain's name."""
    from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain_lookup import find_domain

    test_uuid = "6695eb01-f6a4-8304-79aa-97f2502e193f"
    with defined(_domain_xml(test_uuid)):
        parsed = parse({"uris": [TEST_URI], "guest_agent_connection": True})
        squatter = parsed.hostvars(test_uuid)
        assert squatter["ansible_libvirt_domain"] == squatter["libvirt_uuid"] != test_uuid
        assert parsed.hostvars("test")["ansible_libvirt_domain"] == "test"
        with connect(TEST_URI) as conn:
            assert find_domain(conn, squatter["ansible_libvirt_domain"]).name() == test_uuid
            assert find_domain(conn, "test").UUIDString() == test_uuid
