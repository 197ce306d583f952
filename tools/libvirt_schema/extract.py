# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read the facts the libvirt schema is built from out of a checkout of
libvirt/libvirt-go-xml-module (the libvirtxml version terraform-provider-libvirt pins):
every struct's fields with their Go types and xml tags, the unions its custom
(Un)MarshalXML code selects by a discriminator attribute, and the number formats of
its hex attributes. Writes them as JSON (our own format; no source is copied).

    python tools/libvirt_schema/extract.py CHECKOUT [--rev v1.11007.0] > tools/libvirt_schema/libvirtxml-facts.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

FILES = ("network.go", "storage_pool.go", "storage_vol.go", "storage_encryption.go", "domain.go")

_STRUCT_RE = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.S | re.M)
_ALIAS_RE = re.compile(r"^type ([A-Z]\w*) ([A-Z]\w*)$", re.M)
_FIELD_RE = re.compile(r"^\s*(\w+)(?:\s+([\w.*\[\]{}]+))?\s*(?:`([^`]*)`)?\s*(?://.*)?$")
_TAG_RE = re.compile(r'xml:"([^"]*)"')
_FUNC_RE = re.compile(r"^func \(\w+ \*(\w+)\) (UnmarshalXML|MarshalXML)\(.*?\n^\}", re.S | re.M)
_UINT_FMT_RE = re.compile(r'marshalUintAttr\(&start, "(\w+)", \w+\.\w+, "([^"]+)"\)')


def read(checkout: str, rev: str, name: str) -> str:
    return subprocess.run(["git", "-C", checkout, "show", f"{rev}:{name}"], check=True, capture_output=True, text=True).stdout


def structs_of(source: str) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for match in _STRUCT_RE.finditer(source):
        fields = []
        for raw in match.group(2).splitlines():
            line = raw.strip()
            if not line or line.startswith(("//", "/*")):
                continue
            field = _FIELD_RE.match(line)
            if not field:
                raise ValueError(f"{match.group(1)}: cannot read field line {line!r}")
            name, gotype, tags = field.groups()
            tag = _TAG_RE.search(tags or "")
            if gotype is None:  # embedded struct
                fields.append({"embed": name})
            else:
                fields.append({"name": name, "type": gotype, "xml": tag.group(1) if tag else None})
        out[match.group(1)] = {"fields": fields}
    for alias, target in _ALIAS_RE.findall(source):  # type X Y: X has Y's fields
        out.setdefault(alias, {"fields": [{"embed": target}]})
    return out


def _factory_branches(source: str, factory: str) -> dict[str, str]:
    """The branch a helper such as createChardevSource(typ) picks per value:
    `case "value": return &Holder{Branch: ...}`."""
    func = re.search(rf"^func {factory}\(\w+ string\) \*\w+ \{{\n(.*?)^\}}", source, re.S | re.M)
    if func is None:
        return {}
    branches: dict[str, str] = {}
    for value, branch in re.findall(r'case "([^"]+)":\s*\n\s*return &\w+\{\s*\n\s*(\w+):', func.group(1)):
        branches.setdefault(branch, value)
    return branches


def _two_level_union(body: str, getattrs: list[tuple[str, str]]) -> dict[str, object]:
    """A union selected by two attributes (hostdev's mode and type): branch -> [value, value]."""
    (outer_var, outer_attr), (inner_var, inner_attr) = getattrs
    branches: dict[str, list[str]] = {}
    outer = re.split(rf'\b{outer_var} == "([^"]+)"', body)
    for outer_value, segment in zip(outer[1::2], outer[2::2]):
        inner = re.split(rf'\b{inner_var} == "([^"]+)"', segment)
        for inner_value, rest in zip(inner[1::2], inner[2::2]):
            target = re.search(r"\ba\.(\w+) = &", re.split(r"\} else", rest)[0])
            if target:
                branches.setdefault(target.group(1), [outer_value, inner_value])
    return {"attr": [outer_attr, inner_attr], "field": None, "branches": branches, "default": None, "when_missing": None}


def unions_of(source: str) -> dict[str, dict[str, object]]:
    """Discriminated unions, read from UnmarshalXML: which attribute of the element being
    decoded selects the branch, the branch per value, and the branch used when the
    attribute is missing."""
    unions: dict[str, dict[str, object]] = {}
    for func in _FUNC_RE.finditer(source):
        struct, kind = func.group(1), func.group(2)
        body = func.group(0)
        if kind != "UnmarshalXML":
            continue
        getattrs = re.findall(r'(\w+), ok := getAttr\(start\.Attr, "(\w+)"\)', body)
        if len(getattrs) == 2:  # hostdev: mode, then type
            unions[struct] = _two_level_union(body, getattrs)
            continue
        var, name = getattrs[0] if getattrs else ("typ", None)
        if name is None:
            local = re.search(r'attr\.Name\.Local == "(\w+)" \{\s*\n\s*typ = attr\.Value', body)
            if not local:
                continue
            name = local.group(1)
        branches: dict[str, str] = {}
        holder = None
        factory = re.search(rf"\ba\.(\w+) = (\w+)\({var}\)", body)
        if factory:  # a.Source = createChardevSource(typ)
            holder, branches = factory.group(1), _factory_branches(source, factory.group(2))
        # Each `typ == "value"` block sets one branch: the first `a.X[.Y] = &...` in it.
        blocks = re.split(rf'\b{var} == "([^"]+)"', body)
        for value, rest in zip(blocks[1::2], blocks[2::2]):
            block = re.split(r"\} else", rest)[0]
            target = re.search(r"\ba((?:\.\w+)+) = &", block)
            if target is None:
                continue
            parts = target.group(1).split(".")[1:]
            holder = ".".join(parts[:-1]) or None
            branches.setdefault(parts[-1], value)
        if not branches:
            continue
        default = re.search(rf'if !ok \{{\s*\n\s*{var} = "([^"]+)"', body)
        missing = re.search(r"if !ok \{[^}]*?\ba(?:\.\w+)*\.(\w+) = &", body)
        unions[struct] = {
            "attr": name,
            "field": holder,
            "branches": branches,
            "default": default.group(1) if default else None,
            "when_missing": missing.group(1) if missing else None,
        }
    return unions


def uint_formats_of(source: str) -> dict[str, dict[str, str]]:
    formats: dict[str, dict[str, str]] = {}
    for func in _FUNC_RE.finditer(source):
        if func.group(2) != "MarshalXML":
            continue
        found = dict(_UINT_FMT_RE.findall(func.group(0)))
        if found:
            formats[func.group(1)] = found
    return formats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", help="a git checkout of libvirt/libvirt-go-xml-module")
    parser.add_argument("--rev", default="v1.11007.0")
    args = parser.parse_args()
    facts: dict[str, object] = {"source": f"libvirt/libvirt-go-xml-module {args.rev}", "files": list(FILES)}
    structs: dict[str, object] = {}
    unions: dict[str, object] = {}
    formats: dict[str, object] = {}
    for name in FILES:
        source = read(args.checkout, args.rev, name)
        structs.update(structs_of(source))
        unions.update(unions_of(source))
        formats.update(uint_formats_of(source))
    facts.update(structs=structs, unions=unions, uint_formats=formats)
    json.dump(facts, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
