# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What every libvirt resource module shares: the outcome it reports, converging a persistent
object, and running a backend inside a module."""

from __future__ import annotations

import dataclasses
import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .._common.plan import PLAN_OPERATIONS, changed_paths, publish_hidden_plan, refusal
from .._common.secrets import url_passwords
from . import schema
from .connection import HAS_LIBVIRT, LIBVIRT_CONNECTION_ARGSPEC, LIBVIRT_IMPORT_ERROR, connect, libvirt
from .errors import LibvirtError, LibvirtValidationError, is_not_found, is_unsupported
from .schema import HAS_LXML, LXML_IMPORT_ERROR

__all__ = [
    "Outcome",
    "Persistent",
    "changed_paths",
    "converge",
    "copy_path",
    "definition_xml",
    "lookup_by_name",
    "plan_fields",
    "run_resource_module",
    "sync_lifecycle",
]


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
            module.fail_json(msg=str(exc), **refusal(True))
    if schema_struct is not None:
        secrets: set[str] = set()
        try:
            schema.validate_params(schema_struct, module.params, argument_spec, secrets)
        except LibvirtError as exc:
            # The secrets past the refused option too: the failure shows the task's arguments.
            module.no_log_values.update(schema.secrets_in(schema_struct, module.params))
            module.fail_json(msg=str(exc), **refusal(True))
        module.no_log_values.update(secrets)
    if not HAS_LIBVIRT:
        module.fail_json(msg=missing_required_lib("libvirt-python"), exception=LIBVIRT_IMPORT_ERROR)
    if not HAS_LXML:
        module.fail_json(msg=missing_required_lib("lxml"), exception=LXML_IMPORT_ERROR)
    try:
        with connect(module.params["uri"]) as conn:
            outcome = run(conn, module.params, module.check_mode)
    except LibvirtError as exc:
        module.fail_json(msg=str(exc), **refusal(isinstance(exc, LibvirtValidationError)))
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
    """How to converge one kind of persistent libvirt object (network, pool, domain): what
    every kind has, then the hooks a kind sets where the defaults (a network's, a pool's) do
    not fit it."""

    what: str  # "network", "storage pool", "domain"
    struct: str  # its schema struct
    inactive_flag: int  # XMLDesc flags of the persistent definition
    define: t.Callable[[str], t.Any]  # define XML, return the object
    start: t.Callable[[t.Any], t.Any]
    describe: t.Callable[[t.Any], dict[str, t.Any]]
    # Apply these changed option paths to the definition and the running object in place (a
    # network's update API), instead of a redefinition; False when it cannot.
    update_live: t.Callable[[t.Any, dict[str, t.Any], t.Any, list[str], bool], bool] | None = None
    running_flag: int = 0  # XMLDesc flags of the running object's XML
    # (option paths where the XML does not hold what is desired, the "before" of the diff).
    compare: t.Callable[[dict[str, t.Any], str], tuple[list[str], dict[str, t.Any]]] | None = None
    # The XML root to define, from the desired options and the current definition's XML.
    redefinition: t.Callable[[dict[str, t.Any], str], t.Any] | None = None
    # Changes the running object takes from its (new) definition without a restart, for the
    # option paths where it differs: (definition root, running root, paths) -> changes.
    live_changes: t.Callable[[t.Any, t.Any, list[str]], list[t.Any]] | None = None
    rewritten: t.Callable[[str], bool] = lambda path: False  # paths libvirt rewrites on the running object
    lifecycle: tuple[str, ...] = ("running", "autostart")  # the lifecycle options of the module
    state: t.Callable[[t.Any], dict[str, t.Any]] | None = None  # the lifecycle as it is (default: running, autostart)
    sync: t.Callable[[t.Any, dict[str, t.Any]], None] | None = None  # enforce the lifecycle options set
    restart_option: str = "restart"  # the option that allows a restart (set and not false)
    restart_hint: str = "restart: true does that"
    restart: t.Callable[[t.Any], None] | None = None  # default: destroy, start

    def compare_xml(self, desired: dict[str, t.Any], xml: str) -> tuple[list[str], dict[str, t.Any]]:
        if self.compare is not None:
            return self.compare(desired, xml)
        current = schema.read(self.struct, schema.parse(xml), like=desired)
        return schema.compare(self.struct, desired, current), current

    def new_definition(self, desired: dict[str, t.Any], xml: str) -> t.Any:
        if self.redefinition is not None:
            return self.redefinition(desired, xml)
        root = schema.parse(xml)
        schema.apply(self.struct, root, desired, path="")
        return root

    def lifecycle_state(self, obj: t.Any) -> dict[str, t.Any]:
        if self.state is not None:
            return self.state(obj)
        return {"running": bool(obj.isActive()), "autostart": bool(obj.autostart())}

    def restart_allowed(self, params: dict[str, t.Any]) -> bool:
        return params.get(self.restart_option) not in (None, False)

    def restart_now(self, obj: t.Any) -> None:
        if self.restart is not None:
            self.restart(obj)
        else:
            obj.destroy()
            self.start(obj)

    def enforce(self, obj: t.Any, lifecycle: dict[str, t.Any]) -> None:
        """Bring the lifecycle options that are set (not None) about."""
        if self.sync is not None:
            self.sync(obj, lifecycle)
        else:
            sync_lifecycle(obj, lifecycle, start=lambda: self.start(obj))


def converge(kind: Persistent, obj: t.Any, desired: dict[str, t.Any], params: dict[str, t.Any], check_mode: bool) -> Outcome:
    """Bring an existing object to ``desired`` and to the wanted lifecycle, the one way every
    kind does it: an update in place where the kind can, else a redefinition with the same
    UUID; then, on a running object, what it takes live; then a restart when it still differs
    from what is desired and the kind's restart option allows it, else ``restart_required``
    and a warning. ``changed``, ``update_method`` and ``restart_required`` are decided here."""
    name = obj.name()
    definition = definition_xml(obj, kind.inactive_flag)
    paths, before = kind.compare_xml(desired, definition)
    lifecycle = {k: params.get(k) for k in kind.lifecycle}
    managed = [k for k, v in lifecycle.items() if v is not None]
    state = kind.lifecycle_state(obj)
    before = {**before, **{k: state[k] for k in managed}}
    after = {**desired, **{k: lifecycle[k] for k in managed}}
    methods: list[str] = []
    warnings: list[str] = []
    try:
        in_place = bool(paths) and kind.update_live is not None and kind.update_live(obj, desired, schema.parse(definition), paths, check_mode)
        if paths:
            methods.append("update" if in_place else "redefine")
        obj, new_root = _redefine(kind, obj, desired, definition, check_mode) if paths and not in_place else (obj, schema.parse(definition))
        pending: list[str] = []
        applied: list[str] = []
        if state["running"] and lifecycle.get("running") is not False:  # a stopped object starts with its definition
            live = _Live(kind, obj, desired, check_mode, warnings)
            pending = live.pending()
            if check_mode and in_place:
                pending = [p for p in pending if p not in paths]
            still = live.apply(new_root, pending)
            applied = [change.what for change in live.applied]
            if applied:
                methods.append("live")
            if not paths:  # the definition had it already: the diff shows what ran before
                for path in set(pending) - set(still):
                    copy_path(live.before, before, path)
            pending = still
        restart = bool(pending) and kind.restart_allowed(params)
        if restart:
            methods.append("restart")
            if not check_mode:
                kind.restart_now(obj)
        changed = bool(paths) or bool(applied) or restart or any(lifecycle[k] != state[k] for k in managed)
        extra: dict[str, t.Any] = {"update_method": "+".join(methods)} if methods else {}
        if applied:
            extra["live_changes"] = applied
        if pending and not restart:
            extra["restart_required"] = True
            older = ", ".join(pending)
            warnings.append(
                f"{kind.what} '{name}' is running with an older configuration ({older}); it takes effect when it is restarted ({kind.restart_hint})"
            )
        if not check_mode:
            kind.enforce(obj, lifecycle)
    except libvirt.libvirtError as exc:
        raise LibvirtError(f"Failed to update {kind.what} '{name}': {exc}") from exc
    resource = kind.describe(obj)
    if check_mode and changed:
        resource = {**resource, **after}
    return Outcome(changed, resource, before, after, warnings, extra)


def _redefine(kind: Persistent, obj: t.Any, desired: dict[str, t.Any], definition: str, check_mode: bool) -> tuple[t.Any, t.Any]:
    """(the object, its new definition's root): as defined, with what libvirt chose (MAC
    addresses of new interfaces), or in check mode as it would be defined."""
    new_root = kind.new_definition(desired, definition)
    if check_mode:
        return obj, new_root
    obj = kind.define(schema.serialize(new_root))
    return obj, schema.parse(definition_xml(obj, kind.inactive_flag))


class _Live:
    """The running object against what is desired: where it differs, and the kind's live
    changes applied (or, in check mode, simulated on its XML)."""

    def __init__(self, kind: Persistent, obj: t.Any, desired: dict[str, t.Any], check_mode: bool, warnings: list[str]) -> None:
        self.kind, self.obj, self.desired, self.check_mode, self.warnings = kind, obj, desired, check_mode, warnings
        self.xml = obj.XMLDesc(kind.running_flag)
        self.before: dict[str, t.Any] = {}
        self.applied: list[t.Any] = []

    def _differences(self, xml: str) -> tuple[list[str], dict[str, t.Any]]:
        paths, current = self.kind.compare_xml(self.desired, xml)
        return [p for p in paths if not self.kind.rewritten(p)], current

    def pending(self) -> list[str]:
        paths, self.before = self._differences(self.xml)
        return paths

    def apply(self, definition: t.Any, pending: list[str]) -> list[str]:
        """What still differs after the live changes for ``pending`` (paths)."""
        changes = self.kind.live_changes(definition, schema.parse(self.xml), pending) if pending and self.kind.live_changes else []
        if not changes:
            return pending
        running = schema.parse(self.xml)
        for change in changes:
            if self.check_mode:
                change.simulate(running)
                self.applied.append(change)
                continue
            try:
                warning = change.apply(self.obj)
            except libvirt.libvirtError as exc:
                self.warnings.append(f"{self.kind.what} '{self.obj.name()}': {change.what} could not be applied to it while it runs: {exc}")
                continue
            self.applied.append(change)
            if warning:
                self.warnings.append(warning)
        return self._differences(schema.serialize(running) if self.check_mode else self.obj.XMLDesc(self.kind.running_flag))[0]


def copy_path(source: dict[str, t.Any], target: dict[str, t.Any], path: str) -> None:
    """Set ``path`` (``devices.disks[0].target``) in ``target`` to its value in ``source``
    (or remove it there when ``source`` has none)."""
    parts = schema.path_parts(path)
    src: t.Any = source
    dst: t.Any = target
    for part in parts[:-1]:
        src = schema.step(src, part)
        nxt = schema.step(dst, part)
        if nxt is None:
            return
        dst = nxt
    value = schema.step(src, parts[-1])
    if isinstance(dst, dict):
        if value is None:
            dst.pop(parts[-1], None)
        else:
            dst[parts[-1]] = value
        if f"{parts[-1]}_unit" in dst and isinstance(src, dict):  # a size shows with its own unit
            dst[f"{parts[-1]}_unit"] = src.get(f"{parts[-1]}_unit")
    elif isinstance(dst, list) and isinstance(parts[-1], int) and parts[-1] < len(dst):
        dst[parts[-1]] = value
