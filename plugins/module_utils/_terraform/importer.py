# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""terraform_import: a Terraform state as a playbook and a workspace state.

Every resource instance of the state is either converted (one task) or listed with the reason
it is not; data sources are listed with the lookup that reads them when a play runs. The
tasks run in an order the state's dependencies allow. The playbook is written atomically,
never through a symbolic link, and an existing file with other content is replaced only with
``force``; the workspace state is written through its own backend (lock, 0600, or a Cloud
Storage write conditional on the generation), and an entry there that differs from what the
Terraform state says is replaced only with ``force``. Check mode writes nothing. Nothing of
a secret (an agent's token, what the state marks sensitive, what the modules keep no_log)
is returned; the diff shows them masked."""

from __future__ import annotations

import dataclasses
import errno
import heapq
import os
import re
import stat
import typing as t

from .._common.safe_files import OPEN_FLAGS, exposed_directory, read_bounded, write_atomic
from .._common.text import one_line_problem, printable
from .._storage.errors import StorageError, redact
from .._workspace.backend import STATE_FILE_ENV, open_backend
from .._workspace.backend_options import STATE_BACKEND_OPTIONS
from .._workspace.entries import check_entries
from .._workspace.errors import WorkspaceError
from .coder import CODER_DATA_SOURCES, CODER_MODULES, CoderConverter
from .errors import NotConvertedError, TerraformImportError
from .hcl import read_configuration
from .libvirt import LIBVIRT_DATA_SOURCES, LIBVIRT_MODULES, convert_libvirt
from .libvirt08 import Context08, state_version
from .outputs import MASK, OUTPUTS_VARIABLE, read_outputs
from .teardown import reverse_order, teardown_task
from .tfstate import MAX_TFSTATE_BYTES, Instance, TerraformState, parse_tfstate, read_local, strings_in, values_at
from .yaml_text import Trusted, dump_yaml, quote

if t.TYPE_CHECKING:
    from .tasks import Task

__all__ = ["ADDRESS_VARIABLE", "IMPORT_ARGSPEC", "IMPORT_RULES", "MASK", "run_import"]

# A secret shorter than this would mask every such run of characters in the diff.
_SHORTEST_SECRET = 3
# The register names of agents' tasks (coder.register_name), the only names a template names.
_REGISTER = re.compile(r"tf_[a-z0-9_]+\Z")
_PROVIDERS = {"dmacvicar/libvirt": "libvirt", "-/libvirt": "libvirt", "coder/coder": "coder", "-/coder": "coder"}
DEFAULT_WORKSPACE_STATE = "workspace-state.json"
# The task variable that holds a task's Terraform address (the plan callback shows it).
ADDRESS_VARIABLE = "devinfra_tf_address"

IMPORT_RULES: dict[str, t.Any] = {"mutually_exclusive": [("src", "src_dir")], "required_one_of": [("src", "src_dir")]}
IMPORT_ARGSPEC: dict[str, dict[str, t.Any]] = {
    "src": {"type": "str"},
    "src_dir": {"type": "path"},  # a configuration never applied: its .tf files (hcl.py)
    "dest": {"type": "path", "required": True},
    "force": {"type": "bool", "default": False},
    "state_file": {"type": "str"},
    "teardown_dest": {"type": "path"},
    "hosts": {"type": "str", "default": "localhost"},
    "libvirt_uri": {"type": "str"},
    "src_encryption_key": {"type": "str", "no_log": True},
    "auth_kind": {"type": "str", "choices": ["application", "serviceaccount", "accesstoken", "machineaccount"]},
    "access_token": {"type": "str", "no_log": True},
    "service_account_file": {"type": "path"},
    "service_account_contents": {"type": "raw", "no_log": True},
    "service_account_email": {"type": "str"},
    "scopes": {"type": "list", "elements": "str"},
    "api_endpoint": {"type": "str"},
    "state_encryption_key": {"type": "str", "no_log": True},
}


@dataclasses.dataclass
class _Plan:
    state: TerraformState
    tasks: list[Task]
    not_converted: list[dict[str, str]]
    secrets: set[str]
    warnings: list[str]
    teardown: list[Task]
    not_removed: list[dict[str, str]]
    outputs: list[dict[str, t.Any]]


# ---------------------------------------------------------------------------- reading


def _read_source(params: t.Mapping[str, t.Any], environ: t.Mapping[str, str], warnings: list[str]) -> bytes:
    src = params["src"]
    if one_line_problem(src):
        raise TerraformImportError(f"src: contains {one_line_problem(src)}")
    if src.startswith("gs://"):
        return _read_gcs(src, params, environ, warnings)
    return read_local(os.path.expanduser(src))


def _read_gcs(src: str, params: t.Mapping[str, t.Any], environ: t.Mapping[str, str], warnings: list[str]) -> bytes:
    """The object through the workspace state's Cloud Storage transport (its credentials, its
    bounds: no redirect followed, nothing read past MAX_TFSTATE_BYTES)."""
    from .._workspace.state_gcs import GcsStateBackend  # noqa: PLC0415  (google-auth only when needed)

    key = params.get("src_encryption_key")
    if key is None:
        key = environ.get("GOOGLE_ENCRYPTION_KEY", "")  # what Terraform's gcs backend reads
    options = {name: params.get(name) for name in STATE_BACKEND_OPTIONS}
    options["state_encryption_key"] = key
    try:
        backend = GcsStateBackend.from_options(src, options, environ=environ)
    except WorkspaceError as exc:
        raise TerraformImportError(str(exc).replace("state_file:", "src:", 1).replace("state_encryption_key", "src_encryption_key")) from None
    warnings.extend(backend.warnings)
    try:
        answer = backend.transport.send(
            "GET",
            backend.transport.url("b", backend.bucket, "o", backend.name),
            operation=f"read the Terraform state {src}",
            params={"alt": "media"},
            headers=backend.key_headers,
            accept=(404,),
            limit=MAX_TFSTATE_BYTES,
            what="the Terraform state object",
        )
    except StorageError as exc:
        raise TerraformImportError(redact(str(exc), backend.secrets)) from None
    if answer.status_code == 404:
        raise TerraformImportError(f"src: {src} does not exist (HTTP 404)")
    return answer.content


# ---------------------------------------------------------------------------- converting


def _plan(state: TerraformState, environ: t.Mapping[str, str]) -> _Plan:
    tasks: list[Task] = []
    not_converted: list[dict[str, str]] = []
    secrets: set[str] = set()
    coder = CoderConverter(environ)
    libvirt_version, mixed = state_version(state.instances)
    context = Context08.of(state.instances)
    order = sorted(
        range(len(state.instances)),
        key=lambda i: (CoderConverter.order(state.instances[i]) if state.instances[i].provider in ("coder/coder", "-/coder") else 0, i),
    )
    for index in order:
        instance = state.instances[index]
        for path in instance.sensitive_paths:
            secrets.update(s for value in values_at(instance.attributes, path) for s in strings_in(value))
        try:
            task = _convert(instance, coder, (libvirt_version, mixed, context))
        except NotConvertedError as exc:
            not_converted.append({"address": instance.address, "reason": printable(str(exc), 400)})
            continue
        tasks.append(task)
        secrets |= task.secrets
    coder.separate_keys()
    tokens = dict(coder.tokens)
    # The tokens of agents that were not converted: no task may hold one either.
    orphans = {
        instance.attributes["token"]: instance.address
        for instance in state.instances
        if instance.type == "coder_agent" and isinstance(instance.attributes.get("token"), str) and instance.attributes["token"] not in tokens
    }
    orphans = {token: address for token, address in orphans.items() if len(token) >= _SHORTEST_SECRET}
    secrets.update(orphans)
    kept = []
    for task in tasks:
        try:
            held = [address for token, address in orphans.items() if any(token in text for text in strings_in(task.args))]
            if held:
                raise NotConvertedError(f"it holds the token of {held[0]}, which is not converted (the playbook never holds a token)")
            task.args = _first(_refer_to_tokens(task.args, tokens, task))
        except NotConvertedError as exc:
            not_converted.append({"address": task.address, "reason": str(exc)})
            continue
        kept.append(task)
    needs = _needs(kept, state.instances, coder)
    tasks = _ordered(kept, needs)
    teardown, left = _teardown(state, tasks, needs, (libvirt_version, mixed))
    outputs, output_secrets = read_outputs(state.outputs, secrets | set(orphans))
    secrets = {s for s in secrets | output_secrets if len(s) >= _SHORTEST_SECRET}
    return _Plan(state=state, tasks=tasks, not_converted=not_converted, secrets=secrets, warnings=[], teardown=teardown, not_removed=left, outputs=outputs)


def _convert(instance: Instance, coder: CoderConverter, libvirt: tuple[str, str | None, Context08]) -> Task:
    libvirt_version, mixed, context = libvirt
    if instance.problem:
        raise NotConvertedError(instance.problem)
    family = _PROVIDERS.get(instance.provider)
    if family is None:
        if not instance.provider:
            raise NotConvertedError('its provider is not written as Terraform writes one (provider["registry.terraform.io/NAMESPACE/TYPE"])')
        raise NotConvertedError(f"its provider {printable(instance.provider, 80)} is not one this module converts (dmacvicar/libvirt, coder/coder)")
    if instance.mode == "data":
        lookups = LIBVIRT_DATA_SOURCES if family == "libvirt" else CODER_DATA_SOURCES
        if instance.type in lookups:
            raise NotConvertedError(
                f"a data source: the {lookups[instance.type]} lookup reads it when a play runs (the tasks hold the values this state had for it)"
            )
        raise NotConvertedError(f"a data source no lookup of this collection reads ({instance.type})")
    if family == "libvirt" and mixed:
        raise NotConvertedError(mixed)
    if family == "libvirt" and instance.type in LIBVIRT_MODULES:
        return convert_libvirt(instance, libvirt_version, context)
    if family == "coder" and instance.type in CODER_MODULES:
        return coder.convert(instance)
    raise NotConvertedError(f"no module of this collection ports {instance.type}")


@dataclasses.dataclass(frozen=True)
class _TokenOf:
    """Where an agent's token was: the register of that agent's task."""

    register: str


@dataclasses.dataclass(frozen=True)
class _WithTokens:
    """A string of the state that held agent tokens: its literal pieces and the tokens' places.
    The playbook writes the pieces as task variables (``!unsafe``) and the string as a template
    that joins them with the registered tokens, so no piece is ever templated."""

    parts: tuple[str | _TokenOf, ...]


def _refer_to_tokens(value: t.Any, tokens: dict[str, str], task: Task) -> t.Any:
    """``value`` with each string that holds an agent's token split around it (``_WithTokens``):
    the playbook refers to the registered result of that agent's task instead (it never holds a
    token)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if any(token in key for token in tokens):
                raise NotConvertedError("an agent's token is in a key of its attributes, which cannot refer to it")
            out[key] = _refer_to_tokens(item, tokens, task)
        return out
    if isinstance(value, list):
        return [_refer_to_tokens(item, tokens, task) for item in value]
    if not isinstance(value, str) or not any(token in value for token in tokens):
        return value
    parts: list[str | _TokenOf] = []
    rest = value
    while rest:
        found = min(((rest.find(token), token) for token in tokens if token in rest), default=None)
        if found is None:
            parts.append(rest)
            break
        if found[0]:
            parts.append(rest[: found[0]])
        register = tokens[found[1]]
        if not _REGISTER.match(register):  # only a name the importer made goes into a template
            raise NotConvertedError(f"the register name {printable(register, 80)} is not one the importer writes")
        parts.append(_TokenOf(register))
        task.depends_on.add(f"register:{register}")
        rest = rest[found[0] + len(found[1]) :]
    return _WithTokens(tuple(parts))


