# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan callback and the plan_gate playbook run by ansible-playbook itself: the workspace
modules need no daemon, so the check runs, the real run and the gate's exit status are real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing as t

import pytest

COLLECTIONS = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 7))
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")

PLAYBOOK = """\
- name: A workspace imported from Terraform
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/devinfra.providers.workspace:
      state_file: "{{ playbook_dir }}/state.json"
  tasks:
    - name: coder_agent.main
      devinfra.providers.workspace_agent:
        name: main
        arch: amd64
        os: linux
      register: agent
      vars:
        devinfra_tf_address: coder_agent.main

    - name: coder_app.code
      devinfra.providers.workspace_app:
        agent_id: "{{ agent.agent.id }}"
        slug: code
        url: http://localhost:13337
        display_name: "{{ app_name | default('Code') }}"
        order: "{{ app_order | default(1) | int }}"
      vars:
        devinfra_tf_address: coder_app.code

    - name: Only in a real run
      ansible.builtin.command: "true"
      changed_when: false
      when:
        - unchecked | default(false) | bool
        - not ansible_check_mode

    - name: A module without check mode
      nocheck:
      when: unchecked | default(false) | bool

    - name: Run for real in check mode too
      ansible.builtin.command: "true"
      check_mode: false
      changed_when: unchecked | default(false) | bool
"""

NOCHECK = """\
from ansible.module_utils.basic import AnsibleModule

AnsibleModule(argument_spec={}, supports_check_mode=False).exit_json(changed=True)
"""

NO_CHANGES = "No changes. Your infrastructure matches the configuration."


def playbook(tmp_path: t.Any, *args: str, plan: bool = True) -> subprocess.CompletedProcess[str]:
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "ANSIBLE_COLLECTIONS_PATH": COLLECTIONS,
        "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "PYTHONPATH": COLLECTIONS,
    }
    if plan:
        # Relative: the callback and the gate both take it from where ansible-playbook runs.
        environment |= {"ANSIBLE_CALLBACKS_ENABLED": "devinfra.providers.plan", "DEVINFRA_PLAN_FILE": "plan.json"}
    argv = [ANSIBLE_PLAYBOOK, "-i", "localhost,", "-c", "local", *args]
    return subprocess.run(argv, env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)


def plan_text(out: str) -> list[str]:
    """The plan's lines: from its first host line to its closing line."""
    lines = out.splitlines()
    last = next(i for i, line in enumerate(lines) if line.startswith(("Plan: ", "No changes.")))
    first = next((i for i, line in enumerate(lines[:last]) if line == "localhost:"), last)
    return lines[first : last + 1]


@pytest.mark.skipif(not os.path.exists(ANSIBLE_PLAYBOOK), reason="ansible-playbook is not next to the test's Python")
def test_plan_and_gate_as_ansible_playbook_runs_them(tmp_path: t.Any) -> None:
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "nocheck.py").write_text(NOCHECK)
    check = ["--check", "--diff", "site.yml", "devinfra.providers.plan_gate"]

    first = playbook(tmp_path, *check)
    assert first.returncode == 2, first.stdout + first.stderr
    assert plan_text(first.stdout) == [
        "localhost:",
        "    + coder_agent.main  (workspace_agent.main)",
        "    + coder_app.code  (workspace_app.code)",
        "",
        "Plan: 2 to add, 0 to change, 0 to destroy.",
    ]
    assert 'The plan is not "No changes."' in first.stdout
    assert not (tmp_path / "state.json").exists()

    applied = playbook(tmp_path, "--diff", "site.yml")
    assert applied.returncode == 0, applied.stdout + applied.stderr

    clean = playbook(tmp_path, *check)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert plan_text(clean.stdout) == [NO_CHANGES]
    assert "No changes. (" in clean.stdout  # the gate's
    assert json.loads((tmp_path / "plan.json").read_text())["no_changes"] is True

    changed = playbook(tmp_path, *check, "-e", json.dumps({"app_name": "VS Code", "app_order": 2, "unchecked": True}))
    assert changed.returncode == 2, changed.stdout + changed.stderr
    lines = plan_text(changed.stdout)
    assert lines[1] == "  -/+ coder_app.code  (workspace_app.code)"
    assert '        display_name: "Code" -> "VS Code"' in lines
    assert "        order: 1 -> 2" in lines
    assert lines[-6:] == [
        "Not previewed:",
        "  localhost: task 'Only in a real run' (ansible.builtin.command): skipped in check mode by its condition (not ansible_check_mode)",
        "  localhost: task 'A module without check mode' (nocheck): skipped in check mode: remote module (nocheck) does not support check mode",
        "  localhost: task 'Run for real in check mode too' (ansible.builtin.command): "
        "ran for real in this check run (check_mode: false) and changed something",
        "",
        "Plan: 1 to add, 0 to change, 1 to destroy, 3 not previewed.",
    ]
    written = (tmp_path / "plan.json").read_text()
    document = json.loads(written)
    assert document["summary"] == {"add": 1, "change": 0, "destroy": 1, "unexplained": 0, "unpreviewed": 3}
    assert document["resource_changes"][0]["terraform_address"] == "coder_app.code"
    assert document["resource_changes"][0]["values"]["display_name"] == {"before": "Code", "after": "VS Code"}

    # The gate alone, later: it reads the plan and leaves it as it was.
    gate = playbook(tmp_path, "devinfra.providers.plan_gate")
    assert gate.returncode == 2, gate.stdout + gate.stderr
    assert '"unpreviewed": 3' in gate.stdout
    assert (tmp_path / "plan.json").read_text() == written

    # Without the callback the gate has no plan to read; with -e it reads the one named.
    assert playbook(tmp_path, "devinfra.providers.plan_gate", plan=False).returncode == 2
    (tmp_path / "clean.json").write_text(json.dumps({"no_changes": True}))
    assert playbook(tmp_path, "devinfra.providers.plan_gate", "-e", f"plan_gate_file={tmp_path / 'clean.json'}", plan=False).returncode == 0
    # What the plan file holds is data to the gate, never a template.
    hostile = {"no_changes": False, "resource_changes": [{"address": "{{ lookup('pipe', 'touch PWNED') }}"}]}
    (tmp_path / "hostile.json").write_text(json.dumps(hostile))
    read = playbook(tmp_path, "devinfra.providers.plan_gate", "-e", f"plan_gate_file={tmp_path / 'hostile.json'}", plan=False)
    assert read.returncode == 2
    assert "changes: {{ lookup('pipe', 'touch PWNED') }};" in read.stdout
    assert not (tmp_path / "PWNED").exists()

    # A check run with a failed task is no "No changes.": the gate fails.
    (tmp_path / "site.yml").write_text(PLAYBOOK + "    - name: Stop\n      ansible.builtin.fail:\n        msg: stop\n")
    stopped = playbook(tmp_path, "--check", "site.yml")
    assert stopped.returncode == 2
    assert playbook(tmp_path, "devinfra.providers.plan_gate").returncode == 2

    token = json.loads((tmp_path / "state.json").read_text())["resources"]["workspace_agent.main"]["computed"]["token"]
    for run in (first, applied, clean, changed, gate):
        assert token not in run.stdout + run.stderr
