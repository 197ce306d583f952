# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Upstream's HCL configurations (files/cases/*.tf) as the collection's module calls.

``upstream_hcl_cases`` parses each file with python-hcl2 and turns every ``resource`` and ``data``
block into a step: the module that ports it and its options. The option names are upstream's
attribute names already; what changes is what points at upstream's machine: the names get the
test prefix, pool directories go under the target's scratch directory, pool ``default`` and the
networks ``default``/``custom-network`` are the test host's, downloads and firmware paths are the
test files, ``kvm`` is the test host's domain type. A reference to another block
(``libvirt_volume.base.path``) stays a reference, resolved by ``upstream_hcl_resolve`` from what
the module of that block returned when the step runs."""

from __future__ import annotations

import os
import re
import typing as t

from ansible.errors import AnsibleFilterError

try:
    import hcl2
    from hcl2.utils import SerializationOptions
except ImportError:  # the target's requirement; reported when the filter runs
    hcl2 = None

# Each block kind: the module that ports it, the key of its result that holds the resource, and
# whether it is a data source (run once, never changes anything).
MODULES = {
    "libvirt_pool": ("devinfra.providers.libvirt_pool", "pool", False),
    "libvirt_volume": ("devinfra.providers.libvirt_volume", "volume", False),
    "libvirt_network": ("devinfra.providers.libvirt_network", "network", False),
    "libvirt_cloudinit_disk": ("devinfra.providers.libvirt_cloudinit_disk", "cloudinit_disk", False),
    "libvirt_domain": ("devinfra.providers.libvirt_domain", "domain", False),
    "libvirt_node_info": ("devinfra.providers.libvirt_node_info", "", True),
    "libvirt_node_devices": ("devinfra.providers.libvirt_node_devices_info", "", True),
    "libvirt_node_device_info": ("devinfra.providers.libvirt_node_device_info", "", True),
}
# The order a case's steps run in (what a block can refer to runs before it); removal is the reverse.
ORDER = ("libvirt_pool", "libvirt_network", "libvirt_cloudinit_disk", "libvirt_volume", "libvirt_domain")
_REF = re.compile(r"^\$\{((?:data\.)?libvirt_\w+\.\w+)((?:\.\w+|\[\d+\])+)\}$")
_UPSTREAM_NETWORKS = ("default", "custom-network")
_RUNNING_MEMORY_KIB = 262144  # a started domain of a case gets at most this (the host is small)


def _load(path: str) -> dict[str, t.Any]:
    if hcl2 is None:
        raise AnsibleFilterError("upstream_hcl_cases needs python-hcl2 on the controller (tests/integration/requirements.txt)")
    options = SerializationOptions(with_comments=False, explicit_blocks=False, preserve_heredocs=False, strip_string_quotes=True)
    with open(path, encoding="utf-8") as handle:
        return t.cast("dict[str, t.Any]", hcl2.loads(handle.read(), serialization_options=options))


def _source(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.readline().lstrip("# ").rstrip("\n")


def _blocks(tree: dict[str, t.Any], key: str) -> list[tuple[str, str, dict[str, t.Any]]]:
    out = []
    for entry in tree.get(key, []):
        for kind, labelled in entry.items():
            for label, body in labelled.items():
                out.append((kind.strip('"'), label.strip('"'), body))
    return out


def _walk(value: t.Any, change: t.Callable[[list[str | int], t.Any], t.Any], where: list[str | int]) -> t.Any:
    if isinstance(value, dict):
        return {k: _walk(v, change, [*where, k]) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, change, [*where, i]) for i, v in enumerate(value)]
    return change(where, value)


class _Converter:
    def __init__(self, case_id: str, settings: dict[str, t.Any]) -> None:
        self.case_id = case_id
        self.s = settings
        self.names: dict[str, str] = {}

    def name(self, kind: str, label: str, upstream: str) -> str:
        key = f"{kind}.{label}"
        if key not in self.names:
            ext = os.path.splitext(upstream)[1] if kind == "libvirt_volume" else ""
            self.names[key] = f"{self.s['prefix']}-{self.case_id}-{label}{ext}"
        return self.names[key]

    def value(self, where: list[str | int], value: t.Any) -> t.Any:
        if isinstance(value, str):
            ref = _REF.match(value)
            if ref:
                return {"__ref__": ref.group(1), "__path__": re.findall(r"\w+|\d+", ref.group(2))}
            if value.startswith("${"):
                raise AnsibleFilterError(f"{self.case_id}: an HCL expression the converter does not take: {value}")
            return self.s["paths"].get(value, value)
        return value

    def convert(self, kind: str, label: str, body: dict[str, t.Any]) -> dict[str, t.Any]:
        options = _walk(body, self.value, [])
        if "name" in options and not MODULES[kind][2]:
            options["name"] = self.name(kind, label, options["name"])
        getattr(self, "_" + kind)(options)
        return t.cast("dict[str, t.Any]", options)

    def _libvirt_pool(self, options: dict[str, t.Any]) -> None:
        target = options.setdefault("target", {})
        target["path"] = f"{self.s['scratch']}/{options['name']}"

    def _pool_name(self, options: dict[str, t.Any], key: str = "pool") -> None:
        if options.get(key) == "default":
            options[key] = self.s["pool"]

    def _libvirt_volume(self, options: dict[str, t.Any]) -> None:
        self._pool_name(options)
        content = (options.get("create") or {}).get("content") or {}
        url = content.get("url")
        if isinstance(url, str):  # a download or a file of upstream's machine: the test image
            qcow2 = ((options.get("target") or {}).get("format") or {}).get("type") == "qcow2"
            content["url"] = self.s["qcow2_image"] if qcow2 else self.s["raw_image"]

    def _libvirt_network(self, options: dict[str, t.Any]) -> None:
        pass

    def _libvirt_cloudinit_disk(self, options: dict[str, t.Any]) -> None:
        options["dest"] = f"{self.s['scratch']}/cloudinit"

    def _libvirt_domain(self, options: dict[str, t.Any]) -> None:
        if options.get("type") == "kvm":
            options["type"] = self.s["domain_type"]
        if options.get("running"):
            unit = options.get("memory_unit", "KiB")
            factor = {"KiB": 1, "MiB": 1024, "GiB": 1024 * 1024}.get(unit, 1)
            if options.get("memory", 0) * factor > _RUNNING_MEMORY_KIB:
                options["memory"] = _RUNNING_MEMORY_KIB // factor
            options["vcpu"] = 1
        for interface in (options.get("devices") or {}).get("interfaces") or []:
            network = ((interface.get("source") or {}).get("network")) or {}
            if network.get("network") in _UPSTREAM_NETWORKS:
                network["network"] = self.s["network"]
        for disk in (options.get("devices") or {}).get("disks") or []:
            volume = (disk.get("source") or {}).get("volume")
            if volume:
                self._pool_name(volume)

    def _libvirt_node_info(self, options: dict[str, t.Any]) -> None:
        pass

    _libvirt_node_devices = _libvirt_node_device_info = _libvirt_node_info


def upstream_hcl_cases(paths: list[str], settings: dict[str, t.Any]) -> list[dict[str, t.Any]]:
    """One case a file: its id, where it came from, its steps, and what the exceptions table says."""
    exceptions = settings.get("exceptions") or {}
    cases = []
    for number, path in enumerate(sorted(paths)):
        case_id = os.path.basename(path)[: -len(".tf")]
        exception = exceptions.get(case_id) or {}
        steps = []
        if not exception.get("skip"):
            steps = _steps(case_id, _load(path), _Converter(f"{number:02d}", settings))
        cases.append({
            "id": case_id,
            "source": _source(path),
            "steps": steps,
            "skip": exception.get("skip", ""),
            "known_failure": exception.get("known_failure", ""),
        })  # fmt: skip
    unknown = sorted(set(exceptions) - {case["id"] for case in cases})
    if unknown:
        raise AnsibleFilterError(f"the exceptions table names cases that are not in files/cases: {', '.join(unknown)}")
    return cases


def _steps(case_id: str, tree: dict[str, t.Any], converter: _Converter) -> list[dict[str, t.Any]]:
    steps = []
    for block, data in (("resource", False), ("data", True)):
        for kind, label, body in _blocks(tree, block):
            if kind not in MODULES:
                raise AnsibleFilterError(f"{case_id}: no module ports {block} {kind}")
            module, result_key, is_data = MODULES[kind]
            steps.append({
                "key": ("data." if data else "") + f"{kind}.{label}",
                "kind": kind,
                "module": module,
                "result_key": result_key,
                "data": is_data,
                "options": converter.convert(kind, label, body),
            })  # fmt: skip
    steps.sort(key=lambda step: ORDER.index(step["kind"]) if step["kind"] in ORDER else -1)
    return steps


def upstream_hcl_resolve(options: t.Any, made: dict[str, t.Any], steps: list[dict[str, t.Any]]) -> t.Any:
    """The options with each reference replaced by what it names: in the referenced step's result
    (its resource, then the whole result), else in the options that step was given (all there is
    when the step has not run: the removal after a case that failed early)."""
    by_key = {step["key"]: step for step in steps}

    def look(value: t.Any, path: list[str]) -> t.Any:
        for part in path:
            if isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            elif isinstance(value, dict) and part in value:
                value = value[part]
            else:
                return None
        return value

    def resolve(value: t.Any) -> t.Any:
        if isinstance(value, dict) and "__ref__" in value:
            key, path = value["__ref__"], value["__path__"]
            step = by_key[key]
            result = made.get(key) or {}
            for candidate in (result.get(step["result_key"]) if step["result_key"] else None, result, step["options"]):
                found = look(candidate, path)
                if found is not None:
                    return resolve(found)
            raise AnsibleFilterError(f"reference {key}.{'.'.join(path)}: found in neither the result nor the options")
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [resolve(v) for v in value]
        return value

    return resolve(options)


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"upstream_hcl_cases": upstream_hcl_cases, "upstream_hcl_resolve": upstream_hcl_resolve}
