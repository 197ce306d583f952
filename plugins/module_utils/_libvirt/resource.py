# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What every libvirt resource module shares: the outcome it reports, converging a persistent
object, and running a backend inside a module."""

from __future__ import annotations

import copy
import dataclasses
import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .._common.plan import PLAN_OPERATIONS, changed_paths, publish_hidden_plan
from .._common.secrets import url_passwords
from . import schema
from .connection import HAS_LIBVIRT, LIBVIRT_CONNECTION_ARGSPEC, LIBVIRT_IMPORT_ERROR, connect, libvirt
from .errors import LibvirtError, is_not_found, is_unsupported
from .schema import HAS_LXML, LXML_IMPORT_ERROR

__all__ = ["Outcome", "Persistent", "changed_paths", "converge", "definition_xml", "lookup_by_name", "plan_fields", "run_resource_module", "sync_lifecycle"]


@dataclasses.dataclass
class Outcome:
    """What a resource module reports: ``resource`` goes under the module's noun."""

    changed: bool
    resource: dict[str, t.Any]
    before: dict[str, t.Any]
    after: dict[str, t.Any]
    warnings: list[str] = dataclasses.field(default_factory=list)
    extra: dict[str, t.Any] = dataclasses.field(default_factory=dict)


def lookup_by_name(lookup: t.Callable[[str], t.Any], name: str, what: str) -> t.Any:
    """The object named ``name``, or None when libvirt says there is none."""
    try:
        return lookup(name)
    except libvirt.libvirtError as exc:
        if is_not_found(exc):
            return None
        raise LibvirtError(f"Failed to look up {what} '{name}': {exc}") from exc


def definition_xml(obj: t.Any, inactive_flag: int) -> str:
    """The persistent (inactive) definition. Drivers that keep no separate one (the test
    driver) reject the flag; their only definition is then the answer."""
    try:
        xml: str = obj.XMLDesc(inactive_flag)
    except libvirt.libvirtError as exc:
        if not is_unsupported(exc):
            raise
        xml = obj.XMLDesc(0)
    return xml


def sync_lifecycle(obj: t.Any, wanted: dict[str, bool | None], *, start: t.Callable[[], t.Any]) -> None:
    """Enforce ``autostart`` and ``running`` where they are set (None = not managed)."""
    if wanted.get("autostart") is not None and bool(obj.autostart()) != wanted["autostart"]:
        obj.setAutostart(1 if wanted["autostart"] else 0)
    if wanted.get("running") and not obj.isActive():
        start()
    elif wanted.get("running") is False and obj.isActive():
        obj.destroy()


def run_resource_module(
    *,
    noun: str,
    argument_spec: dict[str, t.Any],
    run: t.Callable[[t.Any, dict[str, t.Any], bool], Outcome],
    schema_struct: str | None = None,
    prepare: t.Callable[[dict[str, t.Any]], None] | None = None,
    **module_kwargs: t.Any,
) -> None:
    """Build the module, run ``run(conn, params, check_mode)`` and report its Outcome.
    ``schema_struct``: the schema struct whose top-level options ``argument_spec`` holds;
    what those options hold is checked here (schema.validate_params), before anything is
    touched, with messages naming the option path, and secrets found there are no_log.
    ``prepare``: turns a module option that is not only the schema's into its parts first."""
    module = AnsibleModule(argument_spec={**LIBVIRT_CONNECTION_ARGSPEC, **argument_spec}, supports_check_mode=True, **module_kwargs)
    module.no_log_values.update(url_passwords(module.params))  # create.content.url, a source URL...
    if prepare is not None:
        try:
            prepare(module.params)
        except LibvirtError as exc:
            module.fail_json(msg=str(exc))
    if schema_struct is not None:
        secrets: set[str] = set()
        try:
            schema.validate_params(schema_struct, module.params, argument_spec, secrets)
        except LibvirtError as exc:
            # The secrets past the refused option too: the failure shows the task's arguments.
            module.no_log_values.update(schema.secrets_in(schema_struct, module.params))
            module.fail_json(msg=str(exc))
        module.no_log_values.update(secrets)
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
    result: dict[str, t.Any] = {"changed": outcome.changed, noun: outcome.resource, **plan_fields(noun, module.params, outcome), **outcome.extra}
    if module._diff:
        result["diff"] = {"before": outcome.before, "after": outcome.after}
    publish_hidden_plan(module, result)
    module.exit_json(**result)


MODULE_OF_NOUN = {"snapshot": "libvirt_domain_snapshot"}
# The objects named inside another one: the address names both, "<outer>/<name>".
OUTER_OF_NOUN = {"volume": "pool", "snapshot": "domain"}


