# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Coder provider resources as the workspace modules' tasks, and their workspace state entries.

Upstream's resources live in Terraform's state; here they live in the workspace state. Each
converted resource gets the entry its module would have written, with the id Terraform's state
holds (and for an agent its token), so the task finds it unchanged and running agents keep
their token. The entry is made by the same code the module runs (the argument spec, upstream's
validations, the stored arguments with defaults applied), so the two cannot disagree.

The provider is built on the plugin SDK v2, whose state cannot tell an attribute that was not
set from its zero value: an empty string, a zero and false are written as not set, unless the
option has another default (``connection_timeout = 0`` stays). The token never goes into the
playbook: the agent's task registers its result, and any other value that held the token
(a cloud-init user-data) refers to that result instead."""

from __future__ import annotations

import copy
import dataclasses
import re
import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from .._common.text import printable
from .._workspace.config import deployment_url
from .._workspace.errors import WorkspaceError
from .._workspace.fields import check_text_options, is_uuid, unwrap_single_blocks
from .._workspace.resources import AGENT, APP, DEVCONTAINER, ENV, EXTERNAL_AGENT, METADATA, SCRIPT, Context, ResourceType, agent_init_script, subagent_label
from .errors import NotConvertedError
from .tasks import Task, limited

if t.TYPE_CHECKING:
    from .tfstate import Instance

__all__ = ["CODER_DATA_SOURCES", "CODER_MODULES", "CoderConverter"]

_TYPES: dict[str, tuple[ResourceType, int]] = {
    "coder_agent": (AGENT, 4),
    "coder_devcontainer": (DEVCONTAINER, 6),
    "coder_app": (APP, 7),
    "coder_script": (SCRIPT, 7),
    "coder_env": (ENV, 7),
    "coder_external_agent": (EXTERNAL_AGENT, 7),
    "coder_metadata": (METADATA, 8),
}
CODER_MODULES = {kind: rtype.name for kind, (rtype, _rank) in _TYPES.items()}
CODER_DATA_SOURCES = {
    "coder_workspace": "devinfra.providers.workspace",
    "coder_workspace_owner": "devinfra.providers.workspace_owner",
    "coder_parameter": "devinfra.providers.workspace_parameter",
    "coder_external_auth": "devinfra.providers.workspace_external_auth",
    "coder_provisioner": "devinfra.providers.workspace_provisioner",
    "coder_task": "devinfra.providers.workspace_task",
    "coder_workspace_preset": "devinfra.providers.workspace_preset",
    "coder_workspace_tags": "devinfra.providers.workspace_tags",
}
# Attributes each resource computes (kept in the workspace state, never options).
_COMPUTED = {
    "coder_agent": ("id", "token", "init_script"),
    "coder_devcontainer": ("id", "subagent_id"),
    "coder_metadata": ("id",),
}
# Upstream attribute -> option, where they differ.
_RENAMED = {"coder_metadata": {"item": "items"}}
# Attributes of older provider versions that a current one no longer has: ignored when they say
# nothing (the SDK's zero value), else the resource is not converted.
_LEGACY = frozenset({"login_before_ready", "startup_script_timeout", "shutdown_script_timeout", "delay_login_until_ready", "relative_path"})
# Upstream's defaults the module applies itself without a default in its argument spec (an
# app's share: external conflicts with any share written, so the SDK's "owner" is not one).
_SDK_DEFAULTS = {"coder_app": {"share": "owner"}}
# Values that are text even when empty (upstream keeps "" apart from null there).
_KEEP_EMPTY = frozenset({"value"})
_REGISTER = re.compile(r"[^a-z0-9_]")


@dataclasses.dataclass
class _Converted:
    task: Task
    params: dict[str, t.Any]
    rtype: ResourceType
    instance: Instance


def _empty(value: t.Any, option: dict[str, t.Any]) -> bool:
    """True when an SDK v2 state's ``value`` says no more than "not set" for ``option``."""
    if value is None or value in ("", [], {}):
        return True
    default = option.get("default")
    if default is not None:
        return bool(value == default and type(value) is type(default))
    return value is False or (value == 0 and not isinstance(value, bool) and option.get("type") == "int")


def _options(values: dict[str, t.Any], spec: dict[str, dict[str, t.Any]], where: str) -> dict[str, t.Any]:
    """``values`` as options of ``spec``: the not-set ones left out, nested blocks alike."""
    out: dict[str, t.Any] = {}
    for key, given in values.items():
        option = spec.get(key)
        if option is None:
            raise NotConvertedError(f"{where}{printable(str(key), 60)}: an attribute the module does not take")
        value = given
        if "options" in option:
            if isinstance(value, list) and option.get("type") == "dict":
                if len(value) > 1:
                    raise NotConvertedError(f'{where}{key}: No more than 1 "{key}" blocks are allowed')
                value = value[0] if value else None
            if isinstance(value, dict):
                value = _options(value, option["options"], f"{where}{key}.")
            elif isinstance(value, list):
                value = [_options(item, option["options"], f"{where}{key}[{index}].") if isinstance(item, dict) else item for index, item in enumerate(value)]
        if (key in _KEEP_EMPTY and value is not None) or not _empty(value, option):
            out[key] = value
    return out


