# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Coder deployment guide's template: it parses, and it hands the role what the role reads.

The template is the ``hcl`` code block of docs/docsite/rst/coder_deployment.rst, as a reader
copies it; the role's side is roles/workspace_vm (its defaults and argument specs).
"""

from __future__ import annotations

import pathlib
import re
import typing as t

import hcl2
import pytest
import yaml  # type: ignore[import-untyped]

ROOT = pathlib.Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs/docsite/rst/coder_deployment.rst"
ROLE = ROOT / "roles/workspace_vm"


def _code_blocks(text: str, language: str) -> list[str]:
    """The bodies of the guide's ``.. code-block:: <language>`` directives, dedented."""
    blocks = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip() != f".. code-block:: {language}":
            continue
        body = []
        for following in lines[index + 1 :]:
            if following.strip() and not following.startswith("   "):
                break
            body.append(following[3:])
        blocks.append("\n".join(body).strip() + "\n")
    return blocks


@pytest.fixture(scope="module")
def template() -> dict[str, t.Any]:
    blocks = _code_blocks(GUIDE.read_text(encoding="utf-8"), "hcl")
    assert len(blocks) == 1
    # Plain values, as python-hcl2 before 8 gave them: strings without their quotes, no block markers.
    options = hcl2.SerializationOptions(with_comments=False, explicit_blocks=False, strip_string_quotes=True)
    return hcl2.loads(blocks[0], serialization_options=options)


def _resource(template: dict[str, t.Any], rtype: str, name: str) -> dict[str, t.Any]:
    for block in template["resource"]:
        if rtype in block and name in block[rtype]:
            return t.cast("dict[str, t.Any]", block[rtype][name])
    raise AssertionError(f"{rtype}.{name} is not in the guide's template")


def _local_exec(resource: dict[str, t.Any]) -> dict[str, t.Any]:
    (provisioner,) = resource["provisioner"]
    return t.cast("dict[str, t.Any]", provisioner["local-exec"])


def _role_environment() -> dict[str, str]:
    """Role variable -> the environment variable its default reads."""
    defaults = yaml.safe_load((ROLE / "defaults/main.yml").read_text(encoding="utf-8"))
    found = {}
    for variable, value in defaults.items():
        match = re.fullmatch(r"\{\{ lookup\('ansible\.builtin\.env', '([A-Z_]+)'\) \}\}", str(value))
        if match:
            found[variable] = match.group(1)
    return found


def test_the_template_declares_the_agent_coderd_knows(template: dict[str, t.Any]) -> None:
    agent = _resource(template, "coder_agent", "main")
    assert agent["os"] == "linux"
    assert agent["arch"] == "${data.coder_provisioner.me.arch}"
    assert _resource(template, "coder_app", "terminal")["agent_id"] == "${coder_agent.main.id}"


def test_every_build_runs_the_playbook_with_the_agent_the_role_adopts(template: dict[str, t.Any]) -> None:
    resource = _resource(template, "terraform_data", "workspace_vm")
    # The token changes on every build: it must replace the resource, so the playbook runs each time.
    assert "${coder_agent.main.token}" in resource["triggers_replace"]
    assert "${data.coder_workspace.me.transition}" in resource["triggers_replace"]
    local_exec = _local_exec(resource)
    assert local_exec["command"] == "ansible-playbook devinfra.providers.workspace_vm"
    assert "when" not in local_exec
    environment = local_exec["environment"]
    # Exactly the three variables the role reads for a deployment's agent, each from coder_agent.main.
    role = _role_environment()
    assert {name: role[name] for name in ("workspace_vm_agent_id", "workspace_vm_agent_token", "workspace_vm_agent_init_script")} == {
        "workspace_vm_agent_id": "WORKSPACE_VM_AGENT_ID",
        "workspace_vm_agent_token": "WORKSPACE_VM_AGENT_TOKEN",
        "workspace_vm_agent_init_script": "WORKSPACE_VM_AGENT_INIT_SCRIPT",
    }
    assert environment["WORKSPACE_VM_AGENT_ID"] == "${coder_agent.main.id}"
    assert environment["WORKSPACE_VM_AGENT_TOKEN"] == "${coder_agent.main.token}"
    assert environment["WORKSPACE_VM_AGENT_INIT_SCRIPT"] == "${coder_agent.main.init_script}"
    assert environment["DEVINFRA_WORKSPACE_STATE"] == "${local.state_file}"
    # The token never goes on a command line.
    assert "token" not in local_exec["command"]


def test_deleting_the_workspace_runs_the_destroy_transition_once(template: dict[str, t.Any]) -> None:
    resource = _resource(template, "terraform_data", "workspace_vm_destroy")
    # Nothing that changes per build: the resource is made once and destroyed with the workspace.
    assert "triggers_replace" not in resource
    assert resource["input"] == {"state_file": "${local.state_file}"}
    local_exec = _local_exec(resource)
    assert local_exec["when"] in ("destroy", "${destroy}")
    assert local_exec["command"] == "ansible-playbook devinfra.providers.workspace_vm -e workspace_vm_transition=destroy"
    # A destroy-time provisioner may only read its own resource.
    assert local_exec["environment"] == {"DEVINFRA_WORKSPACE_STATE": "${self.input.state_file}"}


def test_the_state_file_is_per_workspace(template: dict[str, t.Any]) -> None:
    (local,) = template["locals"]
    assert "${data.coder_workspace.me.id}" in local["state_file"]


def test_the_role_documents_what_the_template_passes() -> None:
    specs = yaml.safe_load((ROLE / "meta/argument_specs.yml").read_text(encoding="utf-8"))
    options = specs["argument_specs"]["main"]["options"]
    for variable, environment in _role_environment().items():
        if variable.startswith("workspace_vm_agent_"):
            assert environment in " ".join(options[variable]["description"])
    assert options["workspace_vm_agent_token"]["no_log"] is True
