# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_manifest
short_description: The whole workspace as a control plane receives it, with the server's rules applied
version_added: 0.1.0
description:
  - Reads the workspace state file the workspace modules write and assembles what coderd builds from a template's state -
    agents with their apps, scripts (the agent's C(startup_script) and C(shutdown_script) included, as the synthetic
    C(Startup Script) and C(Shutdown Script)), environment (the agent's C(env) plus the M(devinfra.providers.workspace_env)
    definitions merged by C(merge_strategy)), dev containers and the external-agent flag; and the metadata.
  - "Applies the server's rules with its messages - agent names (V((?i\\)^[a-z0-9]+(-[a-z0-9]+\\)*$), unique ignoring case),
    app slugs unique per template, no env variable both in an agent's C(env) and a workspace_env, C(merge_strategy=error),
    and, for what is passed in O(parameters) and O(presets), unique parameter names, unique preset names and at most one
    default preset."
  - Children attach to an agent by C(agent_id), including an id the agent had before it was replaced; children whose agent
    is gone are listed under C(unattached) (the server drops them).
  - Apps, scripts and env definitions whose C(agent_id) is a dev container's C(subagent_id) (or one it had before it was
    replaced) belong to that dev container's sub-agent, as coderd attaches them - each entry of an agent's C(devcontainers)
    has its own C(apps), C(scripts) and C(envs) (a list of C(name) and C(value), merged by C(merge_strategy)), and they are
    not in the parent agent's lists.
  - Agent tokens are not part of the manifest.
author:
  - devinfra.providers contributors (@devinfra)
options:
  parameters:
    description: The results of P(devinfra.providers.workspace_parameter#lookup) for the template's parameters.
    type: list
    elements: dict
  presets:
    description: The results of P(devinfra.providers.workspace_preset#lookup) for the template's presets.
    type: list
    elements: dict
extends_documentation_fragment:
  - devinfra.providers.workspace.state_file_lookup
  - devinfra.providers.workspace.state_backend
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: Check the workspace as the server would
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.workspace_manifest', state_file='/tmp/workspace-example.json').agents | map(attribute='name') }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(agents), C(metadata), C(has_external_agents) and C(unattached), plus C(parameters) and C(presets) when given.
    - Each agent has C(id), C(name), C(apps), C(scripts), C(env), C(devcontainers) and the agent's other settings; each dev
      container has C(name), C(workspace_folder), C(config_path), C(id), C(subagent_id), C(apps), C(scripts) and C(envs).
  type: list
  elements: dict
"""

import os
import typing as t

from ansible.utils.display import Display

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.backend import open_backend
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.backend_options import STATE_BACKEND_OPTIONS
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.manifest import build_manifest
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        options = {name: self.get_option(name) for name in STATE_BACKEND_OPTIONS}
        # A str option: Ansible's path type would make gs://b/o a local path (gs:/b/o).
        state_file = self.option_unless_empty_env("state_file")
        if state_file and "://" not in state_file:
            state_file = os.path.expandvars(state_file)
        backend = open_backend(state_file, options, environ=environ)
        state = backend.read()
        for warning in state.warnings:  # a gs:// state over plain HTTP to another host, for one
            Display().warning(f"{self.ansible_name}: {warning}")
        return build_manifest(state, parameters=self.get_option("parameters"), presets=self.get_option("presets"))
