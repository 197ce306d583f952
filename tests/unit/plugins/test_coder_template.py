# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Coder template the collection ships (examples/coder_template/main.tf) and the provisioner's
image (examples/coder_provisioner/Containerfile): the deployment guide shows them as they are, and
the template hands the workspace_vm role what the role reads.

The role's side is read from the role itself: its argument specs (meta/argument_specs.yml: the
variables, their types, defaults and choices), its defaults (the environment variables they read)
and the workspace_parameter lookups of its tasks (tasks/main.yml: each parameter's name, type and
validation), so that nothing is written down twice."""

from __future__ import annotations

import functools
import json
import os
import pathlib
import re
import shutil
import subprocess
import typing as t

import hcl2
import jinja2
import pytest
import yaml  # type: ignore[import-untyped]
from ansible.errors import AnsibleLookupError
from ansible.plugins.loader import lookup_loader

from ansible_collections.devinfra.providers.plugins.module_utils._terraform import hcl as collection_hcl
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.parameter import parameter_env, parameter_previous_env

ROOT = pathlib.Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs/docsite/rst/coder_deployment.rst"
TEMPLATE_DIR = ROOT / "examples/coder_template"
TEMPLATE = TEMPLATE_DIR / "main.tf"
CONTAINERFILE = ROOT / "examples/coder_provisioner/Containerfile"
ROLE = ROOT / "roles/workspace_vm"
PLAYBOOK = "devinfra.providers.workspace_vm"
COMMAND = f'ansible-playbook {PLAYBOOK} -e "$WORKSPACE_VM_VARS"'
# Variables of the playbook itself (playbooks/workspace_vm.yml), not of the role.
PLAYBOOK_VARIABLES = ("workspace_vm_prepare_host", "workspace_vm_hosts")
# The Coder parameter types the role's argument spec types stand for.
PARAMETER_TYPES = {"int": "number", "str": "string", "bool": "bool"}


# --- The files as the guide shows them --------------------------------------------------------


def _without_header(text: str) -> str:
    """A shipped file without its licence header (the comment lines up to the SPDX line, and the
    blank lines after it)."""
    lines = text.splitlines()
    spdx = next(index for index, line in enumerate(lines) if "SPDX-License-Identifier" in line)
    rest = lines[spdx + 1 :]
    while rest and not rest[0].strip():
        rest.pop(0)
    return "\n".join(rest).strip() + "\n"


def _code_blocks(text: str, language: str) -> list[str]:
    """The bodies of the guide's top-level ``.. code-block:: <language>`` directives, dedented."""
    blocks = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line != f".. code-block:: {language}":
            continue
        body = []
        for following in lines[index + 1 :]:
            if following.strip() and not following.startswith("   "):
                break
            body.append(following[3:])
        blocks.append("\n".join(body).strip() + "\n")
    return blocks


@pytest.mark.parametrize(("language", "path"), [("hcl", TEMPLATE), ("dockerfile", CONTAINERFILE)], ids=["template", "containerfile"])
def test_the_guide_shows_the_shipped_file_as_it_is(language: str, path: pathlib.Path) -> None:
    # The collection's docsite holds the guides' text only (antsibull-docs copies the .rst files),
    # so the guide carries the file's text rather than including it: this keeps them one.
    (block,) = _code_blocks(GUIDE.read_text(encoding="utf-8"), language)
    assert block == _without_header(path.read_text(encoding="utf-8"))


# --- The template, parsed ---------------------------------------------------------------------


@functools.cache
def template() -> dict[str, t.Any]:
    # Plain values: strings without their quotes, no block markers; nested blocks are lists.
    options = hcl2.SerializationOptions(with_comments=False, explicit_blocks=False, strip_string_quotes=True)
    return t.cast("dict[str, t.Any]", hcl2.loads(TEMPLATE.read_text(encoding="utf-8"), serialization_options=options))


def _blocks(kind: str, rtype: str) -> dict[str, dict[str, t.Any]]:
    """Every ``<kind> "<rtype>" "<name>"`` block of the template, by name."""
    found: dict[str, dict[str, t.Any]] = {}
    for block in template().get(kind, []):
        for name, body in block.get(rtype, {}).items():
            assert name not in found, f"{kind}.{rtype}.{name} twice"
            found[name] = body
    return found


def _one(kind: str, rtype: str, name: str) -> dict[str, t.Any]:
    blocks = _blocks(kind, rtype)
    assert name in blocks, f"{kind} {rtype}.{name} is not in the template"
    return blocks[name]


def _locals() -> dict[str, t.Any]:
    merged: dict[str, t.Any] = {}
    for block in template()["locals"]:
        merged.update(block)
    return merged


