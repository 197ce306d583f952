# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What every libvirt resource module shares: the outcome it reports, the option
normalisation the compare uses, and running a backend inside a module."""

from __future__ import annotations

import dataclasses
import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .connection import HAS_LIBVIRT, LIBVIRT_CONNECTION_ARGSPEC, LIBVIRT_IMPORT_ERROR, connect
from .errors import LibvirtError
from .schema import HAS_LXML, LXML_IMPORT_ERROR

__all__ = ["Outcome", "normalize_value", "run_resource_module", "split_options"]


@dataclasses.dataclass
class Outcome:
    """What a resource module reports: ``resource`` goes under the module's noun."""

    changed: bool
    resource: dict[str, t.Any]
    before: dict[str, t.Any]
    after: dict[str, t.Any]
    warnings: list[str] = dataclasses.field(default_factory=list)
    extra: dict[str, t.Any] = dataclasses.field(default_factory=dict)


def normalize_value(path: str, value: t.Any) -> t.Any:
    """One spelling for values libvirt rewrites: octal modes (0755 = 755), trailing
    slashes of paths, upper-case MAC addresses."""
    if not isinstance(value, str):
        return value
    leaf = path.rsplit(".", 1)[-1]
    if leaf == "mode" and ".permissions" in path:
        try:
            return int(value, 8)
        except ValueError:
            return value
    if leaf == "path" and len(value) > 1:
        return value.rstrip("/")
    if leaf in ("mac", "address") and value.count(":") == 5:
        return value.lower()
    return value


def split_options(params: dict[str, t.Any], schema_names: t.Collection[str]) -> dict[str, t.Any]:
    """The schema part of the module parameters."""
    return {name: params[name] for name in schema_names if name in params}


def run_resource_module(
    *,
    noun: str,
    argument_spec: dict[str, t.Any],
    run: t.Callable[[t.Any, dict[str, t.Any], bool], Outcome],
    **module_kwargs: t.Any,
) -> None:
    """Build the module, run ``run(conn, params, check_mode)`` and report its Outcome."""
    module = AnsibleModule(argument_spec={**LIBVIRT_CONNECTION_ARGSPEC, **argument_spec}, supports_check_mode=True, **module_kwargs)
    if not HAS_LIBVIRT:
        module.fail_json(msg=missing_required_lib("libvirt-python"), exception=LIBVIRT_IMPORT_ERROR)
    if not HAS_LXML:
        module.fail_json(msg=missing_required_lib("lxml"), exception=LXML_IMPORT_ERROR)
    try:
        with connect(module.params["uri"]) as conn:
            outcome = run(conn, module.params, module.check_mode)
    except LibvirtError as exc:
        module.fail_json(msg=str(exc))
    for warning in outcome.warnings:
        module.warn(warning)
    result: dict[str, t.Any] = {"changed": outcome.changed, noun: outcome.resource, **outcome.extra}
    if module._diff:
        result["diff"] = {"before": outcome.before, "after": outcome.after}
    module.exit_json(**result)
