# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""terraform-provider-libvirt 0.9 resources as the libvirt modules' tasks.

The modules take upstream's attributes key by key, so an instance's attributes are its task's
options once Terraform's nulls (attributes not set) and upstream's computed attributes are
left out. References between resources are resolved already: the state holds the values (a
disk's pool and volume, a backing store's path). A domain keeps its ``uuid``, and every MAC
address the state holds stays an option, so the task finds the domain and its interfaces as
they are. The options are checked as the module checks them before it touches anything
(its argument spec, then the schema, which names the option path of what it refuses), and
written under the names the modules document (an upstream alias such as ``io_thread_i_ds``
becomes ``io_thread_ids``)."""

from __future__ import annotations

import copy
import json
import os
import re
import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from .._libvirt import schema
from .._libvirt.connection import LIBVIRT_CONNECTION_ARGSPEC
from .._libvirt.domain import DOMAIN_ARGSPEC
from .._libvirt.errors import LibvirtError
from .._libvirt.firstboot_module import FIRSTBOOT_ARGSPECS
from .._libvirt.network import NETWORK_ARGSPEC
from .._libvirt.pool import POOL_ARGSPEC, split_refresh
from .._libvirt.volume import VOLUME_ARGSPEC
from .errors import NotConvertedError
from .libvirt08 import V08, Context08, convert_08_args, not_carried_08
from .tasks import Task, drop_nulls, unknown_attributes

if t.TYPE_CHECKING:
    from .tfstate import Instance

__all__ = ["LIBVIRT_DATA_SOURCES", "LIBVIRT_MODULES", "check_libvirt_args", "convert_libvirt", "libvirt_spec"]

# resource type -> (module, schema struct, argument spec, the validator's extra rules, prepare, rank)
_SPECS: dict[str, tuple[str, str | None, dict[str, t.Any], dict[str, t.Any], t.Callable[[dict[str, t.Any]], None] | None, int]] = {
    "libvirt_pool": ("libvirt_pool", "StoragePool", POOL_ARGSPEC, {}, split_refresh, 0),
    "libvirt_network": ("libvirt_network", "Network", NETWORK_ARGSPEC, {}, None, 1),
    "libvirt_cloudinit_disk": ("libvirt_cloudinit_disk", None, FIRSTBOOT_ARGSPECS["cloudinit_disk"], {}, None, 2),
    "libvirt_ignition": ("libvirt_ignition", None, FIRSTBOOT_ARGSPECS["ignition"], {}, None, 2),
    "libvirt_combustion": ("libvirt_combustion", None, FIRSTBOOT_ARGSPECS["combustion"], {}, None, 2),
    "libvirt_volume": ("libvirt_volume", "StorageVolume", VOLUME_ARGSPEC, {}, None, 3),
    "libvirt_domain": ("libvirt_domain", "Domain", DOMAIN_ARGSPEC, {"required_one_of": [("name", "uuid", "xml")]}, None, 5),
}
LIBVIRT_MODULES = {kind: spec[0] for kind, spec in _SPECS.items()}
# Data sources: read when a play runs, by these lookups (and *_info modules).
LIBVIRT_DATA_SOURCES = {
    "libvirt_node_info": "devinfra.providers.libvirt_node_info",
    "libvirt_node_devices": "devinfra.providers.libvirt_node_devices",
    "libvirt_node_device_info": "devinfra.providers.libvirt_node_device_info",
    "libvirt_domain_interface_addresses": "devinfra.providers.libvirt_domain_interface_addresses",
}

# Computed by upstream (ids, sizes libvirt reports): not options. A domain's uuid is one.
_COMPUTED = {
    "libvirt_domain": frozenset({"id"}),
    "libvirt_network": frozenset({"id", "uuid"}),
    "libvirt_pool": frozenset({"id", "uuid", "capacity", "capacity_unit", "allocation", "allocation_unit", "available", "available_unit"}),
    "libvirt_volume": frozenset({"id", "key", "path", "allocation", "allocation_unit", "physical", "physical_unit"}),
    "libvirt_cloudinit_disk": frozenset({"id", "path", "size"}),
    "libvirt_ignition": frozenset({"id", "path", "size"}),
    "libvirt_combustion": frozenset({"id", "path", "size"}),
}
# Top-level attributes of terraform-provider-libvirt 0.8, which 0.9 no longer has (a 0.8 object is
# converted by libvirt08; these in a 0.9 object make it one no provider wrote).
_LEGACY = {
    "libvirt_domain": frozenset(
        {"disk", "network_interface", "cloudinit", "firmware", "boot_device", "console", "filesystem", "graphics", "video", "tpm", "xml"}
        | {"machine", "arch", "emulator", "qemu_agent", "coreos_ignition", "kernel", "initrd", "cmdline", "nvram", "fw_cfg_name"}
    ),
    "libvirt_network": frozenset({"addresses", "mode", "dhcp", "xml", "dnsmasq_options"}),
    "libvirt_pool": frozenset({"path", "xml"}),
    "libvirt_volume": frozenset({"source", "base_volume_id", "base_volume_name", "base_volume_pool", "format", "size", "xml"}),
    "libvirt_cloudinit_disk": frozenset({"pool"}),
    "libvirt_ignition": frozenset({"pool"}),
    "libvirt_combustion": frozenset({"pool"}),
}
_LEGACY_WHAT = "terraform-provider-libvirt 0.8"
_NOT_OPTIONS = frozenset({"state", "uri", "xml"})
# The file upstream writes for each first-boot resource: <kind>-<id>.<suffix>.
_FIRSTBOOT_FILE = {
    "libvirt_cloudinit_disk": re.compile(r"cloudinit-[0-9a-f]{16}\.iso\Z"),
    "libvirt_ignition": re.compile(r"ignition-[0-9a-f]{16}\.ign\Z"),
    "libvirt_combustion": re.compile(r"script-[0-9a-f]{16}\.sh\Z"),
}


def _canonical(spec: dict[str, t.Any], args: dict[str, t.Any]) -> dict[str, t.Any]:
    """Top-level aliases under the option's own name (Ansible would take both)."""
    names = {alias: name for name, option in spec.items() for alias in option.get("aliases", ())}
    out: dict[str, t.Any] = {}
    for key, value in args.items():
        name = names.get(key, key)
        if name in out:
            raise NotConvertedError(f"{name}: given twice, as {name} and as {key}")
        out[name] = value
    return out


