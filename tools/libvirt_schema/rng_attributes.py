# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read what libvirt's RNG schemas allow as the value of each attribute (and of each element
that holds only text): for every element and attribute, each way it is spelled there -

- ``yesno`` (virYesNo, or a choice of exactly yes and no) or ``onoff`` (virOnOff, on and off);
- ``only:<word>`` when one of those words alone is allowed (a type of seclabel allows relabel="no");
- a list of the values when it is any other choice of fixed values (a disk's cache mode);
- ``other`` for anything else (a string, a number, a pattern, a choice that also takes those).

An attribute of a <define> counts for every element that uses the define, directly or through
other defines; an element and attribute spelled one way in one place and another elsewhere keeps
every spelling, and generate.py uses them only when they agree (no ``other`` among them). An
element's own text is written as the attribute ``#text``. Only the names that are a switch or a
choice somewhere are written (with all their uses). The result is JSON of our own format (no schema text is copied).

    python tools/libvirt_schema/rng_attributes.py [SCHEMA_DIR] > tools/libvirt_schema/rng-attributes.json

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
TEXT = "#text"
# Spelling = "yesno" | "onoff" | "only:<word>" | "other" | a tuple of values.
Spelling = t.Union[str, tuple[str, ...]]


def _owner(node: t.Any) -> t.Any:
    """The nearest <element> or <define> around an RNG node."""
    node = node.getparent()
    while node is not None and node.tag not in (f"{RNG}element", f"{RNG}define"):
        node = node.getparent()
    return node


def _children(node: t.Any) -> list[t.Any]:
    return [child for child in node if isinstance(child.tag, str) and child.tag.startswith(RNG)]


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
        """The literal values ``node``'s content allows, or None when it allows anything else too."""
        found: set[str] = set()
        children = _children(node)
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
                return None  # <data>, <text>, <empty>, <attribute>, <element>...
        return found

    def spelling(self, node: t.Any) -> Spelling:
        values = self.values(node)
        if not values:
            return "other"
        for words, name in SWITCHES.items():
            if values == words:
                return name
            if len(values) == 1 and values <= words:
                return f"only:{next(iter(values))}"
        return tuple(sorted(values))

    def elements_of(self, define: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found: set[str] = set()
        for user in self.users.get(define, ()):
            kind, name = user.split(":", 1)
            if kind == "element":
                found.add(name)
            elif name not in seen:
                found |= self.elements_of(name, seen | {define})
        return found

    def attributes(self) -> dict[str, dict[str, list[t.Any]]]:
        """element -> attribute (or #text) -> its spellings, for those with a switch or a choice somewhere."""
        out: dict[str, dict[str, set[Spelling]]] = {}
        for tree in self.trees:
            for attribute in tree.iter(f"{RNG}attribute"):
                owner = _owner(attribute)
                if owner is None or attribute.get("name") is None:
                    continue
                elements = {owner.get("name")} if owner.tag == f"{RNG}element" else self.elements_of(owner.get("name"))
                for element in elements:
                    if element:
                        out.setdefault(element, {}).setdefault(attribute.get("name"), set()).add(self.spelling(attribute))
            for element in tree.iter(f"{RNG}element"):
                if element.get("name"):
                    out.setdefault(element.get("name"), {}).setdefault(TEXT, set()).add(self.spelling(element))
        # Every use of a name that is a switch or a choice somewhere, so that a disagreement shows.
        names = {name for attrs in out.values() for name, kinds in attrs.items() if kinds - {"other"}}
        kept = {
            element: {name: sorted((list(s) if isinstance(s, tuple) else s for s in kinds), key=str) for name, kinds in sorted(attrs.items()) if name in names}
            for element, attrs in sorted(out.items())
        }
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
