# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The whole workspace as a control plane receives it, and the rules the server enforces
when it converts a template's state (coderd's provisioner/terraform/resources.go)."""

from __future__ import annotations

import typing as t

from .document import WorkspaceState
from .errors import WorkspaceValidationError
from .gourl import go_quote
from .resources import AGENT, APP, DEVCONTAINER, ENV, EXTERNAL_AGENT, METADATA, SCRIPT, referenced_ids, subagent_label, validate_agent_name, validate_app_slug

__all__ = ["build_manifest", "merge_env"]

# Entries of one type by the agent (or sub-agent label) they belong to: (key, entry) pairs.
Children = dict[str, list[tuple[str, dict[str, t.Any]]]]


def merge_env(agent_name: str, definitions: list[tuple[str, dict[str, t.Any]]]) -> dict[str, str]:
    """Combine the agent's workspace_env definitions, in address order as upstream orders
    resources: ``replace`` (the last wins), ``append``/``prepend`` (joined with ``:``),
    ``error`` (a second definition of the name fails)."""
    by_name: dict[str, list[dict[str, t.Any]]] = {}
    for _address, arguments in sorted(definitions, key=lambda pair: pair[0]):
        by_name.setdefault(arguments["name"], []).append(arguments)
    merged: dict[str, str] = {}
    for name, entries in by_name.items():
        if len(entries) > 1 and any(entry["merge_strategy"] == "error" for entry in entries):
            raise WorkspaceValidationError(
                f"duplicate env var {go_quote(name)} on agent {go_quote(agent_name)}: "
                f'a definition with merge_strategy "error" allows no other ({len(entries)} are set)'
            )
        value: str | None = None
        for entry in entries:
            new = entry.get("value") or ""
            strategy = entry["merge_strategy"]
            if value is None or strategy in ("replace", "error"):
                value = new
            elif strategy == "append":
                value = f"{value}:{new}"
            else:
                value = f"{new}:{value}"
        merged[name] = value or ""
    return merged


def _legacy_scripts(arguments: dict[str, t.Any]) -> list[dict[str, t.Any]]:
    """coderd turns the agent's startup/shutdown scripts into scripts of their own."""
    scripts = []
    if arguments.get("startup_script"):
        scripts.append(
            {
                "display_name": "Startup Script",
                "script": arguments["startup_script"],
                "log_path": "coder-startup-script.log",
                "run_on_start": True,
                "run_on_stop": False,
                "start_blocks_login": arguments.get("startup_script_behavior") == "blocking",
                "cron": None,
                "icon": None,
                "timeout": 0,
            }
        )
    if arguments.get("shutdown_script"):
        scripts.append(
            {
                "display_name": "Shutdown Script",
                "script": arguments["shutdown_script"],
                "log_path": "coder-shutdown-script.log",
                "run_on_start": False,
                "run_on_stop": True,
                "start_blocks_login": False,
                "cron": None,
                "icon": None,
                "timeout": 0,
            }
        )
    return scripts


def _children_by_agent(state: WorkspaceState, resource_type: str, owner_ids: dict[str, str]) -> tuple[Children, list[str]]:
    """The entries of a type by the name of the agent (or sub-agent label) their agent_id names."""
    attached: Children = {}
    unattached = []
    for name, entry in state.of_type(resource_type).items():
        agent = owner_ids.get(entry["arguments"].get("agent_id") or "")
        if agent is None:
            unattached.append(f"{resource_type}.{name}")
        else:
            attached.setdefault(agent, []).append((name, entry))
    return attached, unattached


def _apps(attached: list[tuple[str, dict[str, t.Any]]]) -> list[dict[str, t.Any]]:
    apps = []
    for slug, entry in attached:
        app = {**entry["arguments"], "id": entry["computed"]["id"]}
        app["display_name"] = app.get("display_name") or slug
        apps.append(app)
    return sorted(apps, key=lambda app: (app.get("order") or 0, app["slug"]))


def _scripts(attached: list[tuple[str, dict[str, t.Any]]]) -> list[dict[str, t.Any]]:
    return [{**entry["arguments"], "id": entry["computed"]["id"]} for _key, entry in attached]


def _devcontainer(name: str, entry: dict[str, t.Any], apps: Children, scripts: Children, envs: Children) -> dict[str, t.Any]:
    """A dev container with what coderd attaches to its sub-agent: apps, scripts and envs (a
    list of name and value, merged as an agent's are)."""
    label = subagent_label(name)
    merged = merge_env(label, [(address, env_entry["arguments"]) for address, env_entry in envs.get(label, [])])
    return {
        "name": name,
        **entry["arguments"],
        "id": entry["computed"]["id"],
        "subagent_id": entry["computed"]["subagent_id"],
        "apps": _apps(apps.get(label, [])),
        "scripts": _scripts(scripts.get(label, [])),
        "envs": [{"name": env_name, "value": value} for env_name, value in sorted(merged.items())],
    }


