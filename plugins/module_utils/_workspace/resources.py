# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The seven workspace resources: argument specs, upstream's validations (with its
messages) and the values each computes (ids, the agent's token and init script).

Every argument of these resources is ForceNew upstream: any change replaces the resource
(a new id). Values computed on every run (the agent's token and init script) are not
arguments: a change there updates the stored resource in place."""

from __future__ import annotations

import dataclasses
import hashlib
import posixpath
import re
import typing as t
import uuid

from .backend_options import STATE_BACKEND_ARGSPEC
from .cron import script_cron_warnings_and_error
from .errors import WorkspaceValidationError
from .fields import is_uuid, terraform_string
from .gourl import GoURL, GoURLError, go_quote, parse_go_url

__all__ = [
    "AGENT",
    "APP",
    "COMMON_ARGSPEC",
    "DEVCONTAINER",
    "ENV",
    "EXTERNAL_AGENT",
    "METADATA",
    "PROVIDER_URL_ARGSPEC",
    "RESOURCE_TYPES",
    "RUNNING_AGENT_TOKEN_ENV",
    "SCRIPT",
    "Context",
    "ResourceType",
    "agent_init_script",
    "agent_token",
    "referenced_ids",
    "subagent_label",
]

# RunningAgentTokenEnvironmentVariable(""): coderd sets it when a prebuilt workspace is claimed.
RUNNING_AGENT_TOKEN_ENV = "CODER_RUNNING_WORKSPACE_AGENT_TOKEN_" + hashlib.sha256(b"").hexdigest()

AGENT_NAME_REGEX = "(?i)^[a-z0-9](-?[a-z0-9])*$"
_AGENT_NAME = re.compile(r"^[a-z0-9](-?[a-z0-9])*$", re.IGNORECASE)
APP_SLUG_REGEX = "^[a-z0-9](-?[a-z0-9])*$"
_APP_SLUG = re.compile(r"^[a-z0-9](-?[a-z0-9])*\Z")
_ENV_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*\Z")

COMMON_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
    "state_file": {"type": "path"},  # a gs:// URL passes the path type unchanged
    **STATE_BACKEND_ARGSPEC,
}
# The deployment URL: only the agent's outputs depend on it (and workspace_app has an
# argument of its own called url), so only workspace_agent has this option.
PROVIDER_URL_ARGSPEC: dict[str, dict[str, t.Any]] = {"url": {"type": "str"}}
_NOT_ARGUMENTS = frozenset(COMMON_ARGSPEC)


@dataclasses.dataclass(frozen=True)
class Context:
    """What a resource may read besides its own parameters."""

    environ: t.Mapping[str, str]
    url: GoURL
    agent_name: str | None  # the name of the agent ``agent_id`` refers to, when it is in the state
    agent_token: str | None = None  # the token workspace_agent's ``token`` adopts (a secret: never an argument)


@dataclasses.dataclass(frozen=True)
class ResourceType:
    """One resource type. ``arguments`` are the stored (ForceNew) inputs with defaults applied;
    ``create`` returns what is computed once, ``refresh`` what is recomputed on every run."""

    name: str
    noun: str
    argument_spec: dict[str, dict[str, t.Any]]
    key: t.Callable[[dict[str, t.Any], Context], str]
    validate: t.Callable[[dict[str, t.Any]], list[str]]
    arguments: t.Callable[[dict[str, t.Any]], dict[str, t.Any]]
    create: t.Callable[[dict[str, t.Any], Context], dict[str, t.Any]]
    refresh: t.Callable[[dict[str, t.Any], dict[str, t.Any], Context], dict[str, t.Any]] | None = None
    id_alias: str = ""  # the interface's field name for the id output (agentId, appId, ...)
    references_agent: bool = True
    # coderd attaches apps, scripts and envs whose agent_id is a dev container's subagent_id
    # to that dev container's sub-agent (provisioner/terraform/resources.go).
    on_subagents: bool = False
    # The computed id that children name (agent_id): kept in replaced_ids when a
    # replacement makes a new one, so the manifest still attaches them.
    referenced_id: str | None = None
    mutually_exclusive: list[list[str]] = dataclasses.field(default_factory=list)
    required_if: list[tuple[t.Any, ...]] = dataclasses.field(default_factory=list)
    secret_outputs: tuple[str, ...] = ()
    # The text options that may span lines (see fields.check_text_options); all others are one line.
    multi_line: frozenset[str] = frozenset()
    # The nested blocks of at most one item upstream (MaxItems 1), which Terraform writes as a list
    # of one object: taken as a dictionary or such a list (fields.unwrap_single_blocks).
    single_blocks: frozenset[str] = frozenset()

    def full_argument_spec(self) -> dict[str, dict[str, t.Any]]:
        return {**COMMON_ARGSPEC, **self.argument_spec}


def _plain_arguments(params: dict[str, t.Any]) -> dict[str, t.Any]:
    return {key: value for key, value in params.items() if key not in _NOT_ARGUMENTS}


def _new_id(_params: dict[str, t.Any], _ctx: Context) -> dict[str, t.Any]:
    return {"id": str(uuid.uuid4())}


def _validate_url_option(value: str | None, option: str) -> None:
    """helpers.ValidateURL: only what Go's url.Parse rejects."""
    if value is None:
        return
    try:
        parse_go_url(value)
    except GoURLError as exc:
        raise WorkspaceValidationError(f"{option}: {exc}") from None


def subagent_label(devcontainer_name: str) -> str:
    """What keys the children of a dev container's sub-agent in place of an agent name; the
    colon keeps it apart from every agent name (coderd's agent name rule has none)."""
    return f"devcontainer:{devcontainer_name}"


def _agent_key(params: dict[str, t.Any], ctx: Context) -> str:
    """Children are keyed by their agent's name, so a replaced agent (new id) keeps them."""
    return ctx.agent_name or params["agent_id"]


def _named_child_key(field: str) -> t.Callable[[dict[str, t.Any], Context], str]:
    """``<agent>.<field>[.<key>]``: the optional ``key`` tells apart several definitions of one
    name on one agent (upstream keys them by their resource addresses)."""
    return lambda params, ctx: f"{_agent_key(params, ctx)}.{params[field]}" + (f".{params['key']}" if params["key"] else "")


def referenced_ids(rtype: ResourceType, entry: dict[str, t.Any]) -> list[str]:
    """The ids children may name a stored entry by (``agent_id``): its current one, then those
    it had before replacements."""
    if rtype.referenced_id is None:
        raise ValueError(f"no child names a {rtype.name}")
    return [entry["computed"][rtype.referenced_id], *entry.get("replaced_ids", [])]


# ---------------------------------------------------------------------------- agent

_DISPLAY_APPS_DEFAULTS = {"vscode": True, "vscode_insiders": False, "web_terminal": True, "port_forwarding_helper": True, "ssh_helper": True}

_AGENT_SPEC: dict[str, dict[str, t.Any]] = {
    **PROVIDER_URL_ARGSPEC,
    "name": {"type": "str", "required": True},
    "agent_id": {"type": "str"},
    "token": {"type": "str", "no_log": True},
    "arch": {"type": "str", "choices": ["amd64", "armv7", "arm64"]},
    "os": {"type": "str", "choices": ["linux", "darwin", "windows"]},
    "auth": {"type": "str", "default": "token", "choices": ["token", "google-instance-identity", "aws-instance-identity", "azure-instance-identity"]},
    "api_key_scope": {"type": "str", "default": "all", "choices": ["all", "no_user_data"]},
    "dir": {"type": "str"},
    "env": {"type": "dict"},
    "startup_script": {"type": "str"},
    "startup_script_behavior": {"type": "str", "default": "non-blocking", "choices": ["blocking", "non-blocking"]},
    "shutdown_script": {"type": "str"},
    "connection_timeout": {"type": "int", "default": 120},
    "troubleshooting_url": {"type": "str"},
    "motd_file": {"type": "str"},
    "order": {"type": "int"},
    "metadata": {
        "type": "list",
        "elements": "dict",
        "aliases": ["metadatas"],
        "options": {
            "key": {"type": "str", "required": True, "no_log": False},
            "display_name": {"type": "str"},
            "script": {"type": "str", "required": True},
            "interval": {"type": "int", "required": True},
            "timeout": {"type": "int"},
            "order": {"type": "int"},
        },
    },
    "display_apps": {
        "type": "dict",
        "options": {
            "vscode": {"type": "bool", "default": True},
            "vscode_insiders": {"type": "bool", "default": False},
            "web_terminal": {"type": "bool", "default": True},
            "port_forwarding_helper": {"type": "bool", "default": True},
            "ssh_helper": {"type": "bool", "default": True},
        },
    },
    "resources_monitoring": {
        "type": "dict",
        "options": {
            "memory": {
                "type": "dict",
                "options": {"enabled": {"type": "bool", "required": True}, "threshold": {"type": "int", "required": True}},
            },
            "volume": {
                "type": "list",
                "elements": "dict",
                "aliases": ["volumes"],
                "options": {
                    "path": {"type": "str", "required": True},
                    "enabled": {"type": "bool", "required": True},
                    "threshold": {"type": "int", "required": True},
                },
            },
        },
    },
}


def validate_agent_name(name: str) -> None:
    """coderd's agent name rule (the agent name is the Terraform resource name upstream)."""
    if not name:
        raise WorkspaceValidationError("agent name cannot be empty")
    if not _AGENT_NAME.match(name) or name.endswith("\n"):
        if "_" in name:
            raise WorkspaceValidationError(
                f"agent name {go_quote(name)} contains underscores which are no longer supported, "
                f"please use hyphens instead (regex: {go_quote(AGENT_NAME_REGEX)})"
            )
        raise WorkspaceValidationError(f"agent name {go_quote(name)} does not match regex {go_quote(AGENT_NAME_REGEX)}")


def _validate_monitoring(monitoring: dict[str, t.Any] | None) -> None:
    if monitoring is None:
        return
    memory, volumes = monitoring["memory"], monitoring["volume"] or []
    if memory is None and not volumes:
        raise WorkspaceValidationError("resources_monitoring must define at least one monitor")
    if memory is not None and not 0 <= memory["threshold"] <= 100:
        raise WorkspaceValidationError(f"expected resources_monitoring.0.memory.0.threshold to be in the range (0 - 100), got {memory['threshold']}")
    paths: set[str] = set()
    for index, volume in enumerate(volumes):
        if not volume["path"]:
            raise WorkspaceValidationError("volume path must not be empty")
        if not posixpath.isabs(volume["path"]):
            raise WorkspaceValidationError("volume path must be an absolute path")
        if not 0 <= volume["threshold"] <= 100:
            raise WorkspaceValidationError(f"expected resources_monitoring.0.volume.{index}.threshold to be in the range (0 - 100), got {volume['threshold']}")
        if volume["path"] in paths:
            raise WorkspaceValidationError(f"duplicate volume path {go_quote(volume['path'])}")
        paths.add(volume["path"])


def _validate_agent(params: dict[str, t.Any]) -> list[str]:
    warnings: list[str] = []
    validate_agent_name(params["name"])
    if params["agent_id"] is not None and not is_uuid(params["agent_id"]):
        raise WorkspaceValidationError("agent_id: must be a UUID (8-4-4-4-12 hexadecimal digits), as coderd's agent ids are")
    if params["token"] is not None and not is_uuid(params["token"]):
        raise WorkspaceValidationError("token: must be a UUID (8-4-4-4-12 hexadecimal digits), as coderd's agent tokens are; the value is not shown")
    if params["state"] == "absent":
        return warnings
    if params["connection_timeout"] < 0:
        raise WorkspaceValidationError(f"expected connection_timeout to be at least (0), got {params['connection_timeout']}")
    if params["dir"] is not None:
        warnings.append("dir has been deprecated and will be removed in a future release.")
        if params["dir"] not in ("", "$HOME", "~"):
            warnings.append('"dir" is deprecated and will be removed in a future release.')
            warnings.append('Setting "dir" to a value other than $HOME will break Coder Desktop file sync.')
    seen: set[str] = set()
    for item in params["metadata"] or []:
        if item["key"] in seen:
            raise WorkspaceValidationError(f"duplicate agent metadata key {go_quote(item['key'])}")
        seen.add(item["key"])
    _validate_monitoring(params["resources_monitoring"])
    for name, value in (params["env"] or {}).items():
        if value is None:
            raise WorkspaceValidationError(f"env.{name}: must be a string, got null")
        terraform_string(f"env.{name}", value)
    return warnings


def _agent_arguments(params: dict[str, t.Any]) -> dict[str, t.Any]:
    arguments = _plain_arguments(params)
    del arguments["url"]  # the provider's, not the resource's: changing it is no replacement
    del arguments["token"]  # a secret, kept with what is computed: a new one updates the agent in place
    if arguments["env"] is not None:
        # map(string) upstream: Terraform converts numbers and bools to their strings.
        arguments["env"] = {str(key): terraform_string(f"env.{key}", value) for key, value in arguments["env"].items()}
    if arguments["display_apps"] is None:
        # Optional+Computed upstream: an omitted block is stored as the defaults.
        arguments["display_apps"] = dict(_DISPLAY_APPS_DEFAULTS)
    return arguments


def claimed_agent_token(environ: t.Mapping[str, str]) -> str | None:
    """The prebuild-claim token coderd passes, if any. It is written into the guest's
    environment file: only the shape coderd gives (a UUID) passes."""
    claimed = environ.get(RUNNING_AGENT_TOKEN_ENV)
    if claimed and not is_uuid(claimed):
        raise WorkspaceValidationError(f"the environment variable {RUNNING_AGENT_TOKEN_ENV} is not an agent token (a UUID); the value is not shown")
    return claimed or None


def agent_token(environ: t.Mapping[str, str], stored: str | None, adopted: str | None = None) -> str:
    """The token given to adopt (coderd's, passed by a template), else the prebuild-claim token
    when coderd passes one, else the stored token, else a new UUID.

    Upstream makes a new token on every read; a stored one keeps a second run unchanged
    (the token ends up in the VM's cloud-init, which must not change for nothing)."""
    return adopted or claimed_agent_token(environ) or stored or str(uuid.uuid4())


def agent_init_script(*, environ: t.Mapping[str, str], url: GoURL, os_name: str, arch: str, auth: str) -> str:
    """CODER_AGENT_SCRIPT_<os>_<arch> with ${ACCESS_URL} (origin + "/") and ${AUTH_TYPE} substituted."""
    script = environ.get(f"CODER_AGENT_SCRIPT_{os_name}_{arch}", "")
    if not script:
        return ""
    return script.replace("${ACCESS_URL}", url.origin_with_slash()).replace("${AUTH_TYPE}", auth)


def _agent_create(params: dict[str, t.Any], _ctx: Context) -> dict[str, t.Any]:
    return {"id": params["agent_id"] or str(uuid.uuid4())}


def _agent_refresh(arguments: dict[str, t.Any], stored: dict[str, t.Any], ctx: Context) -> dict[str, t.Any]:
    return {
        "token": agent_token(ctx.environ, stored.get("token"), ctx.agent_token),
        "init_script": agent_init_script(environ=ctx.environ, url=ctx.url, os_name=arguments["os"], arch=arguments["arch"], auth=arguments["auth"]),
    }


AGENT = ResourceType(
    name="workspace_agent",
    noun="agent",
    argument_spec=_AGENT_SPEC,
    key=lambda params, _ctx: params["name"],
    validate=_validate_agent,
    arguments=_agent_arguments,
    create=_agent_create,
    refresh=_agent_refresh,
    id_alias="agent_id",
    referenced_id="id",
    references_agent=False,
    single_blocks=frozenset({"display_apps", "resources_monitoring", "resources_monitoring.memory"}),
    required_if=[("state", "present", ["arch", "os"])],
    secret_outputs=("token",),
    multi_line=frozenset({"startup_script", "shutdown_script", "metadata.script", "env.*"}),
)

# ---------------------------------------------------------------------------- app

_APP_SPEC: dict[str, dict[str, t.Any]] = {
    "slug": {"type": "str", "required": True},
    "agent_id": {"type": "str"},
    "command": {"type": "str"},
    "url": {"type": "str"},
    "display_name": {"type": "str"},
    "external": {"type": "bool"},
    "subdomain": {"type": "bool"},
    "share": {"type": "str", "choices": ["owner", "authenticated", "public"]},
    "healthcheck": {
        "type": "dict",
        "options": {"url": {"type": "str", "required": True}, "interval": {"type": "int", "required": True}, "threshold": {"type": "int", "required": True}},
    },
    "icon": {"type": "str"},
    "group": {"type": "str"},
    "order": {"type": "int"},
    "hidden": {"type": "bool", "default": False},
    "open_in": {"type": "str", "default": "slim-window", "choices": ["tab", "slim-window"]},
    "tooltip": {"type": "str"},
}


def validate_app_slug(slug: str) -> None:
    if not _APP_SLUG.match(slug):
        raise WorkspaceValidationError(
            'invalid "coder_app" slug, must be a valid hostname '
            f'("{APP_SLUG_REGEX}", cannot contain two consecutive hyphens or start/end with a hyphen): {go_quote(slug)}'
        )


def _validate_app(params: dict[str, t.Any]) -> list[str]:
    validate_app_slug(params["slug"])
    if params["state"] == "absent":
        return []
    display_name, group, tooltip = params["display_name"], params["group"], params["tooltip"]
    if display_name is not None and len(display_name.encode()) > 64:
        raise WorkspaceValidationError("display name is too long (max 64 characters)")
    if group is not None and len(group.encode()) > 64:
        raise WorkspaceValidationError("group name is too long (max 64 characters)")
    if tooltip is not None and len(tooltip.encode()) > 2048:
        raise WorkspaceValidationError("tooltip is too long (max 2048 characters)")
    _validate_url_option(params["icon"], "icon")
    warnings = []
    if params["hidden"]:
        # Upstream warns (does not fail) for non-zero values of these when the app is hidden.
        if display_name:
            warnings.append("`display_name` set when app is hidden")
        if params["icon"]:
            warnings.append("`icon` set when app is hidden")
        if params["order"]:
            warnings.append("`order` set when app is hidden")
    return warnings


def _app_arguments(params: dict[str, t.Any]) -> dict[str, t.Any]:
    arguments = _plain_arguments(params)
    # Defaults applied here, not in the spec: upstream's ConflictsWith fires on any value
    # the user wrote, even false/owner, which the spec can only see when there is no default.
    if arguments["external"] is None:
        arguments["external"] = False
    if arguments["share"] is None:
        arguments["share"] = "owner"
    return arguments


APP = ResourceType(
    name="workspace_app",
    noun="app",
    argument_spec=_APP_SPEC,
    key=lambda params, _ctx: params["slug"],
    validate=_validate_app,
    arguments=_app_arguments,
    create=_new_id,
    id_alias="app_id",
    on_subagents=True,
    single_blocks=frozenset({"healthcheck"}),
    mutually_exclusive=[
        ["command", "url"],
        ["command", "subdomain"],
        ["command", "healthcheck"],
        ["external", "healthcheck"],
        ["external", "command"],
        ["external", "subdomain"],
        ["external", "share"],
    ],
    required_if=[("state", "present", ["agent_id"]), ("state", "present", ["command", "url"], True)],
    multi_line=frozenset({"command", "tooltip"}),
)

# ---------------------------------------------------------------------------- env

_ENV_SPEC: dict[str, dict[str, t.Any]] = {
    "agent_id": {"type": "str", "required": True},
    "name": {"type": "str", "required": True},
    # raw, not str: Ansible's str conversion would store a list as its Python repr.
    "value": {"type": "raw"},
    "merge_strategy": {"type": "str", "default": "replace", "choices": ["replace", "append", "prepend", "error"]},
    "key": {"type": "str", "no_log": False},
}


def _validate_env(params: dict[str, t.Any]) -> list[str]:
    if not _ENV_NAME.match(params["name"]):
        raise WorkspaceValidationError("invalid value for name (must be a valid environment variable name)")
    terraform_string("value", params["value"])
    return []


def _env_arguments(params: dict[str, t.Any]) -> dict[str, t.Any]:
    arguments = _plain_arguments(params)
    arguments["value"] = terraform_string("value", arguments["value"])
    return arguments


ENV = ResourceType(
    name="workspace_env",
    noun="env",
    argument_spec=_ENV_SPEC,
    key=_named_child_key("name"),
    validate=_validate_env,
    arguments=_env_arguments,
    create=_new_id,
    id_alias="env_id",
    on_subagents=True,
    multi_line=frozenset({"value"}),
)

# ---------------------------------------------------------------------------- script

_SCRIPT_SPEC: dict[str, dict[str, t.Any]] = {
    "agent_id": {"type": "str", "required": True},
    "display_name": {"type": "str", "required": True},
    "script": {"type": "str"},
    "log_path": {"type": "str"},
    "icon": {"type": "str"},
    "cron": {"type": "str"},
    "start_blocks_login": {"type": "bool", "default": False},
    "run_on_start": {"type": "bool", "default": False},
    "run_on_stop": {"type": "bool", "default": False},
    "timeout": {"type": "int"},
    # Several scripts of one agent may have the same display name (upstream keys them by resource
    # address; the registry's archive module has a start and a stop script both called "Archive").
    "key": {"type": "str", "no_log": False},
}


def _validate_script(params: dict[str, t.Any]) -> list[str]:
    if params["state"] == "absent":
        return []
    warnings: list[str] = []
    if params["timeout"] is not None and params["timeout"] < 1:
        raise WorkspaceValidationError(f"expected timeout to be at least (1), got {params['timeout']}")
    if params["cron"] is not None:
        warnings, error = script_cron_warnings_and_error(params["cron"])
        if error:
            raise WorkspaceValidationError(error)
    if not params["run_on_start"] and not params["run_on_stop"] and not params["cron"]:
        raise WorkspaceValidationError('at least one of "run_on_start", "run_on_stop", or "cron" must be set')
    if not params["run_on_start"] and params["start_blocks_login"]:
        raise WorkspaceValidationError('"start_blocks_login" can only be set if "run_on_start" is "true"')
    return warnings


def _script_arguments(params: dict[str, t.Any]) -> dict[str, t.Any]:
    arguments = _plain_arguments(params)
    if arguments["timeout"] is None:
        arguments["timeout"] = 0
    return arguments


SCRIPT = ResourceType(
    name="workspace_script",
    noun="script",
    argument_spec=_SCRIPT_SPEC,
    key=_named_child_key("display_name"),
    validate=_validate_script,
    arguments=_script_arguments,
    create=_new_id,
    id_alias="script_id",
    on_subagents=True,
    required_if=[("state", "present", ["script"])],
    multi_line=frozenset({"script"}),
)

# ---------------------------------------------------------------------------- devcontainer

_DEVCONTAINER_SPEC: dict[str, dict[str, t.Any]] = {
    "name": {"type": "str", "required": True},
    "agent_id": {"type": "str"},
    "workspace_folder": {"type": "str"},
    "config_path": {"type": "str"},
}


def _validate_devcontainer(params: dict[str, t.Any]) -> list[str]:
    if not params["name"]:
        raise WorkspaceValidationError('expected "name" to not be an empty string, got ')
    if params["state"] == "present" and params["workspace_folder"] == "":
        raise WorkspaceValidationError('expected "workspace_folder" to not be an empty string, got ')
    return []


def _devcontainer_create(_params: dict[str, t.Any], _ctx: Context) -> dict[str, t.Any]:
    return {"id": str(uuid.uuid4()), "subagent_id": str(uuid.uuid4())}


DEVCONTAINER = ResourceType(
    name="workspace_devcontainer",
    noun="devcontainer",
    argument_spec=_DEVCONTAINER_SPEC,
    key=lambda params, _ctx: params["name"],
    validate=_validate_devcontainer,
    arguments=_plain_arguments,
    create=_devcontainer_create,
    id_alias="devcontainer_id",
    referenced_id="subagent_id",
    required_if=[("state", "present", ["agent_id", "workspace_folder"])],
)

# ---------------------------------------------------------------------------- external agent

EXTERNAL_AGENT = ResourceType(
    name="workspace_external_agent",
    noun="external_agent",
    argument_spec={"agent_id": {"type": "str", "required": True}},
    key=_agent_key,
    validate=lambda _params: [],
    arguments=_plain_arguments,
    create=_new_id,
    id_alias="external_agent_id",
)

# ---------------------------------------------------------------------------- metadata

_METADATA_SPEC: dict[str, dict[str, t.Any]] = {
    "resource_id": {"type": "str", "required": True},
    "hide": {"type": "bool"},
    "icon": {"type": "str"},
    "daily_cost": {"type": "int"},
    "items": {
        "type": "list",
        "elements": "dict",
        "aliases": ["item"],
        "options": {
            "key": {"type": "str", "required": True, "no_log": False},
            "value": {"type": "str"},
            "sensitive": {"type": "bool", "default": False},
        },
    },
}


def _validate_metadata(params: dict[str, t.Any]) -> list[str]:
    if params["state"] == "absent":
        return []
    _validate_url_option(params["icon"], "icon")
    seen: set[str] = set()
    for item in params["items"] or []:
        if item["key"] in seen:
            raise WorkspaceValidationError(f"duplicate resource metadata key {go_quote(item['key'])}")
        seen.add(item["key"])
    return []


def _metadata_arguments(params: dict[str, t.Any]) -> dict[str, t.Any]:
    arguments = _plain_arguments(params)
    # is_null: the item's value was omitted (or null); "" is a value. Stored and returned as
    # upstream's "item": "items" would be unreachable in Jinja (it is dict.items).
    del arguments["items"]
    arguments["item"] = [{**item, "is_null": item["value"] is None} for item in params["items"] or []]
    return arguments


METADATA = ResourceType(
    name="workspace_metadata",
    noun="metadata",
    argument_spec=_METADATA_SPEC,
    key=lambda params, _ctx: params["resource_id"],
    validate=_validate_metadata,
    arguments=_metadata_arguments,
    create=_new_id,
    id_alias="metadata_id",
    references_agent=False,
    multi_line=frozenset({"items.value"}),
)

RESOURCE_TYPES: dict[str, ResourceType] = {rt.name: rt for rt in (AGENT, APP, DEVCONTAINER, ENV, EXTERNAL_AGENT, METADATA, SCRIPT)}
