# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Plan and apply one workspace resource against the state file.

The plan (create, replace, update, none, delete) is a pure comparison of the stored entry
with the desired arguments, the same in check mode and in a real run; only the write is
skipped in check mode. All validation happens before the state file is opened for writing."""

from __future__ import annotations

import copy
import dataclasses
import os
import typing as t

from .._common.plan import changed_paths, not_there_yet
from .backend import open_backend
from .config import deployment_url
from .document import WorkspaceState
from .errors import WorkspaceValidationError
from .fields import check_text_options
from .gourl import go_quote
from .resources import AGENT, DEVCONTAINER, ENV, Context, ResourceType, claimed_agent_token, referenced_ids, subagent_label

__all__ = ["MASK", "Outcome", "apply_resource", "find_agent", "masked_view", "resource_view"]

MASK = "********"


@dataclasses.dataclass
class Outcome:
    changed: bool
    operation: str  # create, replace, update, none, delete, absent
    noun: str
    resource: dict[str, t.Any]
    state_file: str
    address: str
    diff: dict[str, t.Any] | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)
    has_secret: bool = False
    changed_paths: list[str] = dataclasses.field(default_factory=list)  # option paths, never values

    def result(self) -> dict[str, t.Any]:
        result = {
            "changed": self.changed,
            "operation": self.operation,
            "state_file": self.state_file,
            "address": self.address,
            "changed_paths": self.changed_paths,
            self.noun: self.resource,
        }
        if self.diff is not None:
            result["diff"] = self.diff
        return result


def resource_view(rtype: ResourceType, entry: dict[str, t.Any]) -> dict[str, t.Any]:
    """What a module returns: the inputs and the computed outputs, with the id under the interface's field name too."""
    view = {**entry["arguments"], **entry["computed"]}
    view[rtype.id_alias] = entry["computed"]["id"]
    return view


def masked_view(rtype: ResourceType, view: dict[str, t.Any]) -> dict[str, t.Any]:
    """The view with secrets replaced: the agent token, sensitive metadata values, env values (of workspace_env and of the agent)."""
    masked = copy.deepcopy(view)
    for key in rtype.secret_outputs:
        if masked.get(key):
            masked[key] = MASK
    for item in masked.get("item") or [] if rtype.name == "workspace_metadata" else []:
        if item.get("sensitive") and item.get("value") is not None:
            item["value"] = MASK
    if rtype is ENV and masked.get("value") is not None:
        # Templates feed tokens (external auth, session) into env values: never shown.
        masked["value"] = MASK
    if rtype is AGENT and isinstance(masked.get("env"), dict):
        # The same tokens go into the agent's own env; the names still show what changed.
        masked["env"] = dict.fromkeys(masked["env"], MASK)
    return masked


def find_agent(state: WorkspaceState, agent_id: str) -> tuple[str, dict[str, t.Any]] | None:
    """The agent ``agent_id`` names: its current id, or one it had before a replacement."""
    for name, entry in state.of_type(AGENT.name).items():
        if agent_id in referenced_ids(AGENT, entry):
            return name, entry
    return None


def find_devcontainer(state: WorkspaceState, subagent_id: str) -> str | None:
    """The dev container whose sub-agent ``subagent_id`` is (now or before a replacement)."""
    for name, entry in state.of_type(DEVCONTAINER.name).items():
        if subagent_id in referenced_ids(DEVCONTAINER, entry):
            return name
    return None