def _check_unique(label: str, values: list[str], message: t.Callable[[str, int], str]) -> None:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    for value, count in counts.items():
        if count > 1:
            raise WorkspaceValidationError(message(value, count))


def build_manifest(
    state: WorkspaceState,
    *,
    parameters: list[dict[str, t.Any]] | None = None,
    presets: list[dict[str, t.Any]] | None = None,
) -> dict[str, t.Any]:
    agents = state.of_type(AGENT.name)
    seen: set[str] = set()
    agent_ids: dict[str, str] = {}
    for name, entry in agents.items():
        validate_agent_name(name)
        if name.lower() in seen:
            raise WorkspaceValidationError(f"duplicate agent name: {name}")
        seen.add(name.lower())
        agent_ids[entry["computed"]["id"]] = name
        for old_id in entry.get("replaced_ids", []):
            agent_ids.setdefault(old_id, name)

    # Apps, scripts and envs may name a dev container's sub-agent instead (its subagent_id).
    owner_ids = dict(agent_ids)
    for dc_name, dc_entry in state.of_type(DEVCONTAINER.name).items():
        for subagent_id in referenced_ids(DEVCONTAINER, dc_entry):
            owner_ids.setdefault(subagent_id, subagent_label(dc_name))

    apps, unattached = _children_by_agent(state, APP.name, owner_ids)
    scripts, more = _children_by_agent(state, SCRIPT.name, owner_ids)
    unattached += more
    envs, more = _children_by_agent(state, ENV.name, owner_ids)
    unattached += more
    devcontainers, more = _children_by_agent(state, DEVCONTAINER.name, agent_ids)
    unattached += more
    externals, more = _children_by_agent(state, EXTERNAL_AGENT.name, agent_ids)
    unattached += more

    slugs: set[str] = set()
    for slug in sorted(state.of_type(APP.name)):
        validate_app_slug(slug)
        if slug in slugs:
            raise WorkspaceValidationError(f"duplicate app slug, they must be unique per template: {go_quote(slug)}")
        slugs.add(slug)

    manifest_agents = []
    for name, entry in agents.items():
        arguments = entry["arguments"]
        own_env = dict(arguments.get("env") or {})
        extra = [(address, env_entry["arguments"]) for address, env_entry in envs.get(name, [])]
        for _address, env_arguments in extra:
            if env_arguments["name"] in own_env:
                raise WorkspaceValidationError(
                    f"env {go_quote(env_arguments['name'])} is already set in the env of workspace_agent {go_quote(name)}; "
                    "a workspace_env cannot overwrite a variable of its agent's env"
                )
        env = {**own_env, **merge_env(name, extra)}
        manifest_agents.append(
            {
                "id": entry["computed"]["id"],
                "name": name,
                "auth": arguments["auth"],
                "os": arguments["os"],
                "arch": arguments["arch"],
                "directory": arguments.get("dir") or "",
                "env": env,
                "api_key_scope": arguments["api_key_scope"],
                "connection_timeout_seconds": arguments["connection_timeout"],
                "troubleshooting_url": arguments.get("troubleshooting_url") or "",
                "motd_file": arguments.get("motd_file") or "",
                "order": arguments.get("order") or 0,
                "metadata": arguments.get("metadata") or [],
                "display_apps": arguments["display_apps"],
                "resources_monitoring": arguments.get("resources_monitoring"),
                "apps": _apps(apps.get(name, [])),
                "scripts": _legacy_scripts(arguments) + _scripts(scripts.get(name, [])),
                "devcontainers": [_devcontainer(dc_name, dc_entry, apps, scripts, envs) for dc_name, dc_entry in devcontainers.get(name, [])],
                "has_external_agent": bool(externals.get(name)),
            }
        )

    metadata = [{**entry["arguments"], "id": entry["computed"]["id"]} for entry in state.of_type(METADATA.name).values()]
    manifest: dict[str, t.Any] = {
        "agents": sorted(manifest_agents, key=lambda agent: (agent["order"], agent["name"])),
        "metadata": metadata,
        "has_external_agents": bool(state.of_type(EXTERNAL_AGENT.name)),
        "unattached": sorted(unattached),
    }
    if parameters is not None:
        names = [str(parameter.get("name")) for parameter in parameters]
        _check_unique("parameter", names, lambda value, _count: f"coder_parameter names must be unique but {go_quote(value)} appears multiple times")
        manifest["parameters"] = [{**parameter, "required": not parameter.get("optional", False)} for parameter in parameters]
    if presets is not None:
        names = [str(preset.get("name")) for preset in presets]
        _check_unique("preset", names, lambda value, _count: f"coder_workspace_preset names must be unique but {go_quote(value)} appears multiple times")
        defaults = sum(1 for preset in presets if preset.get("default"))
        if defaults > 1:
            raise WorkspaceValidationError(f"a maximum of 1 coder_workspace_preset can be marked as default, but {defaults} are set")
        manifest["presets"] = presets
    return manifest