# The options that say which object a task is about: written first.
_FIRST = ("name", "slug", "display_name", "resource_id", "agent_id", "pool", "uuid", "type")


def _first(args: dict[str, t.Any]) -> dict[str, t.Any]:
    ordered = {key: args[key] for key in _FIRST if key in args}
    ordered.update((key, value) for key, value in args.items() if key not in ordered)
    return ordered


def _needs(tasks: list[Task], instances: list[Instance], coder: CoderConverter) -> dict[str, set[str]]:
    """Address -> the addresses of what must exist first: the state's dependencies (which name
    resources, not instances), an agent before what holds its token or names its id. Every
    managed instance of the state has an entry, converted or not (the teardown's order)."""
    by_resource: dict[str, list[str]] = {}
    for instance in instances:
        by_resource.setdefault(instance.resource, []).append(instance.address)
    registers = {task.register: task.address for task in tasks if task.register}
    agents = {done.task.workspace_entry[1]["computed"]["id"]: done.task.address for done in coder.done if done.task.register and done.task.workspace_entry}
    subagents = {
        done.task.workspace_entry[1]["computed"]["subagent_id"]: done.task.address
        for done in coder.done
        if done.task.workspace_entry and "subagent_id" in done.task.workspace_entry[1]["computed"]
    }
    needs: dict[str, set[str]] = {}
    for instance in instances:
        needed = needs.setdefault(instance.address, set())
        for dependency in instance.dependencies:
            needed.update(by_resource.get(dependency, []))
    for task in tasks:
        needed = needs.setdefault(task.address, set())
        for mark in task.depends_on:
            if mark.startswith("register:") and mark[9:] in registers:
                needed.add(registers[mark[9:]])
        agent_id = task.args.get("agent_id") if task.module != "workspace_agent" else None
        for owner in (agents.get(agent_id), subagents.get(agent_id)):
            if owner is not None:
                needed.add(owner)
    for address, needed in needs.items():
        needed.discard(address)
    return needs


