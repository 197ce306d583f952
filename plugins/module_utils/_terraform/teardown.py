# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The counterpart of ``terraform destroy``: one ``state: absent`` task for each object of the
state, named only by what finds exactly that object (a domain by its UUID, a volume by pool
and name, a network or a pool by name, a workspace resource by its key), never by a pattern,
so nothing the state did not hold is touched.

An object is removed once everything that depends on it is: the state's ``dependencies``
(and what the import's own order adds, an agent before what names it), reversed, ties going
by the state's order. A libvirt object is removed even when its create task could not be
written, as long as the state says which object it is: Terraform would destroy it too."""

from __future__ import annotations

import heapq
import re
import typing as t

from .._common.text import one_line_problem
from .errors import NotConvertedError
from .libvirt import check_libvirt_args, libvirt_spec
from .libvirt08 import V08, version_of
from .tasks import Task
from .yaml_text import Trusted

if t.TYPE_CHECKING:
    from .tfstate import Instance

__all__ = ["reverse_order", "teardown_task"]

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
# The options that find a workspace resource (its key in the workspace state).
_CODER_IDENTITY = {
    "workspace_agent": ("name",),
    "workspace_app": ("slug",),
    "workspace_env": ("agent_id", "name", "key"),
    "workspace_script": ("agent_id", "display_name", "key"),
    "workspace_devcontainer": ("name",),
    "workspace_external_agent": ("agent_id",),
    "workspace_metadata": ("resource_id",),
}
_ABSENT = Trusted("absent")
_STATE = {"state": {"type": "str"}}
_FIRSTBOOT = ("libvirt_cloudinit_disk", "libvirt_ignition", "libvirt_combustion")
# How an object is stopped or its storage treated on removal: upstream's own blocks, as imported.
_KEPT = {"libvirt_domain": ("destroy",), "libvirt_pool": ("destroy",)}


def _text(attributes: dict[str, t.Any], key: str) -> str | None:
    """A name of the object; one the module would refuse is refused here (the playbook is one valid document)."""
    value = attributes.get(key)
    if not isinstance(value, str) or not value:
        return None
    problem = one_line_problem(value)
    if problem:
        raise NotConvertedError(f"its {key} contains {problem}")
    return value


def _libvirt_identity(instance: Instance, version: str) -> tuple[str, dict[str, t.Any]]:
    """The module and the options that name the object ``instance`` is (NotConvertedError: the
    state does not say which object it is)."""
    attributes, kind = instance.attributes, instance.type
    if kind not in ("libvirt_domain", "libvirt_network", "libvirt_pool", "libvirt_volume", *_FIRSTBOOT):
        raise NotConvertedError(f"no removal of a {kind} is known")
    name = _text(attributes, "name")
    old = (version_of(instance) or version) == V08
    if kind == "libvirt_domain":
        uuid = _text(attributes, "uuid") or (_text(attributes, "id") if old else None)
        if uuid is not None and _UUID.match(uuid):
            return "libvirt_domain", {"uuid": uuid}
        if name is None:
            raise NotConvertedError("the state holds neither its UUID nor its name")
        return "libvirt_domain", {"name": name}
    if name is None:
        raise NotConvertedError("the state holds no name for it")
    if kind in ("libvirt_network", "libvirt_pool"):
        return kind, {"name": name}
    # A volume; 0.8 wrote first-boot files as volumes of a pool ("default" when none was given).
    pool = _text(attributes, "pool") or ("default" if old else None)
    if pool is None:
        raise NotConvertedError("the state holds no pool for it")
    return "libvirt_volume", {"name": name, "pool": pool}


def teardown_task(instance: Instance, converted: Task | None, version: str, mixed: str | None) -> Task:
    """The ``state: absent`` task for ``instance`` (``converted``: its create task, if any)."""
    if converted is not None and converted.module.startswith("workspace_"):
        identity = {key: converted.args[key] for key in _CODER_IDENTITY[converted.module] if key in converted.args}
        return Task(address=instance.address, module=converted.module, args={**identity, "state": _ABSENT}, rank=converted.rank, spec=_STATE | converted.spec)
    if not instance.type.startswith("libvirt_"):
        raise NotConvertedError("its create task was not written, so the workspace resource it would be is not known")
    if mixed:
        raise NotConvertedError(mixed)
    if instance.type in _FIRSTBOOT and (version_of(instance) or version) != V08:
        if converted is None:
            raise NotConvertedError("its create task was not written, so where its file is is not known")
        args: dict[str, t.Any] = {key: converted.args[key] for key in ("name", "dest", "pool", "volume") if key in converted.args}
        module = converted.module
    else:
        module, args = _libvirt_identity(instance, version)
        if converted is not None and converted.module == module:
            args.update((key, converted.args[key]) for key in _KEPT.get(module, ()) if key in converted.args)
    checked, _secrets = check_libvirt_args(module, {**args, "state": "absent"})
    return Task(address=instance.address, module=module, args={**checked, "state": _ABSENT}, rank=0, spec=libvirt_spec(module))


def reverse_order(addresses: list[str], needs: dict[str, set[str]]) -> list[str]:
    """``addresses`` (in the state's order) in an order that removes each one after everything
    that needs it; where that leaves a choice, in the state's order. A cycle (which Terraform
    never writes) leaves the rest in the reverse of the state's order."""
    position = {address: index for index, address in enumerate(addresses)}
    needed_by: dict[str, set[str]] = {address: set() for address in addresses}
    for address in addresses:
        for other in needs.get(address, set()):
            if other in needed_by and other != address:
                needed_by[other].add(address)
    waiting = {address: len(users) for address, users in needed_by.items()}
    ready = [(position[address], address) for address, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        _position, address = heapq.heappop(ready)
        out.append(address)
        for other in needs.get(address, set()):
            if other in waiting and other != address:
                waiting[other] -= 1
                if waiting[other] == 0:
                    heapq.heappush(ready, (position[other], other))
    if len(out) < len(addresses):
        done = set(out)
        out.extend(reversed([address for address in addresses if address not in done]))
    return out