def plan_fields(noun: str, params: dict[str, t.Any], outcome: Outcome) -> dict[str, t.Any]:
    """``operation``, ``address`` and ``changed_paths`` as Terraform's plan would show them:
    the address is ``<module>.<name>``, ``<module>.<outer>/<name>`` for a volume (its pool) or a
    snapshot (its domain)."""
    operation = outcome.extra.get("operation")
    if operation not in PLAN_OPERATIONS:
        if outcome.changed and outcome.extra.get("replaced"):
            operation = "replace"
        elif not outcome.changed:
            operation = "none"
        elif not outcome.before and outcome.after:
            operation = "create"
        elif outcome.before and not outcome.after:
            operation = "delete"
        else:
            operation = "update"
    name = params.get("name") or outcome.resource.get("name") or params.get("uuid") or outcome.resource.get("uuid") or ""
    outer = OUTER_OF_NOUN.get(noun)
    if outer and params.get(outer):
        name = f"{params[outer]}/{name}"
    paths = changed_paths(outcome.before, outcome.after) if operation in ("update", "replace") else []
    return {"operation": operation, "address": f"{MODULE_OF_NOUN.get(noun, 'libvirt_' + noun)}.{name}", "changed_paths": paths}


@dataclasses.dataclass
class Persistent:
    """How to handle one kind of persistent libvirt object (network, pool) in converge()."""

    what: str  # "network", "storage pool"
    struct: str  # its schema struct
    inactive_flag: int  # XMLDesc flag for the persistent definition
    define: t.Callable[[str], t.Any]  # define XML, return the object
    start: t.Callable[[t.Any], t.Any]
    describe: t.Callable[[t.Any], dict[str, t.Any]]
    # Apply these changed option paths to the running object in place; False when it cannot.
    update_live: t.Callable[[t.Any, dict[str, t.Any], t.Any, list[str], bool], bool] | None = None


def converge(kind: Persistent, obj: t.Any, desired: dict[str, t.Any], params: dict[str, t.Any], check_mode: bool) -> Outcome:
    """Bring an existing object to ``desired`` and to the wanted running/autostart state:
    live updates where the kind can, else a redefinition with the same UUID, and a restart
    when the running object still differs from its definition and ``restart`` is set."""
    name = params["name"]
    current_root = schema.parse(definition_xml(obj, kind.inactive_flag))
    current = schema.read(kind.struct, current_root, like=desired)
    paths = schema.compare(kind.struct, desired, current)
    lifecycle = {"running": params.get("running"), "autostart": params.get("autostart")}
    managed = [k for k, v in lifecycle.items() if v is not None]
    state = {"running": bool(obj.isActive()), "autostart": bool(obj.autostart())}
    before = {**current, **{k: state[k] for k in managed}}
    after = {**desired, **{k: lifecycle[k] for k in managed}}
    extra: dict[str, t.Any] = {}
    try:
        live = bool(paths) and kind.update_live is not None and kind.update_live(obj, desired, current_root, paths, check_mode)
        if paths:
            extra["update_method"] = "update" if live else "redefine"
        if paths and not live and not check_mode:
            new_root = copy.deepcopy(current_root)
            schema.apply(kind.struct, new_root, desired, path="")
            obj = kind.define(schema.serialize(new_root))
        # What the running object still lacks of the definition (after any redefinition).
        pending: list[str] = []
        if state["running"] and lifecycle["running"] is not False:  # a stopped object starts with its definition
            running_now = schema.read(kind.struct, schema.parse(obj.XMLDesc(0)), like=desired)
            pending = schema.compare(kind.struct, desired, running_now)
            if check_mode and live:
                pending = [p for p in pending if p not in paths]
        restart = bool(pending) and params.get("restart", False)
        if restart:
            extra["update_method"] = extra["update_method"] + "+restart" if "update_method" in extra else "restart"
            if not check_mode:
                obj.destroy()
                kind.start(obj)
        changed = bool(paths) or restart or any(lifecycle[k] != state[k] for k in managed)
        warnings: list[str] = []
        if pending and not restart:
            extra["restart_required"] = True
            warnings.append(
                f"{kind.what} '{name}' is running with an older configuration ({', '.join(pending)}); "
                "it takes effect when it is restarted (restart: true does that)"
            )
        if not check_mode:
            sync_lifecycle(obj, lifecycle, start=lambda: kind.start(obj))
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to update {kind.what} '{name}': {exc}") from exc
    resource = kind.describe(obj)
    if check_mode and changed:
        resource = {**resource, **after}
    return Outcome(changed, resource, before, after, warnings, extra)