def register_name(address_kind: str, name: str, taken: set[str]) -> str:
    base = "tf_" + _REGISTER.sub("_", f"{address_kind}_{name}".lower())
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}_{number}", number + 1
    taken.add(candidate)
    return candidate


class CoderConverter:
    """Converts the Coder resources of one state; agents first, since children name them."""

    def __init__(self, environ: t.Mapping[str, str]) -> None:
        self.environ = environ
        self.agents: dict[str, str] = {}  # agent id -> agent name
        self.agent_envs: dict[str, dict[str, t.Any]] = {}  # agent name -> its env
        self.subagents: dict[str, str] = {}  # dev container subagent_id -> its label
        self.tokens: dict[str, str] = {}  # agent token -> the register variable of its task
        self.registers: set[str] = set()
        self.done: list[_Converted] = []
        self.keys: set[str] = set()  # workspace state addresses taken

    @staticmethod
    def order(instance: Instance) -> int:
        """Agents, then dev containers (their sub-agents), then the rest."""
        return {"coder_agent": 0, "coder_devcontainer": 1}.get(instance.type, 2)

    def convert(self, instance: Instance) -> Task:
        rtype, rank = _TYPES[instance.type]
        attributes = instance.attributes
        computed = {key: attributes.get(key) for key in _COMPUTED.get(instance.type, ("id",))}
        given = {key: value for key, value in attributes.items() if key not in computed}
        given = {_RENAMED.get(instance.type, {}).get(key, key): value for key, value in given.items()}
        spec = rtype.argument_spec
        dropped: list[tuple[str, str]] = []
        if instance.type == "coder_app":
            legacy_name = given.pop("name", None)
            if not given.get("display_name") and isinstance(legacy_name, str) and legacy_name:
                given["display_name"] = legacy_name  # the legacy name, which coderd shows when display_name is empty
            elif isinstance(legacy_name, str) and legacy_name:
                dropped.append(("name", "the deprecated name of an app, which coderd shows only when display_name is empty; display_name is set"))
        legacy = [key for key in given if key in _LEGACY and key not in spec and not _empty(given[key], {})]
        unknown = [key for key in given if key not in spec and key not in _LEGACY]
        if unknown or legacy:
            raise NotConvertedError(f"attributes the module does not take: {limited(unknown + legacy)}")
        plain = {key: value for key, value in given.items() if key in spec and not (instance.type == "coder_metadata" and key == "items")}
        args = _options(plain, spec, "")
        for key, default in _SDK_DEFAULTS.get(instance.type, {}).items():
            if args.get(key) == default:
                del args[key]
        if instance.type == "coder_metadata":
            args["items"] = [self._metadata_item(item) for item in given.get("items") or [] if isinstance(item, dict)]
            if not args["items"]:
                del args["items"]
        args.update(self._identity(instance, args))
        task = Task(address=instance.address, module=rtype.name, args=args, rank=rank, spec=spec, not_carried=dropped)
        params = self._check(rtype, args)
        entry_computed = self._computed(instance, rtype, computed, params)
        address = f"{rtype.name}.{rtype.key(params, self._context(params, rtype))}"
        if address in self.keys and rtype not in (SCRIPT, ENV):  # those two get a key of their own (separate_keys)
            raise NotConvertedError(f"another resource of this state is already {address} in the workspace state")
        task.workspace_entry = (address, {"arguments": rtype.arguments(params), "computed": entry_computed})
        self._remember(instance, rtype, task, params, entry_computed)
        self.keys.add(address)
        self.done.append(_Converted(task, params, rtype, instance))
        return task

    @staticmethod
    def _metadata_item(item: dict[str, t.Any]) -> dict[str, t.Any]:
        out: dict[str, t.Any] = {"key": item.get("key")}
        if not item.get("is_null") and item.get("value") is not None:
            out["value"] = item["value"]
        if item.get("sensitive"):
            out["sensitive"] = True
        return out

    def _identity(self, instance: Instance, args: dict[str, t.Any]) -> dict[str, t.Any]:
        """The options that name the resource (coderd names agents and dev containers after
        their Terraform resource)."""
        if instance.type in ("coder_agent", "coder_devcontainer"):
            if instance.instances_of_resource > 1:
                raise NotConvertedError(
                    f"coderd names a {instance.type} after its resource ({instance.name}); {instance.instances_of_resource} instances of one "
                    "resource cannot each keep that name"
                )
            extra: dict[str, t.Any] = {"name": instance.name}
            if instance.type == "coder_agent":
                agent_id = instance.attributes.get("id")
                if not isinstance(agent_id, str) or not is_uuid(agent_id):
                    raise NotConvertedError("its id is not a UUID (the workspace state keeps coderd's UUIDs only)")
                extra["agent_id"] = agent_id  # the task adopts Terraform's id even without the state
            return extra
        if instance.type == "coder_app" and not args.get("slug"):
            return {"slug": instance.name}  # coderd's default
        return {}

    def _check(self, rtype: ResourceType, args: dict[str, t.Any]) -> dict[str, t.Any]:
        """The parameters the module would have, after every check it makes before it writes."""
        try:
            unwrapped = unwrap_single_blocks(copy.deepcopy(args), rtype.single_blocks)
        except WorkspaceError as exc:
            raise NotConvertedError(f"the module refuses its options: {exc}") from None
        result = ArgumentSpecValidator(rtype.full_argument_spec(), mutually_exclusive=rtype.mutually_exclusive, required_if=rtype.required_if).validate(
            unwrapped
        )
        if result.error_messages:
            raise NotConvertedError(f"the module refuses its options: {result.error_messages[0]}")
        params: dict[str, t.Any] = result.validated_parameters
        try:
            check_text_options(rtype.argument_spec, params, multi_line=rtype.multi_line)
            rtype.validate(params)
        except WorkspaceError as exc:
            raise NotConvertedError(f"the module refuses its options: {exc}") from None
        if rtype.references_agent:
            self._check_agent(rtype, params)
        return params

    def _check_agent(self, rtype: ResourceType, params: dict[str, t.Any]) -> None:
        agent_id = params.get("agent_id")
        if agent_id in self.agents:
            if rtype is ENV:
                env = self.agent_envs.get(self.agents[agent_id]) or {}
                if params["name"] in env:
                    raise NotConvertedError(
                        f"env {params['name']!r} is already set in the env of coder_agent {self.agents[agent_id]!r}; "
                        "a workspace_env cannot overwrite a variable of its agent's env"
                    )
            return
        if agent_id in self.subagents and rtype.on_subagents:
            return
        raise NotConvertedError("its agent_id is not the id of a coder_agent (or of a dev container's sub-agent) converted from this state")

    def _context(self, params: dict[str, t.Any], rtype: ResourceType) -> Context:
        agent_id = str(params.get("agent_id"))
        name = (self.agents.get(agent_id) or self.subagents.get(agent_id)) if rtype.references_agent else None
        try:
            url = deployment_url(None, environ=self.environ)
        except WorkspaceError as exc:
            raise NotConvertedError(str(exc)) from None
        return Context(environ=self.environ, url=url, agent_name=name)

    def _computed(self, instance: Instance, rtype: ResourceType, computed: dict[str, t.Any], params: dict[str, t.Any]) -> dict[str, t.Any]:
        for key, value in computed.items():
            if key == "init_script":
                continue
            if not isinstance(value, str) or not is_uuid(value):
                what = "its token" if key == "token" else f"its {key}"
                raise NotConvertedError(f"{what} is not a UUID (the workspace state keeps coderd's UUIDs only; the value is not shown)")
        entry = {key: value for key, value in computed.items() if key != "init_script"}
        if rtype is AGENT:
            ctx = self._context(params, rtype)
            entry["init_script"] = agent_init_script(environ=self.environ, url=ctx.url, os_name=params["os"], arch=params["arch"], auth=params["auth"])
        return entry

    def _remember(self, instance: Instance, rtype: ResourceType, task: Task, params: dict[str, t.Any], computed: dict[str, t.Any]) -> None:
        if rtype is AGENT:
            self.agents[computed["id"]] = params["name"]
            self.agent_envs[params["name"]] = params.get("env") or {}
            task.register = register_name("coder_agent", params["name"], self.registers)
            self.tokens[computed["token"]] = task.register
            task.secrets.add(computed["token"])
        elif rtype is DEVCONTAINER:
            self.subagents[computed["subagent_id"]] = subagent_label(params["name"])

    def separate_keys(self) -> None:
        """Give ``key`` to the scripts and envs that share a name on one agent (upstream keeps
        them apart by their resource addresses): the resource's name, which is unique."""
        groups: dict[tuple[str, str, str], list[_Converted]] = {}
        for done in self.done:
            if done.rtype in (SCRIPT, ENV):
                field = "display_name" if done.rtype is SCRIPT else "name"
                groups.setdefault((done.rtype.name, str(done.params["agent_id"]), str(done.params[field])), []).append(done)
        for members in groups.values():
            if len(members) < 2:
                continue
            for done in members:
                # The address without the type: unique in the state, and it says which resource it was.
                key = done.instance.address.replace(f"{done.instance.type}.", "", 1)
                done.task.args["key"] = key
                done.params["key"] = key
                address = f"{done.rtype.name}.{done.rtype.key(done.params, self._context(done.params, done.rtype))}"
                entry = {"arguments": done.rtype.arguments(done.params), "computed": done.task.workspace_entry[1]["computed"]}  # type: ignore[index]
                done.task.workspace_entry = (address, entry)