def _referenced_agent(
    rtype: ResourceType,
    params: dict[str, t.Any],
    state: WorkspaceState,
    *,
    check_mode: bool,
    path: str,
    warnings: list[str],
) -> tuple[str | None, dict[str, t.Any] | None]:
    """The name of the agent ``agent_id`` names (or the label of a dev container's sub-agent)
    and the agent's entry (None for a sub-agent)."""
    if not rtype.references_agent or not params.get("agent_id"):
        return None, None
    found = find_agent(state, params["agent_id"])
    if found is not None:
        return found
    devcontainer = find_devcontainer(state, params["agent_id"])
    if devcontainer is not None and rtype.on_subagents:
        return subagent_label(devcontainer), None
    if params["state"] == "present":
        if devcontainer is not None:
            # coderd attaches only apps, scripts and envs to a sub-agent; anything else would be
            # dropped from the workspace without a word.
            raise WorkspaceValidationError(
                f"agent_id {go_quote(params['agent_id'])} is the subagent_id of workspace_devcontainer {go_quote(devcontainer)}; "
                f"a {rtype.name} belongs to a workspace_agent: pass the agent's id"
            )
        what = "a workspace_agent (or the subagent_id of a workspace_devcontainer)" if rtype.on_subagents else "a workspace_agent"
        message = f"agent_id {go_quote(params['agent_id'])} is not the id of {what} in the state file {path}"
        if not check_mode:
            raise WorkspaceValidationError(f"{message}; create the agent first and pass its id (the agent.id of workspace_agent's result)")
        warnings.append(not_there_yet(message))
    return None, None


def _context_of_stored(rtype: ResourceType, params: dict[str, t.Any], state: WorkspaceState, ctx: Context) -> Context:
    """Removing a child whose agent (or dev container) is gone: find it under the agent name or
    sub-agent label it was stored with. The stored entry's own arguments tell which part of its
    key is the owner; ``params`` must make the same key with that owner."""

    def key_with(arguments: dict[str, t.Any], owner: str) -> str:
        return rtype.key(arguments, dataclasses.replace(ctx, agent_name=owner))

    marker = "\x00"  # never in a name: control characters are refused in every one
    for name, entry in state.of_type(rtype.name).items():
        if entry["arguments"].get("agent_id") != params["agent_id"]:
            continue
        try:
            marked = key_with(entry["arguments"], marker)
        except KeyError:  # an entry written without a field the key needs
            continue
        own_part = marked[len(marker) :]
        if marked.startswith(marker) and name.endswith(own_part) and len(name) > len(own_part):
            owner = name[: len(name) - len(own_part)]
            if key_with(params, owner) == name:
                return dataclasses.replace(ctx, agent_name=owner)
    return ctx


def _check_env_against_agent(params: dict[str, t.Any], agent_name: str, agent_entry: dict[str, t.Any]) -> None:
    agent_env = agent_entry["arguments"].get("env") or {}
    if params["name"] in agent_env:
        raise WorkspaceValidationError(
            f"env {go_quote(params['name'])} is already set in the env of workspace_agent {go_quote(agent_name)}; "
            "a workspace_env cannot overwrite a variable of its agent's env"
        )


def apply_resource(
    rtype: ResourceType,
    params: dict[str, t.Any],
    *,
    check_mode: bool,
    want_diff: bool,
    environ: t.Mapping[str, str] | None = None,
) -> Outcome:
    environ = os.environ if environ is None else environ
    check_text_options(rtype.argument_spec, params, multi_line=rtype.multi_line)
    warnings = list(rtype.validate(params))
    # Upstream configures the provider (and validates its URL) before any resource: a bad
    # CODER_AGENT_URL fails every resource, not only the agent, which also has the option.
    url = deployment_url(params["url"] if rtype is AGENT else None, environ=environ)
    if rtype is AGENT:
        claimed_agent_token(environ)  # a token that is no token fails before the state is touched
    backend = open_backend(params["state_file"], params, environ=environ)

    ctx = Context(environ=environ, url=url, agent_name=None, agent_token=params.get("token") if rtype is AGENT else None)

    def plan(state: WorkspaceState) -> Outcome:
        return _plan(rtype, params, state, ctx, check_mode=check_mode, want_diff=want_diff, path=backend.location)

    outcome = backend.transact(plan, write=not check_mode)
    outcome.warnings[:0] = warnings
    return outcome