def _variables() -> dict[str, dict[str, t.Any]]:
    return {name: body for block in template()["variable"] for name, body in block.items()}


def _local_exec(resource: dict[str, t.Any]) -> dict[str, t.Any]:
    (provisioner,) = resource["provisioner"]
    return t.cast("dict[str, t.Any]", provisioner["local-exec"])


def _parameters() -> dict[str, dict[str, t.Any]]:
    """The template's coder_parameter blocks by the parameter's name (what coderd hashes into the
    CODER_PARAMETER_ variable), each with its block's label as ``label``."""
    return {body["name"]: {**body, "label": label} for label, body in _blocks("data", "coder_parameter").items()}


# --- The role, read from its own files --------------------------------------------------------


@functools.cache
def role_options() -> dict[str, dict[str, t.Any]]:
    specs = yaml.safe_load((ROLE / "meta/argument_specs.yml").read_text(encoding="utf-8"))
    return t.cast("dict[str, dict[str, t.Any]]", specs["argument_specs"]["main"]["options"])


def description(option: dict[str, t.Any]) -> str:
    text = option["description"]
    return " ".join(text) if isinstance(text, list) else str(text)


@functools.cache
def role_environment() -> dict[str, str]:
    """Role variable -> the environment variable its default reads (defaults/main.yml)."""
    defaults = yaml.safe_load((ROLE / "defaults/main.yml").read_text(encoding="utf-8"))
    found = {}
    for variable, value in defaults.items():
        match = re.fullmatch(r"\{\{ lookup\('ansible\.builtin\.env', '([A-Z_]+)'\) \}\}", str(value))
        if match:
            found[variable] = match.group(1)
    return found


@functools.cache
def role_parameters() -> dict[str, dict[str, t.Any]]:
    """The workspace_parameter lookups of the role's tasks, by parameter name: the lookup's
    arguments, with the role variables they name evaluated to the argument specs' defaults, and
    ``variable``, the role variable that gives the default."""
    tasks = yaml.safe_load((ROLE / "tasks/main.yml").read_text(encoding="utf-8"))
    (facts,) = [task["ansible.builtin.set_fact"] for task in tasks if "__workspace_vm_parameters" in task.get("ansible.builtin.set_fact", {})]
    calls: list[dict[str, t.Any]] = []
    defaults = {name: option["default"] for name, option in role_options().items() if "default" in option}

    class Variable(str):
        """A role variable's default that remembers the variable's name."""

        name: str

    def variable(name: str) -> Variable:
        value = Variable(defaults[name])
        value.name = name
        return value

    def lookup(plugin: str, *terms: str, **kwargs: t.Any) -> str:
        assert plugin == "devinfra.providers.workspace_parameter"
        (name,) = terms
        calls.append({"name": name, **kwargs})
        return ""

    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    for item in facts["__workspace_vm_parameters"]:
        environment.from_string(item).render(lookup=lookup, **{name: variable(name) for name in defaults if name.startswith("workspace_vm_")})
    found = {}
    for call in calls:
        default = call["default"]
        assert isinstance(default, Variable), f"the role's parameter {call['name']} takes its default from a role variable"
        found[call["name"]] = {**call, "default": role_options()[default.name]["default"], "variable": default.name}
    return found


def test_the_role_reads_the_parameters_its_documentation_names() -> None:
    assert set(role_parameters()) == {"cpu", "memory", "disk_size"}
    for name, call in role_parameters().items():
        assert call["variable"] == f"workspace_vm_{name}"
        assert f"C({name})" in description(role_options()[call["variable"]])


# --- What the template declares ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["cpu", "memory", "disk_size"])
def test_each_parameter_the_role_reads_is_declared_as_the_role_reads_it(name: str) -> None:
    role = role_parameters()[name]
    declared = _parameters()[name]
    option = role_options()[role["variable"]]
    assert declared["type"] == role["type"] == PARAMETER_TYPES[option["type"]]
    assert declared["default"] == role["default"] == option["default"]
    # The whole validation: coderd checks the same bounds the role checks again.
    (validation,) = declared["validation"]
    assert validation == role["validation"]
    for key in ("display_name", "mutable", "order"):
        assert declared[key] == role[key], key
    assert "option" not in declared and "options" not in role


def _lookup(options: dict[str, t.Any], value: str | None, previous: str | None, monkeypatch: pytest.MonkeyPatch) -> str:
    """The collection's workspace_parameter lookup with coderd's input: the value or the error."""
    plugin = lookup_loader.get("devinfra.providers.workspace_parameter")
    for variable, given in ((parameter_env(options["name"]), value), (parameter_previous_env(options["name"]), previous)):
        if given is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, given)
    try:
        return "value " + t.cast("str", plugin.run([], variables={}, **options)[0]["value"])
    except AnsibleLookupError as exc:
        return "error " + str(exc)


