# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import ROOTS, STRUCTS
from ansible_collections.devinfra.providers.tests.unit.plugins.module_utils._libvirt.schema_tools import TOOLS, load_tool

ROOT = TOOLS.parents[1]


def _generator() -> t.Any:
    return load_tool("generate")


def test_generated_files_are_what_the_generator_gives() -> None:
    generate = _generator()
    import json

    facts = json.loads((TOOLS / "libvirtxml-facts.json").read_text())
    assert (ROOT / "plugins/module_utils/_libvirt/schema_generated.py").read_text() == generate.render(facts)
    assert (ROOT / "plugins/doc_fragments/libvirt_schema.py").read_text() == generate.render_docs(facts)
    assert (ROOT / "docs/docsite/rst/libvirt_domain_options.rst").read_text() == generate.render_reference(facts)


# Upstream's stringutil tests, and names from the libvirtxml structs the schema uses.
SNAKE_CASES = {
    "QEMUCommandline": "qemu_commandline",
    "LXCNamespace": "lxc_namespace",
    "BHyveCommandline": "bhyve_commandline",
    "VMWareDataCenterPath": "vmware_data_center_path",
    "IPs": "ips",
    "UUID": "uuid",
    "TrustGuestRxFilters": "trust_guest_rx_filters",
    "MACTableManager": "mac_table_manager",
    "SRVs": "sr_vs",
    "TXTs": "tx_ts",
    "IOThreadIDs": "io_thread_i_ds",
    "NVRam": "nv_ram",
    "DnsmasqOptions": "dnsmasq_options",
    "ClassID": "class_id",
    "VEPA8021QBG": "vepa8021qbg",
}


@pytest.mark.parametrize(("go_name", "option"), sorted(SNAKE_CASES.items()))
def test_snake_case_matches_upstream(go_name: str, option: str) -> None:
    assert _generator().snake_case(go_name) == option


def _option_paths(struct: str, prefix: str, out: set[str]) -> set[str]:
    for entry in STRUCTS[struct]["fields"]:
        for name in (entry["name"], *entry.get("aliases", ())):
            path = f"{prefix}.{name}"
            out.add(path)
            if "struct" in entry:
                _option_paths(entry["struct"], path, out)
    return out


# Entries of upstream's path inventory that are artifacts of its generation (a device nested in
# itself, a cycle cut at a different struct), not options of upstream's schema; entries ending
# in "." are the cycles the inventory marks (and leaves out).
INVENTORY_ARTIFACTS = {
    "domain.devices.disks.source.disks.source.reservations.source.unix.reconnect.enabled",
    "domain.devices.parallels.source.unix.sec_label.type",
}


@pytest.mark.parametrize("resource", sorted(ROOTS))
def test_every_upstream_schema_path_is_an_option(resource: str) -> None:
    lines = (TOOLS / "upstream-paths.txt").read_text().splitlines()
    upstream = {line.strip() for line in lines if line.startswith(resource + ".") and not line.endswith(".")}
    ours = _option_paths(ROOTS[resource], resource, set())
    assert len(upstream) > 40, resource
    assert sorted(upstream - ours - INVENTORY_ARTIFACTS) == []