def _plan(
    rtype: ResourceType,
    params: dict[str, t.Any],
    state: WorkspaceState,
    ctx: Context,
    *,
    check_mode: bool,
    want_diff: bool,
    path: str,
) -> Outcome:
    """The outcome of ``params`` on ``state``, which it changes unless in check mode. A pure
    plan of the state it is given: a backend may run it again on a fresher state."""
    warnings = list(state.warnings)  # check mode: a file the run would tighten
    present = params["state"] == "present"
    agent_name, agent_entry = _referenced_agent(rtype, params, state, check_mode=check_mode, path=path, warnings=warnings)
    ctx = dataclasses.replace(ctx, agent_name=agent_name)
    if agent_name is None and not present and rtype.references_agent:
        ctx = _context_of_stored(rtype, params, state, ctx)
    address = f"{rtype.name}.{rtype.key(params, ctx)}"
    existing = state.get(address)

    if not present:
        return _remove(rtype, state, address, existing, check_mode=check_mode, want_diff=want_diff, path=path, warnings=warnings)

    if rtype is ENV and agent_entry is not None and agent_name is not None:
        _check_env_against_agent(params, agent_name, agent_entry)

    arguments = rtype.arguments(params)
    replaced_ids: list[str] = list(existing.get("replaced_ids", [])) if existing else []
    if existing is None:
        operation, computed = "create", rtype.create(params, ctx)
    elif existing["arguments"] != arguments:
        operation, computed = "replace", rtype.create(params, ctx)
        if rtype.referenced_id and computed[rtype.referenced_id] != existing["computed"][rtype.referenced_id]:
            replaced_ids.append(existing["computed"][rtype.referenced_id])
    else:
        operation, computed = "none", dict(existing["computed"])
    if rtype.refresh is not None:
        computed.update(rtype.refresh(arguments, computed if operation == "none" else {}, ctx))
        if operation == "none" and computed != existing["computed"]:  # type: ignore[index]
            operation = "update"

    entry: dict[str, t.Any] = {"arguments": arguments, "computed": computed}
    if replaced_ids and rtype.referenced_id:
        # Children keep naming the old id until their own tasks run again; the manifest
        # still attaches them to this agent (or sub-agent) instead of orphaning them.
        entry["replaced_ids"] = replaced_ids
    if operation != "none" and not check_mode:
        state.put(address, entry)

    view = resource_view(rtype, entry)
    diff = None
    if want_diff:
        before = {"exists": True, **masked_view(rtype, resource_view(rtype, existing))} if existing else {"exists": False}
        diff = {"before": before, "after": {"exists": True, **masked_view(rtype, view)}}
    return Outcome(
        changed=operation != "none",
        operation=operation,
        noun=rtype.noun,
        # The agent's token stays usable from the registered result (the action plugin hides
        # the whole result from output instead); other secrets are masked in the result.
        resource=view if rtype is AGENT else masked_view(rtype, view),
        state_file=path,
        address=address,
        diff=diff,
        warnings=warnings,
        has_secret=bool(rtype.secret_outputs),
        # Compared unmasked (a changed secret is a changed path too); the paths are names only.
        changed_paths=changed_paths(resource_view(rtype, existing), view) if existing and operation in ("update", "replace") else [],
    )


def _remove(
    rtype: ResourceType,
    state: WorkspaceState,
    address: str,
    existing: dict[str, t.Any] | None,
    *,
    check_mode: bool,
    want_diff: bool,
    path: str,
    warnings: list[str],
) -> Outcome:
    removed = masked_view(rtype, resource_view(rtype, existing)) if existing else {}
    if existing is not None and not check_mode:
        state.remove(address)
    diff = {"before": {"exists": True, **removed} if existing else {"exists": False}, "after": {"exists": False}} if want_diff else None
    return Outcome(
        changed=existing is not None,
        operation="delete" if existing else "absent",
        noun=rtype.noun,
        resource=removed,
        state_file=path,
        address=address,
        diff=diff,
        warnings=warnings,
    )