def _probes(validation: dict[str, t.Any], default: t.Any) -> list[tuple[str | None, str | None]]:
    """Inputs around every bound (and no input at all), each without and with a previous value."""
    values: list[str | None] = [None, str(default), "", "not a number", "1.5"]
    for bound in ("min", "max"):
        if bound in validation:
            values += [str(validation[bound] - 1), str(validation[bound]), str(validation[bound] + 1)]
    previous = [None, str(default)]
    return [(value, before) for value in values for before in previous]


@pytest.mark.parametrize("name", ["cpu", "memory", "disk_size"])
def test_coderd_and_the_role_accept_and_refuse_the_same_values(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    declared = {key: value for key, value in _parameters()[name].items() if key != "label"}
    role = {key: value for key, value in role_parameters()[name].items() if key != "variable"}
    outcomes = set()
    for value, previous in _probes(role["validation"], role["default"]):
        from_template = _lookup(declared, value, previous, monkeypatch)
        assert from_template == _lookup(role, value, previous, monkeypatch), (value, previous)
        outcomes.add(from_template.split(" ", 1)[0])
    assert outcomes == {"value", "error"}


def test_the_template_declares_no_other_parameter_than_it_passes() -> None:
    extra = set(_parameters()) - set(role_parameters())
    assert extra == {"base_image"}
    base_image = _parameters()["base_image"]
    # Chosen once: the root disk is an overlay on it.
    assert base_image["mutable"] is False
    images = _locals()["images"]
    assert [option["value"] for option in base_image["option"]] == list(images)
    assert base_image["default"] in images
    assert _locals()["image"] == "${local.images[data.coder_parameter.base_image.value]}"
    for image in images.values():
        assert image["url"].startswith("https://") and "${var.arch}" in image["url"]
        assert image["checksum"] == "" or re.fullmatch(r"sha256:[0-9a-f]{64}", image["checksum"])


def test_the_agent_is_the_one_coderd_knows() -> None:
    agent = _one("resource", "coder_agent", "main")
    assert agent["os"] == "linux"
    # The VM's, the agent's and the image's architecture are one: the template's variable.
    assert agent["arch"] == "${var.arch}"
    assert "dir" not in agent  # deprecated upstream; the agent starts in the workspace user's home
    (validation,) = _variables()["arch"]["validation"]
    allowed = re.findall(r'\\?"([a-z0-9_]+)\\?"', validation["condition"].split("]")[0])
    assert allowed == ["amd64", "arm64"]
    assert set(allowed) <= set(role_options()["workspace_vm_arch"]["choices"])
    assert set(allowed) <= set(role_options()["workspace_vm_agent_arch"]["choices"])
    # Only one agent: the role adopts one.
    assert list(_blocks("resource", "coder_agent")) == ["main"]


def test_builds_go_to_the_provisioners_tagged_for_the_hypervisor() -> None:
    tags = _one("data", "coder_workspace_tags", "hypervisor")["tags"]
    # coderd evaluates workspace tags on its own: only literals, variables and parameters.
    assert tags == {"hypervisor": "${var.hypervisor}"}


# --- How the playbook runs --------------------------------------------------------------------


def test_every_build_runs_the_playbook_with_the_agent_the_role_adopts() -> None:
    resource = _one("resource", "terraform_data", "workspace_vm")
    # The token changes on every build: it replaces the resource, so the playbook runs each time,
    # with the transition coderd sets (start or stop).
    assert resource["triggers_replace"][:2] == ["${data.coder_workspace.me.transition}", "${coder_agent.main.token}"]
    local_exec = _local_exec(resource)
    assert local_exec["command"] == COMMAND
    assert "when" not in local_exec
    environment = local_exec["environment"]
    agent = {"workspace_vm_agent_id": "id", "workspace_vm_agent_token": "token", "workspace_vm_agent_init_script": "init_script"}
    for variable, attribute in agent.items():
        value = environment.pop(role_environment()[variable])
        # The token is unmarked, so Terraform does not hide the playbook's whole output.
        assert value == (f"${{nonsensitive(coder_agent.main.{attribute})}}" if attribute == "token" else f"${{coder_agent.main.{attribute}}}")
    assert environment == {
        "WORKSPACE_VM_VARS": "${jsonencode(merge(local.common_vars, local.start_vars))}",
        "DEVINFRA_WORKSPACE_STATE": "${local.state_file}",
    }
    # The token never goes on a command line.
    assert "token" not in local_exec["command"].lower()
    assert role_options()["workspace_vm_agent_token"]["no_log"] is True


def test_the_playbook_gets_the_parameters_and_the_base_image() -> None:
    start_vars = _locals()["start_vars"]
    for name, role in role_parameters().items():
        assert start_vars[role["variable"]] == f"${{tonumber(data.coder_parameter.{_parameters()[name]['label']}.value)}}"
    assert start_vars["workspace_vm_base_image"] == "${local.image.url}"
    assert start_vars["workspace_vm_base_image_checksum"] == "${local.image.checksum}"
    assert start_vars["workspace_vm_arch"] == "${var.arch}"
    assert "workspace_vm_transition" not in start_vars  # coderd's CODER_WORKSPACE_TRANSITION decides


def test_the_playbook_variables_are_the_role_s_and_the_playbook_s() -> None:
    playbook = (ROOT / "playbooks/workspace_vm.yml").read_text(encoding="utf-8")
    for name in ("common_vars", "start_vars", "destroy_vars"):
        for variable in _locals()[name]:
            assert variable in role_options() or (variable in PLAYBOOK_VARIABLES and variable in playbook), variable
    common = _locals()["common_vars"]
    # A build never prepares the host: it runs unprivileged, and the admin prepared the hypervisor.
    assert common["workspace_vm_prepare_host"] is False
    assert common["workspace_vm_uri"] == "${var.libvirt_uri}"
    assert common["workspace_vm_seed_dir"] == "${var.seed_dir}"
    assert "${data.coder_workspace.me.id}" in common["workspace_vm_serial_log"]
    assert _variables()["libvirt_uri"]["default"] == role_options()["workspace_vm_uri"]["default"]


def test_deleting_the_workspace_runs_the_destroy_transition_once() -> None:
    resource = _one("resource", "terraform_data", "workspace_vm_destroy")
    # Nothing that changes per build: the resource is made once and destroyed with the workspace.
    assert "triggers_replace" not in resource
    assert resource["input"] == {"state_file": "${local.state_file}", "vars": "${jsonencode(merge(local.common_vars, local.destroy_vars))}"}
    assert _locals()["destroy_vars"] == {"workspace_vm_transition": "destroy"}
    assert "V(destroy)" in description(role_options()["workspace_vm_transition"])
    local_exec = _local_exec(resource)
    assert local_exec["when"] in ("destroy", "${destroy}")
    assert local_exec["command"] == COMMAND
    # A destroy-time provisioner may only read its own resource.
    assert local_exec["environment"] == {"WORKSPACE_VM_VARS": "${self.input.vars}", "DEVINFRA_WORKSPACE_STATE": "${self.input.state_file}"}


def test_the_state_file_is_per_workspace() -> None:
    assert _locals()["state_file"] == "${var.state_location}/${data.coder_workspace.me.id}.json"


def test_no_credential_is_a_template_variable() -> None:
    for name, variable in _variables().items():
        assert not re.search(r"(?i)token|password|secret|key", name), name
        assert "sensitive" not in variable, name


def test_the_extra_variables_reach_the_playbook_as_one_json_word() -> None:
    # What the shell gives ansible-playbook for the command: one -e argument, the JSON unparsed.
    variables = {"workspace_vm_base_image": "https://example.com/a b;$(touch x)'\".img", "workspace_vm_cpu": 4}
    argv = subprocess.run(
        ["/bin/sh", "-c", COMMAND.replace("ansible-playbook", "printf '%s\\n'")],
        env={"WORKSPACE_VM_VARS": json.dumps(variables), "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert argv == [PLAYBOOK, "-e", json.dumps(variables)]


# --- The collection's own reading of the template ---------------------------------------------


def test_the_collection_s_configuration_reader_reads_the_template() -> None:
    """terraform_import's reader (src_dir) takes the template and converts nothing of it: the
    agent's id and token exist only once coderd applied it, and the rest is Terraform's own."""
    state, configuration = collection_hcl.read_configuration(str(TEMPLATE_DIR))
    assert configuration.files == ["main.tf"]
    managed = {instance.address: instance for instance in state.instances if instance.mode == "managed"}
    assert set(managed) == {
        "coder_agent.main",
        "terraform_data.workspace_vm",
        "terraform_data.workspace_vm_destroy",
        "coder_metadata.workspace_vm",
        "coder_metadata.workspace_vm_destroy",
    }
    assert all(instance.problem for instance in managed.values())
    assert managed["coder_agent.main"].provider == "coder/coder"
    assert "import the state after the first apply" in (managed["coder_agent.main"].problem or "")


@pytest.mark.skipif(shutil.which("terraform") is None, reason="terraform is not installed")
def test_the_template_is_in_terraform_s_canonical_format() -> None:
    # terraform validate needs the coder/coder provider from the registry; fmt needs nothing.
    result = subprocess.run(["terraform", "fmt", "-check", "-diff", "-no-color", str(TEMPLATE)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout
