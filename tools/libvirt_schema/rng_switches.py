# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read which attributes libvirt's RNG schemas declare as switches: for every element and
attribute, how its value is spelled there - ``yesno`` (virYesNo, or a choice of the values yes
and no), ``onoff`` (virOnOff, or on and off) or ``other`` (anything else: a string, a number,
a choice with more values) - or ``only:<word>`` when one of the words alone is allowed). An attribute of a <define> counts for every element that uses the
define, directly or through other defines; an element and attribute that is spelled one way in
one place and another elsewhere keeps every spelling, and generate.py types it boolean only when
all of them agree. Only the attribute names spelled as a switch somewhere are written. Writes them as JSON (our own format; no schema text is copied).

    python tools/libvirt_schema/rng_switches.py [SCHEMA_DIR] > tools/libvirt_schema/rng-switches.json

SCHEMA_DIR defaults to /usr/share/libvirt/schemas (Debian's libvirt-daemon packages them).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import typing as t

from lxml import etree

RNG = "{http://relaxng.org/ns/structure/1.0}"
SWITCHES = {frozenset({"yes", "no"}): "yesno", frozenset({"on", "off"}): "onoff"}


def _owner(node: t.Any) -> t.Any:
    """The nearest <element> or <define> around an RNG node."""
    node = node.getparent()
    while node is not None and node.tag not in (f"{RNG}element", f"{RNG}define"):
        node = node.getparent()
    return node


class Schemas:
    def __init__(self, directory: pathlib.Path) -> None:
        self.trees = [etree.parse(str(path)) for path in sorted(directory.glob("*.rng"))]
        self.defines: dict[str, list[t.Any]] = {}
        self.users: dict[str, set[str]] = {}  # define -> "element:<name>" or "define:<name>" that use it
        for tree in self.trees:
            for define in tree.iter(f"{RNG}define"):
                self.defines.setdefault(define.get("name"), []).append(define)
            for ref in tree.iter(f"{RNG}ref"):
                owner = _owner(ref)
                if owner is not None:
                    kind = "element" if owner.tag == f"{RNG}element" else "define"
                    self.users.setdefault(ref.get("name"), set()).add(f"{kind}:{owner.get('name')}")

    def values(self, node: t.Any, seen: frozenset[str] = frozenset()) -> set[str] | None:
        """The literal values ``node`` allows, or None when it allows anything else too."""
        found: set[str] = set()
        children = [child for child in node if isinstance(child.tag, str)]
        if not children:
            return None  # <attribute name="x"/>: text
        for child in children:
            tag = child.tag.removeprefix(RNG)
            if tag == "value":
                found.add((child.text or "").strip())
            elif tag == "choice":
                inner = self.values(child, seen)
                if inner is None:
                    return None
                found |= inner
            elif tag == "ref" and child.get("name") not in seen:
                for define in self.defines.get(child.get("name"), []):
                    inner = self.values(define, seen | {child.get("name")})
                    if inner is None:
                        return None
                    found |= inner
            else:
                return None  # <data>, <text>, <empty>, ...
        return found

    def spelling(self, attribute: t.Any) -> str:
        """yesno or onoff when the attribute allows exactly those words, only:<word> when it allows
        one of them alone (a type of seclabel allows relabel="no" only), other otherwise."""
        values = self.values(attribute)
        for words, name in SWITCHES.items():
            if values == words:
                return name
            if values and len(values) == 1 and values <= words:
                return f"only:{next(iter(values))}"
        return "other"

    def elements_of(self, define: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found: set[str] = set()
        for user in self.users.get(define, ()):
            kind, name = user.split(":", 1)
            if kind == "element":
                found.add(name)
            elif name not in seen:
                found |= self.elements_of(name, seen | {define})
        return found

    def attributes(self) -> dict[str, dict[str, list[str]]]:
        """element -> attribute -> its spellings, for every attribute whose name is spelled as a
        switch somewhere (its other uses too, so that a disagreement shows)."""
        out: dict[str, dict[str, set[str]]] = {}
        for tree in self.trees:
            for attribute in tree.iter(f"{RNG}attribute"):
                owner = _owner(attribute)
                if owner is None or attribute.get("name") is None:
                    continue
                elements = {owner.get("name")} if owner.tag == f"{RNG}element" else self.elements_of(owner.get("name"))
                for element in elements:
                    if element:
                        out.setdefault(element, {}).setdefault(attribute.get("name"), set()).add(self.spelling(attribute))
        switch_names = {name for attrs in out.values() for name, kinds in attrs.items() if kinds & set(SWITCHES.values())}
        kept = {element: {name: sorted(kinds) for name, kinds in sorted(attrs.items()) if name in switch_names} for element, attrs in sorted(out.items())}
        return {element: attrs for element, attrs in kept.items() if attrs}


def _libvirt_version() -> str:
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libvirt-daemon"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("schemas", nargs="?", default="/usr/share/libvirt/schemas")
    args = parser.parse_args()
    attributes = Schemas(pathlib.Path(args.schemas)).attributes()
    document = {"source": f"libvirt's RNG schemas ({args.schemas}, libvirt-daemon {_libvirt_version()})", "attributes": attributes}
    json.dump(document, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
