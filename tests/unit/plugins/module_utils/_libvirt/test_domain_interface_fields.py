# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every domain field of the provider interface this collection implements is an option under
the interface's own name (or an alias of one), and the libvirt_domain guide's field -> option
table lists it with the option it is."""

from __future__ import annotations

import pathlib
import re
import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import domain, schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import STRUCTS

HERE = pathlib.Path(__file__).resolve().parent
FIELDS = [line.strip() for line in (HERE / "domain_interface_fields.txt").read_text().splitlines() if line.strip() and not line.startswith("#")]
GUIDE = HERE.parents[4] / "docs" / "docsite" / "rst" / "libvirt_domain.rst"
# The interface's neutral prefixes for hypervisor namespaces.
PREFIXES = {"hvA": "qemu", "hvB": "bhyve", "hvC": "xen", "hvD": "vmware", "ctA": "lxc"}
# Outputs of the domain resource: where the module returns them.
OUTPUTS = {"domainId": "id"}


def snake(name: str) -> str:
    """The interface's camelCase name as snake_case (hvACommandline -> qemu_commandline)."""
    for prefix, real in PREFIXES.items():
        if name.startswith(prefix) and name[len(prefix)].isupper():
            return f"{real}_{snake(name[len(prefix)].lower() + name[len(prefix) + 1 :])}"
    out = []
    for i, char in enumerate(name):
        if i and char.isupper() and (name[i - 1].islower() or name[i - 1].isdigit() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(char.lower())
    return "".join(out)


def option_path(field: str) -> str:
    """The option an interface field is, by its options' own names (``[]`` after a list):
    each step's snake_case must be an option or an alias of one."""
    struct: str | None = "Domain"
    spec: dict[str, t.Any] | None = None  # below a module option (create, destroy...): its argument spec
    out = []
    for step in field.split("."):
        is_list = step.endswith("[]")
        name = snake(step.removesuffix("[]"))
        if struct == "Domain" and step in OUTPUTS:
            name = OUTPUTS[step]
            assert any(e["name"] == name and e.get("computed") for e in STRUCTS["Domain"]["fields"]), field  # read into the result
        elif struct is not None:
            names = {n: e for e in STRUCTS[struct]["fields"] for n in (e["name"], *e.get("aliases", ()))}
            if name in names:
                name, struct = names[name]["name"], names[name].get("struct")
            else:
                assert struct == "Domain" and name in domain.DOMAIN_ARGSPEC, f"{field}: {name} is no option of {struct}"
                struct, spec = None, domain.DOMAIN_ARGSPEC[name]
        else:
            assert spec is not None and name in spec.get("options", {}), f"{field}: {name} is no option"
            spec = spec["options"][name]
        out.append(name + ("[]" if is_list else ""))
    return ".".join(out)


def test_every_interface_field_is_an_option() -> None:
    # One test for all of them (ansible-test runs each test in a fork of its own); every field
    # is tried, and the failure names each field that is no option.
    failures = []
    for field in FIELDS:
        try:
            option_path(field)
        except Exception as exc:  # a field that is no option: keep it, try the others
            failures.append(f"{field}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)


def test_the_list_holds_what_the_interface_names() -> None:
    assert len(FIELDS) == len(set(FIELDS)) > 300
    assert {"secLabels", "sysInfos", "os.bootDevices", "cpuTune.vcpuPins[].cpuSet", "devices.cryptos", "devices.audios[].oss.tryMMap"} <= set(FIELDS)


def test_the_interface_names_take_the_interface_forms() -> None:
    options = schema.validate("Domain", {"name": "d", "type": "kvm", "os": {"boot_devices": ["hd", "network"]}, "sys_infos": [], "sec_labels": []}, path="")
    assert options == {"name": "d", "type": "kvm", "os": {"boot_devices": [{"dev": "hd"}, {"dev": "network"}]}, "sys_info": [], "sec_labels": []}


def _literals(text: str) -> list[str]:
    return re.findall(r"``([^`]+)``", text)


def _guide_rows() -> list[tuple[list[str], list[str], list[str], list[str]]]:
    """The rows of the guide's field -> option table: (interface containers, interface fields,
    option containers, options). A cell is ``container``, ...: ``field``, ... or ``field``, ..."""
    text = GUIDE.read_text()
    table = text[text.index("Interface field → option") :]
    table = table[: table.index("\n\n", table.index(".. list-table::") + 40)]
    rows = []
    for row in table.split("\n   * - ")[2:]:  # after the header
        cells = [cell.strip() for cell in re.split(r"\n     - ?", row)]

        def split(cell: str) -> tuple[list[str], list[str]]:
            containers, sep, fields = cell.partition(": ")
            return (_literals(containers), _literals(fields)) if sep else ([""], _literals(containers))

        rows.append((*split(cells[0]), *split(cells[1])))
    return rows


def test_the_guide_lists_every_interface_field_with_its_option() -> None:
    listed: dict[str, list[str]] = {}  # interface field -> the options cells of its rows
    for containers, fields, option_containers, options in _guide_rows():
        assert len(containers) == len(option_containers), (containers, option_containers)
        for container, option_container in zip(containers, option_containers):
            for field in fields:
                path = f"{container}.{field}" if container else field
                expected = option_path(path)
                assert expected.rpartition(".")[0] == option_container, f"the guide gives {path} under {option_container}, it is {expected}"
                assert expected.rpartition(".")[2].removesuffix("[]") in options, f"the guide does not name {expected} for {path}"
                listed.setdefault(path, [])
    assert sorted(set(FIELDS) - set(listed)) == []