# Options -> XML -> options, one row per mapping rule.
MAPPING_TABLE: list[tuple[str, str, dict[str, t.Any], str]] = [
    ("attributes and elements, booleans in libvirt's spelling", "Network", {"name": "n", "ipv6": True, "bridge": {"name": "br0", "stp": True}},
     '<network ipv6="yes"><name>n</name><bridge name="br0" stp="on"/></network>'),
    ("yes/no boolean", "Network", {"name": "n", "forward": {"mode": "hostdev", "managed": True}},
     '<network><name>n</name><forward mode="hostdev" managed="yes"/></network>'),
    ("lists of objects and nested lists", "Network",
     {"name": "n", "ips": [{"address": "10.0.0.1", "prefix": 24, "dhcp": {"ranges": [{"start": "10.0.0.2", "end": "10.0.0.9"}]}}]},
     '<network><name>n</name><ip address="10.0.0.1" prefix="24"><dhcp><range start="10.0.0.2" end="10.0.0.9"/></dhcp></ip></network>'),
    ("chardata lists", "Network", {"name": "n", "dns": {"host": [{"ip": "10.0.0.5", "hostnames": [{"hostname": "a"}, {"hostname": "b"}]}]}},
     '<network><name>n</name><dns><host ip="10.0.0.5"><hostname>a</hostname><hostname>b</hostname></host></dns></network>'),
    ("renamed option", "Network", {"name": "n", "dns": {"srvs": [{"service": "s", "protocol": "tcp"}]}},
     '<network><name>n</name><dns><srv service="s" protocol="tcp"/></dns></network>'),
    ("union branch on the parent", "Network", {"name": "n", "virtual_port": {"params": {"open_v_switch": {"interface_id": "x"}}}},
     '<network><name>n</name><virtualport type="openvswitch"><parameters interfaceid="x"/></virtualport></network>'),
    ("union branch without discriminator", "Network", {"name": "n", "virtual_port": {"params": {"any": {"profile_id": "p"}}}},
     '<network><name>n</name><virtualport><parameters profileid="p"/></virtualport></network>'),
    ("union branch on itself, PCI address in hex", "Network",
     {"name": "n", "forward": {"mode": "hostdev", "addresses": [{"pci": {"domain": 0, "bus": 6, "slot": 16, "function": 2}}]}},
     '<network><name>n</name><forward mode="hostdev"><address type="pci" domain="0x0000" bus="0x06" slot="0x10" function="0x2"/></forward></network>'),
    ("namespaced element", "Network", {"name": "n", "dnsmasq_options": {"option": [{"value": "cname=a,b"}]}},
     '<network><name>n</name><dnsmasq:options xmlns:dnsmasq="http://libvirt.org/schemas/network/dnsmasq/1.0">'
     '<dnsmasq:option value="cname=a,b"/></dnsmasq:options></network>'),
    ("inner XML", "Network", {"name": "n", "metadata": {"xml": '<a:x xmlns:a="urn:a">1</a:x>'}},
     '<network><name>n</name><metadata><a:x xmlns:a="urn:a">1</a:x></metadata></network>'),
    ("value+unit flattened", "StorageVolume", {"name": "v", "capacity": 10, "capacity_unit": "GiB"},
     '<volume><name>v</name><capacity unit="GiB">10</capacity></volume>'),
    ("presence booleans", "StorageVolume", {"name": "v", "target": {"no_cow": True, "features": [{"lazy_refcounts": True}]}},
     "<volume><name>v</name><target><nocow/><features><lazy_refcounts/></features></target></volume>"),
    ("pool", "StoragePool", {"type": "dir", "name": "p", "target": {"path": "/d", "permissions": {"mode": "0711"}}},
     '<pool type="dir"><name>p</name><target><path>/d</path><permissions><mode>0711</mode></permissions></target></pool>'),
]  # fmt: skip


@pytest.mark.parametrize(("struct", "options", "xml"), [row[1:] for row in MAPPING_TABLE], ids=[row[0] for row in MAPPING_TABLE])
def test_options_to_xml_and_back(struct: str, options: dict[str, t.Any], xml: str) -> None:
    assert schema.serialize(schema.build(struct, options)) == xml
    assert schema.read(struct, schema.parse(xml)) == options
    assert schema.read(struct, schema.parse(xml), like=options) == options


def test_read_only_what_is_asked() -> None:
    xml = '<network><name>n</name><uuid>u</uuid><bridge name="virbr3" stp="on" delay="0"/><mac address="52:54:00:00:00:01"/></network>'
    assert schema.read("Network", schema.parse(xml), like={"name": "n", "bridge": {"stp": True}}) == {"name": "n", "bridge": {"stp": True}}


def test_apply_keeps_what_the_options_do_not_mention() -> None:
    root = schema.parse('<network><name>n</name><uuid>u</uuid><bridge name="virbr3"/><ip address="10.0.0.1"/><ip address="10.1.0.1"/></network>')
    schema.apply("Network", root, {"bridge": {"stp": False}, "ips": [{"address": "10.2.0.1"}]}, path="")
    assert schema.serialize(root) == '<network><name>n</name><uuid>u</uuid><bridge name="virbr3" stp="off"/><ip address="10.2.0.1"/></network>'


def test_two_union_branches_are_an_error_naming_the_path() -> None:
    message = r"^virtual_port\.params: only one of virtual_port\.params\.any, virtual_port\.params\.mido_net may be set"
    with pytest.raises(LibvirtValidationError, match=message):
        schema.build("Network", {"name": "n", "virtual_port": {"params": {"any": {}, "mido_net": {"interface_id": "x"}}}})


def test_bad_inner_xml_names_the_path() -> None:
    with pytest.raises(LibvirtValidationError, match=r"^metadata\.xml: not valid XML"):
        schema.build("Network", {"name": "n", "metadata": {"xml": "<a>"}})


def test_argument_spec_follows_the_schema() -> None:
    spec = schema.argument_spec("Network")
    assert "uuid" not in spec  # computed
    assert spec["dns"] == {"type": "dict"}  # what it holds: schema.validate()
    assert spec["ips"] == {"type": "list", "elements": "dict"}
    assert spec["ipv6"] == {"type": "bool"}  # libvirt's yes/no, written as libvirt spells it
    pool = schema.argument_spec("StoragePool")
    assert {"capacity", "allocation", "available", "uuid"}.isdisjoint(pool)
    assert "no_log" not in pool["source"]