def _ordered(tasks: list[Task], needs: dict[str, set[str]]) -> list[Task]:
    """The tasks in an order that runs what each depends on first; otherwise by kind, then as in the state."""
    position = {task.address: index for index, task in enumerate(tasks)}
    before: dict[int, set[int]] = {index: {position[a] for a in needs.get(task.address, set()) if a in position} for index, task in enumerate(tasks)}
    after: dict[int, set[int]] = {index: set() for index in range(len(tasks))}
    for index, needed in before.items():
        for other in needed:
            after[other].add(index)
    waiting = {index: len(needed) for index, needed in before.items()}
    ready = [(tasks[index].rank, index) for index, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    out: list[Task] = []
    while ready:
        _rank, index = heapq.heappop(ready)
        out.append(tasks[index])
        for following in after[index]:
            waiting[following] -= 1
            if waiting[following] == 0:
                heapq.heappush(ready, (tasks[following].rank, following))
    if len(out) < len(tasks):  # a cycle (a state Terraform would not write): by kind, then as in the state
        done = {id(task) for task in out}
        out.extend(sorted((task for task in tasks if id(task) not in done), key=lambda task: (task.rank, position[task.address])))
    return out


def _teardown(state: TerraformState, tasks: list[Task], needs: dict[str, set[str]], version: tuple[str, str | None]) -> tuple[list[Task], list[dict[str, str]]]:
    """The teardown's tasks (each object of the state, removed after what needs it) and the
    managed instances it leaves, with the reason."""
    converted = {task.address: task for task in tasks}
    removals: dict[str, Task] = {}
    left: list[dict[str, str]] = []
    for instance in state.instances:
        if instance.mode == "data":
            continue  # a data source made nothing
        try:
            if instance.problem and not instance.tainted:
                raise NotConvertedError(instance.problem)
            if instance.address in removals:
                raise NotConvertedError("another instance of the state has the same address")
            if _PROVIDERS.get(instance.provider) is None:
                raise NotConvertedError("its provider is not one this module converts, so no task of this collection removes it")
            removals[instance.address] = teardown_task(instance, converted.get(instance.address), *version)
        except NotConvertedError as exc:
            left.append({"address": instance.address, "reason": printable(str(exc), 400)})
    order = reverse_order(list(removals), needs)
    return [removals[address] for address in order], left


# ---------------------------------------------------------------------------- the playbook


def _masked(value: t.Any, secrets: set[str]) -> t.Any:
    if isinstance(value, dict):
        return {key: _masked(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    if isinstance(value, _WithTokens):
        return _WithTokens(tuple(_masked(part, secrets) for part in value.parts))
    if isinstance(value, str):
        text = value
        for secret in sorted(secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return text
    return value


def _written(value: t.Any, spec: dict[str, t.Any] | None, task_vars: dict[str, t.Any]) -> t.Any:
    """``value`` as the playbook holds it: the option names ``spec`` declares Trusted (the
    converters refused any other where the spec has options), each string with tokens a
    template built from names only (task variables that hold its pieces, the agents' registers)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            option = spec.get(key) if spec is not None and isinstance(key, str) else None
            out[Trusted(key) if option is not None else key] = _written(item, (option or {}).get("options"), task_vars)
        return out
    if isinstance(value, list):
        return [_written(item, spec, task_vars) for item in value]
    if not isinstance(value, _WithTokens):
        return value
    names = []
    for part in value.parts:
        if isinstance(part, _TokenOf):
            names.append(f"{part.register}.agent.token")
        else:
            name = f"tf_literal_{len(task_vars)}"
            task_vars[Trusted(name)] = part  # a plain string: written !unsafe, never templated
            names.append(name)
    return Trusted("{{ " + " ~ ".join(names) + " }}")


def mask_text(text: str, secrets: set[str]) -> str:
    """``text`` (a file as it was) with each secret masked as it is written there: as it is, as
    a quoted scalar holds it, and each of its lines, as a literal block holds them."""
    variants: set[str] = set()
    for secret in secrets:
        variants |= {secret, quote(secret)[1:-1]}
        variants |= {line.strip() for line in secret.splitlines() if len(line.strip()) >= _SHORTEST_SECRET}
    for variant in sorted(variants, key=len, reverse=True):
        text = text.replace(variant, MASK)
    return text


def _play(name: str, tasks: list[Task], params: t.Mapping[str, t.Any], state_location: str | None) -> dict[str, t.Any]:
    """The play's keywords. Only what the importer makes itself is Trusted (written as it is);
    every other string, key or value - the state's, and the options given here - is written !unsafe."""
    play: dict[str, t.Any] = {Trusted("name"): Trusted(name), Trusted("hosts"): params["hosts"], Trusted("gather_facts"): False}
    defaults: dict[str, t.Any] = {}
    if params.get("libvirt_uri") and any(task.module.startswith("libvirt_") for task in tasks):
        defaults[Trusted("group/devinfra.providers.libvirt")] = {Trusted("uri"): params["libvirt_uri"]}
    if state_location is not None and any(task.module.startswith("workspace_") for task in tasks):
        defaults[Trusted("group/devinfra.providers.workspace")] = {Trusted("state_file"): state_location}
    if defaults:
        play[Trusted("module_defaults")] = defaults
    return play


def _task_entries(tasks: list[Task], secrets: set[str], *, masked: bool) -> list[dict[str, t.Any]]:
    """The tasks as the playbook holds them, each with its Terraform address as the task
    variable ``devinfra_tf_address`` (the plan callback shows it)."""
    entries = []
    for task in tasks:
        args = task.args
        if masked:
            args = _masked({key: MASK if key in task.masked_options else value for key, value in args.items()}, secrets)
        task_vars: dict[str, t.Any] = {}
        args = _written(args, task.spec, task_vars)
        task_vars[Trusted(ADDRESS_VARIABLE)] = task.address
        entry: dict[str, t.Any] = {Trusted("name"): task.address, Trusted(task.fqcn): args, Trusted("vars"): task_vars}
        if task.register:
            if not _REGISTER.match(task.register):
                raise TerraformImportError(f"the register name {printable(task.register, 80)} is not one the importer writes")
            entry[Trusted("register")] = Trusted(task.register)
        entries.append(entry)
    return entries


def _comments(title: str, items: list[tuple[str, str]]) -> list[str]:
    if not items:
        return []
    return ["", f"# {title}"] + [f"# - {printable(what, 300)}: {printable(why, 600)}" for what, why in items]


def _origin(plan: _Plan, params: t.Mapping[str, t.Any]) -> list[str]:
    state = plan.state
    origin = f"(Terraform {printable(state.terraform_version, 40) or 'of an unknown version'}, serial {state.serial}, lineage {printable(state.lineage, 80)})."
    if params.get("src_dir"):
        origin = "(the .tf files of a configuration, not a state: what they give literally)."
    return [
        "---",
        f"# Written by devinfra.providers.terraform_import from {printable(str(params.get('src') or params.get('src_dir')), 300)}",
        f"# {origin}",
    ]


def _document(header: list[str], play: dict[str, t.Any], footer: list[str]) -> str:
    return "\n".join(header) + "\n" + dump_yaml([play]) + ("\n".join(footer) + "\n" if footer else "")


def _playbook(plan: _Plan, params: t.Mapping[str, t.Any], state_location: str | None, *, masked: bool) -> str:
    play = _play("Resources imported from a Terraform state", plan.tasks, params, state_location)
    values = {output["name"]: output["value"] for output in plan.outputs if output["variable"] is not None}
    if values:
        play[Trusted("vars")] = {Trusted(OUTPUTS_VARIABLE): values}
    play[Trusted("tasks")] = _task_entries(plan.tasks, plan.secrets, masked=masked)
    header = [
        *_origin(plan, params),
        "# Each task is one resource of that state; run it with --check --diff first: a task that would change",
        "# something shows where the state and the object differ.",
    ]
    if plan.outputs:
        header.append(f"# The state's outputs are the play's variable {OUTPUTS_VARIABLE} (those not written are listed at the end).")
    footer = _comments("Not converted:", [(item["address"], item["reason"]) for item in plan.not_converted])
    footer += _comments(
        "Not carried (set in the state, not an option of the task):",
        [(f"{task.address}: {path}", why) for task in plan.tasks for path, why in task.not_carried],
    )
    footer += _comments("Outputs not written:", [(output["name"], output["reason"]) for output in plan.outputs if output["variable"] is None])
    return _document(header, play, footer)


def _teardown_playbook(plan: _Plan, params: t.Mapping[str, t.Any], state_location: str | None) -> str:
    """The counterpart of terraform destroy: each object of the state removed (never a secret in it: the tasks name objects only)."""
    play = _play("Remove the resources of a Terraform state", plan.teardown, params, state_location)
    play[Trusted("tasks")] = _task_entries(plan.teardown, plan.secrets, masked=False)
    header = [
        *_origin(plan, params),
        "# It removes the objects of that state and nothing else, each after what depends on it, as terraform destroy",
        "# would; run it with --check first: the tasks that would remove something report a change.",
    ]
    return _document(header, play, _comments("Not removed by this playbook:", [(item["address"], item["reason"]) for item in plan.not_removed]))


# ---------------------------------------------------------------------------- writing


def _open_dest_directory(option: str, dest: str) -> int:
    directory = os.path.dirname(dest)
    try:
        return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise TerraformImportError(f"{option}: the directory {printable(directory)} does not exist") from None
    except OSError as exc:
        raise TerraformImportError(f"{option}: cannot open the directory {printable(directory)}: {exc.strerror}") from None


def _read_dest(option: str, dir_fd: int, dest: str) -> str | None:
    """The text at ``dest`` now, or None when there is nothing; a link or a non-file is refused."""
    name = os.path.basename(dest)
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise TerraformImportError(f"{option}: {printable(dest)} is a symbolic link; a playbook is never written through one")
    if not stat.S_ISREG(info.st_mode):
        raise TerraformImportError(f"{option}: {printable(dest)} exists and is not a regular file")
    try:
        fd = os.open(name, os.O_RDONLY | OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TerraformImportError(f"{option}: {printable(dest)} is a symbolic link; a playbook is never written through one") from None
        raise TerraformImportError(f"{option}: cannot read {printable(dest)}: {exc.strerror}") from None
    try:
        data = read_bounded(fd, MAX_TFSTATE_BYTES)
    finally:
        os.close(fd)
    if data is None:
        raise TerraformImportError(f"{option}: {printable(dest)} exists and is larger than a playbook this module writes; it was left untouched")
    return data.decode("utf-8", errors="replace")


def _workspace_location(params: t.Mapping[str, t.Any], dest: str, environ: t.Mapping[str, str]) -> str:
    location = params.get("state_file") or environ.get(STATE_FILE_ENV) or os.path.join(os.path.dirname(dest), DEFAULT_WORKSPACE_STATE)
    if one_line_problem(location):
        raise TerraformImportError(f"state_file: contains {one_line_problem(location)}")
    return location if location.startswith("gs://") else os.path.abspath(os.path.expanduser(location))


def _workspace_change(entries: dict[str, dict[str, t.Any]], *, force: bool) -> t.Callable[[t.Any], dict[str, t.Any]]:
    def same(existing: dict[str, t.Any], entry: dict[str, t.Any]) -> bool:
        # The init script is recomputed by every run of the agent's task; the rest is what matters.
        def core(item: dict[str, t.Any]) -> tuple[t.Any, t.Any]:
            return item.get("arguments"), {k: v for k, v in (item.get("computed") or {}).items() if k != "init_script"}

        return core(existing) == core(entry)

    def change(state: t.Any) -> dict[str, t.Any]:
        before = sorted(state.resources)
        added, replaced, conflicts = [], [], []
        for address, entry in entries.items():
            existing = state.get(address)
            if existing is None:
                added.append(address)
            elif not same(existing, entry):
                conflicts.append(address)
        if conflicts and not force:
            shown = ", ".join(conflicts[:8]) + (f" and {len(conflicts) - 8} more" if len(conflicts) > 8 else "")
            raise TerraformImportError(
                f"state_file: the workspace state already holds {shown} with other ids, tokens or arguments than this Terraform state; "
                "set force to replace them (the values are not shown)"
            )
        replaced = conflicts
        for address in added + replaced:
            state.put(address, entries[address])
        problem = check_entries(state.resources)
        if problem:
            raise TerraformImportError(f"state_file: the workspace state would not be valid ({problem})")
        return {"before": before, "after": sorted(state.resources), "added": added, "replaced": replaced}

    return change


def _checked_dest(params: t.Mapping[str, t.Any]) -> str:
    """The playbook's absolute path, after the checks of the options that go into it."""
    dest: str = os.path.abspath(os.path.expanduser(str(params["dest"])))
    for option, value in (("dest", dest), ("hosts", params.get("hosts")), ("libvirt_uri", params.get("libvirt_uri"))):
        problem = one_line_problem(value or "")
        if problem:
            raise TerraformImportError(f"{option}: contains {problem}")
    src = params.get("src") or params["src_dir"]
    if not src.startswith("gs://") and os.path.realpath(os.path.expanduser(src)) == os.path.realpath(dest):
        raise TerraformImportError("dest: is the Terraform state itself (src); the playbook is never written over it")
    return dest


@dataclasses.dataclass
class _File:
    option: str  # dest or teardown_dest
    path: str
    text: str
    old: str | None = None  # what is there now


def _write(
    params: t.Mapping[str, t.Any],
    files: list[_File],
    entries: dict[str, dict[str, t.Any]],
    location: str | None,
    *,
    check_mode: bool,
    environ: t.Mapping[str, str],
) -> dict[str, t.Any] | None:
    """Write the workspace entries, then the playbooks (none of it in check mode); every refusal
    comes before anything is written. Sets each file's text before; returns what the workspace
    state held before and after."""
    fds = []
    try:
        for file in files:
            fds.append(_open_dest_directory(file.option, file.path))
            file.old = _read_dest(file.option, fds[-1], file.path)
            if file.old is not None and file.old != file.text and not params["force"]:
                raise TerraformImportError(f"{file.option}: {printable(file.path)} exists with other content; set force to replace it")
        workspace: dict[str, t.Any] | None = None
        if entries and location is not None:
            try:
                backend = open_backend(location, params, environ=environ)
                change = _workspace_change(entries, force=bool(params["force"]))
                workspace = backend.transact(change, write=False)
                if not check_mode and (workspace["added"] or workspace["replaced"]):
                    workspace = backend.transact(change, write=True)
            except WorkspaceError as exc:
                raise TerraformImportError(str(exc)) from None
        for file, dir_fd in zip(files, fds, strict=True):
            if file.old != file.text and not check_mode:
                try:
                    write_atomic(file.path, file.text.encode("utf-8"), 0o600, dir_fd=dir_fd)
                except OSError as exc:
                    raise TerraformImportError(f"{file.option}: cannot write {printable(file.path)}: {exc.strerror or exc}") from None
    finally:
        for dir_fd in fds:
            os.close(dir_fd)
    return workspace


def _checked_teardown(params: t.Mapping[str, t.Any], dest: str) -> str | None:
    """The teardown playbook's absolute path (None: not written), never the playbook or the state."""
    if not params.get("teardown_dest"):
        return None
    path: str = os.path.abspath(os.path.expanduser(str(params["teardown_dest"])))
    problem = one_line_problem(path)
    if problem:
        raise TerraformImportError(f"teardown_dest: contains {problem}")
    src = params.get("src") or params["src_dir"]
    if os.path.realpath(path) == os.path.realpath(dest) or (
        not src.startswith("gs://") and os.path.realpath(os.path.expanduser(src)) == os.path.realpath(path)
    ):
        raise TerraformImportError("teardown_dest: is the playbook (dest) or the Terraform state (src); give the teardown playbook a file of its own")
    return path


def run_import(params: t.Mapping[str, t.Any], *, check_mode: bool, environ: t.Mapping[str, str] | None = None) -> dict[str, t.Any]:
    """Import ``params["src"]``: the module's result, with its ``warnings`` and the ``secrets``
    for its no_log values (never to be returned), and the diff (secrets masked)."""
    environ = os.environ if environ is None else environ
    warnings: list[str] = []
    dest = _checked_dest(params)
    teardown_dest = _checked_teardown(params, dest)
    exposed = exposed_directory(dest, runner="the module")
    if exposed:
        warnings.append(f"dest: the playbook {printable(dest)} holds what the Terraform state held (user-data, scripts, what the tasks run): {exposed}")
    exposed = exposed_directory(teardown_dest, runner="the module") if teardown_dest else None
    if exposed:
        warnings.append(f"teardown_dest: the teardown playbook {printable(str(teardown_dest))} names what it removes: {exposed}")
    configuration = None
    if params.get("src_dir"):
        state, configuration = read_configuration(os.path.expanduser(params["src_dir"]))
        warnings.extend(configuration.warnings)
    else:
        state = parse_tfstate(params["src"], _read_source(params, environ, warnings))
    plan = _plan(state, environ)
    entries = {task.workspace_entry[0]: task.workspace_entry[1] for task in plan.tasks if task.workspace_entry}
    location = _workspace_location(params, dest, environ) if entries else None
    src = os.path.realpath(os.path.expanduser(params.get("src") or params["src_dir"]))
    if (
        location is not None
        and not location.startswith("gs://")
        and os.path.realpath(location) in (os.path.realpath(dest), src, os.path.realpath(teardown_dest or dest))
    ):
        raise TerraformImportError("state_file: is a playbook (dest, teardown_dest) or the Terraform state (src); give the workspace state a file of its own")
    main = _File("dest", dest, _playbook(plan, params, location, masked=False))
    shown = _playbook(plan, params, location, masked=True)
    files = [main]
    if teardown_dest is not None:
        files.append(_File("teardown_dest", teardown_dest, _teardown_playbook(plan, params, location)))
    workspace = _write(params, files, entries, location, check_mode=check_mode, environ=environ)

    workspace_changed = bool(workspace and (workspace["added"] or workspace["replaced"]))
    diffs: list[dict[str, t.Any]] = []
    for file, after in zip(files, (shown, *(file.text for file in files[1:])), strict=True):
        before = after if file.old == file.text else mask_text(file.old, plan.secrets) if file.old is not None else ""
        diffs.append({"before_header": file.path, "after_header": file.path, "before": before, "after": after})
    if workspace is not None:
        diffs.append({
            "before_header": location,
            "after_header": location,
            "before": {"addresses": workspace["before"]},
            "after": {"addresses": workspace["after"]},
        })  # fmt: skip
    differs = [(file.option, file.old != file.text) for file in files] + [("state_file", workspace_changed)]
    changed = any(flag for _option, flag in differs)
    paths = [option for option, flag in differs if flag]
    return {
        "changed": changed,
        # For the plan callback: what the task does, as the resource modules say it.
        "operation": ("create" if main.old is None else "update") if changed else "none",
        "address": f"terraform_import.{dest}",
        "changed_paths": paths if changed and main.old is not None else [],
        "dest": dest,
        "teardown_dest": teardown_dest,
        "state_file": location,
        **(
            {"terraform": {"terraform_version": state.terraform_version, "serial": state.serial, "lineage": state.lineage}}
            if configuration is None
            else {
                "configuration": {
                    "files": configuration.files,
                    "libvirt_provider_version": configuration.libvirt_version,
                    "libvirt_provider_version_from": configuration.libvirt_version_from,
                }
            }
        ),
        "converted": [{"address": task.address, "module": task.fqcn} for task in plan.tasks],
        "not_converted": plan.not_converted,
        "not_carried": [{"address": task.address, "attribute": path, "reason": why} for task in plan.tasks for path, why in task.not_carried],
        "outputs": plan.outputs,
        "teardown": [{"address": task.address, "module": task.fqcn, "options": {k: v for k, v in task.args.items() if k != "state"}} for task in plan.teardown],
        "not_removed": plan.not_removed,
        "workspace_resources": sorted(entries),
        "warnings": warnings + plan.warnings,
        "secrets": plan.secrets,
        "diff": diffs,
    }
