# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The switches of the generated schema: every attribute libvirt's RNG schemas spell yes/no or
on/off is a boolean option (tools/libvirt_schema/rng_attributes.py reads them, rng-attributes.json
keeps them, generate.py types them), written in that spelling (a boolean written in the other
one is refused by libvirt: cpu/@migratable was written yes), and every one of them converges:
what a run writes, the next run reads back as equal (libvirt leaves some false values out)."""

from __future__ import annotations

import copy
import functools
import json
import pathlib
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import ROOT_ELEMENTS, ROOTS, STRUCTS
from ansible_collections.devinfra.providers.tests.unit.plugins.module_utils._libvirt.schema_tools import TOOLS, load_tool

RNG_DIR = pathlib.Path("/usr/share/libvirt/schemas")
SWITCHES = ("yesno", "onoff")


@functools.cache
def _installed_switches() -> dict[str, dict[str, list[str]]]:
    pytest.importorskip("lxml.etree")
    if not RNG_DIR.is_dir():
        pytest.skip(f"libvirt's RNG schemas are not installed ({RNG_DIR})")
    attributes: dict[str, dict[str, list[str]]] = load_tool("rng_attributes").Schemas(RNG_DIR).attributes()
    return attributes


def test_the_switch_facts_are_the_installed_schemas() -> None:
    """rng-attributes.json is what the installed libvirt's schemas say (the CI host's libvirt is
    the one the facts were read from); generate.py types the options from it."""
    assert json.loads((TOOLS / "rng-attributes.json").read_text())["attributes"] == _installed_switches()


def _boolean_attributes() -> list[tuple[str, dict[str, t.Any]]]:
    return [
        (struct, entry)
        for struct, fields in STRUCTS.items()
        for entry in fields["fields"]
        if entry.get("type") in SWITCHES and entry["kind"] in ("attr", "unit_attr")
    ]


def test_there_are_switches() -> None:
    assert len(_boolean_attributes()) > 180  # every one the schemas spell so, not a hand-kept list


def test_boolean_attributes_are_spelled_as_libvirt_reads_them() -> None:
    # One test for all of them (ansible-test runs each test in a fork of its own, where the RNG
    # facts would be read again each time); the failure names every switch that is wrong.
    switches = _installed_switches()
    elements = load_tool("generate").written_as(STRUCTS, {element: root for root, element in ROOT_ELEMENTS.items()})
    failures = []
    for struct, entry in _boolean_attributes():
        name = entry["attr"] if entry["kind"] == "unit_attr" else entry["xml"]
        owners = elements.get(struct, set()) if entry["kind"] == "attr" else {entry["xml"]}
        spellings = {spelling for owner in owners for spelling in switches.get(owner, {}).get(name, [])}
        if not spellings:
            failures.append(f"{struct}.{entry['name']}: no RNG definition of @{name} as a switch on {sorted(owners)}")
        elif entry["type"] not in spellings:
            failures.append(f"{struct}.{entry['name']} is {entry['type']}, libvirt's schema says {sorted(spellings)}")
    assert not failures, "\n".join(failures)


# The smallest object of each kind the test driver defines.
_BASE: dict[str, dict[str, t.Any]] = {
    "Domain": {"type": "test", "name": "switch-probe", "memory": 65536, "os": {"type": "hvm"}},
    "Network": {"name": "switch-probe"},
    "StoragePool": {"type": "dir", "name": "switch-probe", "target": {"path": "/switch-probe"}},
    "StorageVolume": {"name": "switch-probe.img", "capacity": 1024},
}


def _switch_paths(struct: str, prefix: tuple[tuple[str, dict[str, t.Any]], ...], seen: frozenset[str]) -> t.Iterator[tuple[tuple[str, dict[str, t.Any]], ...]]:
    for entry in STRUCTS[struct]["fields"]:
        if entry.get("type") in SWITCHES and entry["kind"] in ("attr", "unit_attr"):
            yield (*prefix, (struct, entry))
        if entry.get("struct") and entry["kind"] in ("object", "list", "branch", "inline") and entry["struct"] not in seen:
            yield from _switch_paths(entry["struct"], (*prefix, (struct, entry)), seen | {entry["struct"]})


def _options_setting(root: str, path: tuple[tuple[str, dict[str, t.Any]], ...], value: bool) -> dict[str, t.Any]:
    options = copy.deepcopy(_BASE[root])
    here = options
    for _struct, entry in path[:-1]:
        existing = here.get(entry["name"])
        child: dict[str, t.Any] = existing if isinstance(existing, dict) else {}
        here[entry["name"]] = [child] if entry["kind"] == "list" else child
        here = child
    here[path[-1][1]["name"]] = value
    return options


def _domain_devices(devices: dict[str, t.Any]) -> dict[str, t.Any]:
    return {**_BASE["Domain"], "devices": devices}


# Switches whose smallest object is not enough: libvirt decides them from their siblings (a
# graphics device with no port gets autoport="yes"; a domain's only video is its primary one).
_CONTEXT: dict[str, t.Callable[[bool], dict[str, t.Any]]] = {
    "domain.devices.graphics.rdp.auto_port": lambda value: _domain_devices({"graphics": [{"rdp": {"port": 3389, "auto_port": value}}]}),
    "domain.devices.graphics.spice.auto_port": lambda value: _domain_devices({"graphics": [{"spice": {"port": 5900, "auto_port": value}}]}),
    "domain.devices.graphics.vnc.auto_port": lambda value: _domain_devices({"graphics": [{"vnc": {"port": 5900, "auto_port": value}}]}),
    "domain.devices.videos.model.primary": lambda value: _domain_devices(
        {"videos": [{"model": {"type": "vga", "primary": not value}}, {"model": {"type": "virtio", "primary": value}}]}
    ),
}


def _round_trip(conn: t.Any, root: str, options: dict[str, t.Any]) -> dict[str, t.Any] | None:
    """What libvirt stores of ``options``, read as the modules read it; None when the test
    driver refuses the smallest object holding the option (it needs more around it)."""
    libvirt = pytest.importorskip("libvirt")
    xml = schema.serialize(schema.build(root, options))
    try:
        if root == "Domain":
            made = conn.defineXML(xml)
            stored, remove = made.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE), made.undefine
        elif root == "Network":
            made = conn.networkDefineXML(xml)
            stored, remove = made.XMLDesc(0), made.undefine
        elif root == "StoragePool":
            made = conn.storagePoolDefineXML(xml)
            stored, remove = made.XMLDesc(0), made.undefine
        else:
            made = conn.storagePoolLookupByName("default-pool").createXML(xml)
            stored, remove = made.XMLDesc(0), made.delete
    except libvirt.libvirtError:
        return None
    remove()
    read: dict[str, t.Any] = schema.read(root, schema.parse(stored), like=options)
    return read


def _all_switch_paths() -> list[tuple[str, tuple[tuple[str, dict[str, t.Any]], ...]]]:
    return [(root, path) for root in ROOTS.values() for path in _switch_paths(root, (), frozenset({root}))]


def test_switches_converge_on_libvirt() -> None:
    """Each switch, set true and false in the smallest object that holds it: where libvirt keeps
    the true value (it keeps the object), the next run reads the false one back as equal too.
    Where libvirt leaves false out, the option's rule says so (``omitted``)."""
    libvirt = pytest.importorskip("libvirt")
    conn = libvirt.open("test:///default")
    libvirt.registerErrorHandler(lambda _ctx, _error: None, None)
    tried, diverging = 0, []
    try:
        for root, path in _all_switch_paths():
            label = f"{ROOT_ELEMENTS[root]}." + ".".join(entry["name"] for _struct, entry in path)
            results = {}
            for value in (True, False):
                options = _CONTEXT[label](value) if label in _CONTEXT else _options_setting(root, path, value)
                stored = _round_trip(conn, root, options)
                results[value] = None if stored is None else schema.compare(root, options, stored)
            if results[True] == []:  # libvirt keeps the option in this smallest object
                tried += 1
                if results[False] not in ([], None):  # None: libvirt refuses false there (a rule of its own)
                    diverging.append(f"{label}: {results[False]}")
    finally:
        conn.close()
    assert tried > 60, tried  # enough of them get as far as libvirt for this to mean something
    assert diverging == []


@pytest.mark.parametrize("migratable", [True, False])
def test_migratable_is_written_on_and_off_and_libvirt_takes_it(migratable: bool) -> None:
    libvirt = pytest.importorskip("libvirt")
    cpu = {"mode": "host-passthrough", "migratable": migratable}
    options = {"type": "test", "name": f"rng-migratable-{migratable}", "memory": 65536, "os": {"type": "hvm"}, "cpu": cpu}
    xml = schema.serialize(schema.build("Domain", options))
    assert f'<cpu mode="host-passthrough" migratable="{"on" if migratable else "off"}"/>' in xml
    conn = libvirt.open("test:///default")
    try:
        domain = conn.defineXML(xml)
        stored = schema.read("Domain", schema.parse(domain.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)), like={"cpu": cpu})
        domain.undefine()
    finally:
        conn.close()
    assert stored == {"cpu": cpu}