def test_validation_follows_the_schema() -> None:
    dns = schema.validate(
        "NetworkDNS", {"sr_vs": [{"service": "s", "protocol": "tcp"}], "host": [{"ip": "10.0.0.5", "hostnames": [{"hostname": 1}]}]}, path="dns"
    )
    assert dns == {"srvs": [{"service": "s", "protocol": "tcp"}], "host": [{"ip": "10.0.0.5", "hostnames": [{"hostname": "1"}]}]}
    assert schema.validate("NetworkForward", {"managed": "yes", "mode": "hostdev"}, path="forward") == {"managed": True, "mode": "hostdev"}
    with pytest.raises(LibvirtValidationError, match=r"^dns\.txts\[0\]\.name: required, missing in dns\.txts\[0\]$"):
        schema.validate("NetworkDNS", {"txts": [{"value": "v"}]}, path="dns")  # upstream: not omitempty
    secrets: set[str] = set()
    source = schema.validate("StoragePoolSource", {"auth": {"type": "ceph", "username": "u", "secret": {"usage": "ceph"}}}, path="source", secrets=secrets)
    assert source["auth"]["secret"] == {"usage": "ceph"} and not secrets  # a reference to a secret, not one


@pytest.mark.parametrize(
    ("desired", "current", "paths"),
    [
        ({"a": 1}, {"a": 1, "b": 2}, []),
        ({"a": 1}, {"a": 2}, ["a"]),
        ({"a": None, "b": 1}, {"b": 1}, []),
        ({"l": [{"x": 1}]}, {"l": [{"x": 1, "y": 2}]}, []),
        ({"l": [{"x": 1}]}, {"l": [{"x": 1}, {"x": 2}]}, ["l"]),
        ({"l": [{"x": 1}, {"x": 3}]}, {"l": [{"x": 1}, {"x": 2}]}, ["l[1].x"]),
        ({"o": {"x": 1}}, {}, ["o"]),
        # Disks match by target dev, as upstream; other lists by position.
        (
            {"disks": [{"target": {"dev": "vdb"}, "serial": "b"}, {"target": {"dev": "vda"}, "serial": "a"}]},
            {"disks": [{"target": {"dev": "vda", "bus": "virtio"}, "serial": "a"}, {"target": {"dev": "vdb", "bus": "virtio"}, "serial": "b"}]},
            [],
        ),
        (
            {"disks": [{"target": {"dev": "vdb"}, "serial": "x"}, {"target": {"dev": "vda"}, "serial": "a"}]},
            {"disks": [{"target": {"dev": "vda"}, "serial": "a"}, {"target": {"dev": "vdb"}, "serial": "b"}]},
            ["disks[0].serial"],
        ),
        ({"ips": [{"address": "b"}, {"address": "a"}]}, {"ips": [{"address": "a"}, {"address": "b"}]}, ["ips[0].address", "ips[1].address"]),
    ],
)
def test_differences(desired: dict[str, t.Any], current: dict[str, t.Any], paths: list[str]) -> None:
    assert schema.differences(desired, current) == paths


# What libvirt rewrites, by the rules of the schema's options: (struct, asked, as libvirt holds it, paths that differ).
@pytest.mark.parametrize(
    ("struct", "desired", "current", "paths"),
    [
        ("StorageVolume", {"target": {"permissions": {"mode": "755"}}}, {"target": {"permissions": {"mode": "0755"}}}, []),
        ("StorageVolume", {"target": {"permissions": {"mode": "0700"}}}, {"target": {"permissions": {"mode": "0755"}}}, ["target.permissions.mode"]),
        ("StoragePool", {"target": {"path": "/var/lib/x/"}}, {"target": {"path": "/var/lib/x"}}, []),
        ("DomainInterface", {"mac": {"address": "52:54:00:AB:CD:EF"}}, {"mac": {"address": "52:54:00:ab:cd:ef"}}, []),
        ("Network", {"metadata": {"xml": "<a  b='1'/>"}}, {"metadata": {"xml": '<a b="1"/>'}}, []),
        ("Domain", {"description": "a\r\nb"}, {"description": "a\nb"}, []),
        ("Domain", {"title": "a"}, {"title": "A"}, ["title"]),
    ],
)
def test_compare_takes_libvirts_spelling(struct: str, desired: dict[str, t.Any], current: dict[str, t.Any], paths: list[str]) -> None:
    assert schema.compare(struct, desired, current) == paths
