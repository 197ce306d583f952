# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The boolean attributes of the generated schema are spelled as libvirt's own RNG schemas
say (virYesNo: yes/no, virOnOff: on/off). A boolean written in the other spelling is refused
by libvirt (cpu/@migratable was written yes)."""

from __future__ import annotations

import functools
import pathlib
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import STRUCTS

RNG_DIR = pathlib.Path("/usr/share/libvirt/schemas")
RNG = "{http://relaxng.org/ns/structure/1.0}"
SPELLING = {"yesno": "virYesNo", "onoff": "virOnOff"}


def _owner(node: t.Any) -> t.Any:
    """The nearest <element> or <define> around an RNG node."""
    node = node.getparent()
    while node is not None and node.tag not in (f"{RNG}element", f"{RNG}define"):
        node = node.getparent()
    return node


@functools.cache
def _rng_attributes() -> dict[tuple[str, str], set[str]]:
    """(element name, attribute name) -> the types (refs) libvirt's schemas give it, with
    the attributes of a <define> credited to the elements that use it."""
    etree = pytest.importorskip("lxml.etree")
    if not RNG_DIR.is_dir():
        pytest.skip(f"libvirt's RNG schemas are not installed ({RNG_DIR})")
    trees = [etree.parse(str(path)) for path in sorted(RNG_DIR.glob("*.rng"))]
    users: dict[str, set[str]] = {}  # define -> element names or define names that use it
    for tree in trees:
        for ref in tree.iter(f"{RNG}ref"):
            owner = _owner(ref)
            if owner is not None:
                kind = "element" if owner.tag == f"{RNG}element" else "define"
                users.setdefault(ref.get("name"), set()).add(f"{kind}:{owner.get('name')}")

    def elements_of(define: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found: set[str] = set()
        for user in users.get(define, ()):
            kind, name = user.split(":", 1)
            if kind == "element":
                found.add(name)
            elif name not in seen:
                found |= elements_of(name, seen | {define})
        return found

    attributes: dict[tuple[str, str], set[str]] = {}
    for tree in trees:
        for attribute in tree.iter(f"{RNG}attribute"):
            owner = _owner(attribute)
            if owner is None or attribute.get("name") is None:
                continue
            types = {ref.get("name") for ref in attribute.iter(f"{RNG}ref")}
            elements = {owner.get("name")} if owner.tag == f"{RNG}element" else elements_of(owner.get("name"))
            for element in elements:
                attributes.setdefault((element, attribute.get("name")), set()).update(types)
    return attributes


def _boolean_attributes() -> list[tuple[str, dict[str, t.Any], set[str]]]:
    """Every yesno/onoff attribute of the schema, with the XML elements its struct is written as."""
    elements: dict[str, set[str]] = {}
    for _round in range(len(STRUCTS)):  # until nothing is added: a union's branch is written as its owner's element
        before = sum(map(len, elements.values()))
        for owner, fields in STRUCTS.items():
            for entry in fields["fields"]:
                if entry.get("struct"):
                    written_as = {entry["xml"]} if entry.get("xml") else elements.get(owner, set()) if entry["kind"] == "branch" else set()
                    elements.setdefault(entry["struct"], set()).update(written_as)
        if sum(map(len, elements.values())) == before:
            break
    # An attribute of the struct's own element, or of the element a flattened value is written as
    # (os.loader_readonly is @readonly of <loader>).
    return [
        (struct, entry, elements.get(struct, set()) if entry["kind"] == "attr" else {entry["xml"]})
        for struct, fields in STRUCTS.items()
        for entry in fields["fields"]
        if entry.get("type") in SPELLING and entry["kind"] in ("attr", "unit_attr")
    ]


@pytest.mark.parametrize(("struct", "entry", "elements"), _boolean_attributes(), ids=lambda value: value if isinstance(value, str) else None)
def test_boolean_attributes_are_spelled_as_libvirt_reads_them(struct: str, entry: dict[str, t.Any], elements: set[str]) -> None:
    attributes = _rng_attributes()
    name = entry["attr"] if entry["kind"] == "unit_attr" else entry["xml"]
    types = set().union(*(attributes.get((element, name), set()) for element in elements))
    assert types, f"{struct}.{entry['name']}: no RNG definition of @{name} on {sorted(elements)}"
    assert SPELLING[entry["type"]] in types, f"{struct}.{entry['name']} is {entry['type']}, libvirt's schema says {sorted(types)}"


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