def libvirt_spec(module: str) -> dict[str, t.Any]:
    """The full argument spec of the libvirt module ``module`` (its option names)."""
    spec = next(spec for spec in _SPECS.values() if spec[0] == module)[2]
    return {**LIBVIRT_CONNECTION_ARGSPEC, **spec}


def check_libvirt_args(module: str, args: dict[str, t.Any]) -> tuple[dict[str, t.Any], set[str]]:
    """``args`` as module ``module`` takes them before it touches anything: its argument spec,
    then (a resource of the schema) what its objects and lists hold. Returns the options under
    their own names, the nested ones in the form the module reads, and the secret values found
    there. NotConvertedError names the option of what is refused."""
    kind = next(kind for kind, spec in _SPECS.items() if spec[0] == module)
    _module, struct, spec, rules, prepare, _rank = _SPECS[kind]
    full_spec = {**LIBVIRT_CONNECTION_ARGSPEC, **spec}
    result = ArgumentSpecValidator(full_spec, **rules).validate(copy.deepcopy(args))
    if result.error_messages:
        raise NotConvertedError(f"the module refuses its options: {result.error_messages[0]}")
    params = result.validated_parameters
    secrets: set[str] = set()
    try:
        if prepare is not None:
            prepare(params)
        if struct is not None:
            schema.validate_params(struct, params, spec, secrets)
    except LibvirtError as exc:
        raise NotConvertedError(f"the module refuses its options: {exc}") from None
    given = _canonical(spec, args)
    # An option with suboptions of its own (create, destroy) stays as given: Ansible's check
    # filled in its defaults, which the module applies again.
    return {key: value if "options" in spec.get(key, {}) else params.get(key, value) for key, value in given.items()}, secrets


def convert_libvirt(instance: Instance, version: str, context: Context08 | None = None) -> Task:
    """The task for ``instance``, written by terraform-provider-libvirt ``version`` (V08, V09);
    ``context``: what the state's other instances say (a 0.8 domain names them by id)."""
    module, _struct, spec, _rules, _prepare, rank = _SPECS[instance.type]
    if version == V08:
        checked, secrets = check_libvirt_args(module, convert_08_args(instance, context or Context08()))
        return Task(
            address=instance.address,
            module=module,
            args=checked,
            rank=rank,
            secrets=secrets,
            spec={**LIBVIRT_CONNECTION_ARGSPEC, **spec},
            not_carried=not_carried_08(instance),
        )
    attributes = drop_nulls(instance.attributes)
    args = {key: value for key, value in attributes.items() if key not in _COMPUTED[instance.type]}
    known = set(spec) | {alias for option in spec.values() for alias in option.get("aliases", ())}
    unknown_attributes(args, known - _NOT_OPTIONS, _LEGACY[instance.type], _LEGACY_WHAT)
    masked: tuple[str, ...] = ()
    if instance.type == "libvirt_volume":
        target = args.get("target")
        if isinstance(target, dict):
            # Where the pool puts the volume and its times: computed upstream, not options.
            args["target"] = {key: value for key, value in target.items() if key not in ("path", "timestamps")}
            if not args["target"]:
                del args["target"]
    elif instance.type in _FIRSTBOOT_FILE:
        path = instance.attributes.get("path")
        if isinstance(path, str) and os.path.isabs(path) and _FIRSTBOOT_FILE[instance.type].match(os.path.basename(path)):
            # The directory upstream wrote the file to: the module writes the same file name there.
            args["dest"] = os.path.dirname(path)
        masked = tuple(option for option in ("user_data", "meta_data", "network_config", "content") if option in args)
        _check_firstboot_content(instance.type, args)
    checked, secrets = check_libvirt_args(module, args)
    secrets |= {str(checked[option]) for option in masked if isinstance(checked.get(option), str)}
    return Task(
        address=instance.address,
        module=module,
        args=checked,
        rank=rank,
        secrets=secrets,
        masked_options=masked,
        spec={**LIBVIRT_CONNECTION_ARGSPEC, **spec},
    )


def _check_firstboot_content(kind: str, args: dict[str, t.Any]) -> None:
    """What the module refuses in the content before it writes a file (upstream wrote any)."""
    required = ("user_data", "meta_data") if kind == "libvirt_cloudinit_disk" else ("content",)
    for option in required:
        if not args.get(option):
            raise NotConvertedError(f"{option} is empty, which the module refuses")
    if kind == "libvirt_ignition":
        try:
            config = json.loads(args["content"])
        except ValueError:
            config = None
        if not isinstance(config, dict):
            raise NotConvertedError("content is not a JSON object, so not an Ignition config; the module refuses it (upstream wrote it as it was)")
