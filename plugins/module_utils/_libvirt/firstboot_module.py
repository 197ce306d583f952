# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The body the three first-boot modules share: options, checks, one backend call, report."""

from __future__ import annotations

import contextlib
import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .._common.plan import changed_paths, publish_hidden_plan, refusal
from .errors import LibvirtError, LibvirtValidationError
from .firstboot import CLOUDINIT_DISK, KINDS, apply, desired_plan, remove, validate
from .iso import HAS_PYCDLIB, PYCDLIB_IMPORT_ERROR
from .uri import LIBVIRT_CONNECTION_ARGSPEC

if t.TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["FIRSTBOOT_ARGSPECS", "run_firstboot_module"]

_COMMON: dict[str, dict[str, t.Any]] = {
    "name": {"type": "str", "required": True},
    "dest": {"type": "path"},
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
    "pool": {"type": "str"},
    "volume": {"type": "str"},
}
# The content options are no_log, as ansible.builtin.copy's content: a cloud-config, a
# combustion script or an Ignition config carries passwords and keys, and at -v the task's
# invocation would echo it. The result and the diff show their sha256 and size instead.
_FILE: dict[str, dict[str, t.Any]] = {
    "content": {"type": "str", "no_log": True},
    "format": {"type": "str", "default": "file", "choices": ["file", "config_drive"]},
}
FIRSTBOOT_ARGSPECS: dict[str, dict[str, dict[str, t.Any]]] = {
    "cloudinit_disk": {
        **_COMMON,
        "user_data": {"type": "str", "no_log": True},
        "meta_data": {"type": "str", "no_log": True},
        "network_config": {"type": "str", "no_log": True},
    },
    "combustion": {**_COMMON, **_FILE},
    "ignition": {**_COMMON, **_FILE},
}


class _MissingLibraryError(Exception):
    pass


def run_firstboot_module(key: str) -> None:
    """Run the module of the first-boot kind ``key`` (cloudinit_disk, combustion, ignition)."""
    kind = KINDS[key]
    required = ["user_data", "meta_data"] if kind is CLOUDINIT_DISK else ["content"]
    module = AnsibleModule(
        argument_spec={**LIBVIRT_CONNECTION_ARGSPEC, **FIRSTBOOT_ARGSPECS[key]},
        required_if=[("state", "present", required)],
        supports_check_mode=True,
    )
    params = module.params
    if not HAS_PYCDLIB and (kind is CLOUDINIT_DISK or params.get("format") == "config_drive"):
        module.fail_json(msg=missing_required_lib("pycdlib"), exception=PYCDLIB_IMPORT_ERROR)

    @contextlib.contextmanager
    def open_connection() -> Iterator[t.Any]:
        # libvirt-python only for a pool volume: a file written to dest alone needs no connection.
        from .connection import HAS_LIBVIRT, connect  # noqa: PLC0415

        if not HAS_LIBVIRT:
            raise _MissingLibraryError()
        with connect(params["uri"]) as conn:
            yield conn

    try:
        validate(kind, params)
        if params["state"] == "present":
            result = apply(desired_plan(kind, params), check_mode=module.check_mode, connect=open_connection)
        else:
            result = remove(kind, params, check_mode=module.check_mode, connect=open_connection)
    except _MissingLibraryError:
        from .connection import LIBVIRT_IMPORT_ERROR  # noqa: PLC0415

        module.fail_json(msg=missing_required_lib("libvirt-python"), exception=LIBVIRT_IMPORT_ERROR)
    except LibvirtError as exc:
        module.fail_json(msg=str(exc), **refusal(isinstance(exc, LibvirtValidationError)))
    for warning in result.warnings:
        module.warn(warning)
    extra: dict[str, t.Any] = {"diff": result.diff} if module._diff else {}
    before, after = result.diff.get("before") or {}, result.diff.get("after") or {}
    if not result.changed:
        operation = "none"
    elif params["state"] != "present":
        operation = "delete"
    else:
        operation = "replace" if before.get("exists") else "create"  # first-boot content is written anew, as upstream's force new
    plan = {
        "operation": operation,
        "address": f"libvirt_{key}.{params.get('name') or ''}",
        "changed_paths": changed_paths(before, after) if operation == "replace" else [],
    }
    publish_hidden_plan(module, plan)
    module.exit_json(changed=result.changed, **{key: result.resource}, **plan, **extra)
