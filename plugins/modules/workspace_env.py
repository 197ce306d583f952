# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_env
short_description: An environment variable of a workspace agent
version_added: 0.1.0
description:
  - The C(coder_env) resource of the Coder Terraform provider.
  - Identified in the state file by the agent's name, O(name) and O(key).
  - It cannot set a variable already set in its agent's C(env) - such a task fails naming the variable, before
    anything is written.
  - Several definitions of one variable on one agent are merged by the server according to O(merge_strategy);
    see the P(devinfra.providers.workspace_manifest#lookup) lookup.
author:
  - devinfra.providers contributors (@devinfra)
options:
  agent_id:
    description:
      - The id of the agent (RV(devinfra.providers.workspace_agent#module:agent.id)). The agent must be in the same
        state file (in check mode a missing agent only warns, as an earlier task may only have predicted it).
      - Or the sub-agent id of a dev container in the same state file
        (RV(devinfra.providers.workspace_devcontainer#module:devcontainer.subagent_id)), as coderd's own templates write
        C(agent_id = coder_devcontainer.dev.subagent_id); the resource then belongs to the dev container's sub-agent and
        P(devinfra.providers.workspace_manifest#lookup) lists it under that dev container.
      - Changing it replaces the resource, as upstream.
    type: str
    required: true
  name:
    description: The variable's name; must match C(^[a-zA-Z_][a-zA-Z0-9_]*$).
    type: str
    required: true
  value:
    description:
      - The value. To keep the value the machine already has (for example C(PATH)), include it, as in C($PATH:/opt/bin).
      - Templates commonly pass tokens here (an external authentication token, the owner's session token), so the value
        is never shown - masked as C(********) in the result and the diff (a change still reports V(changed) and
        replaces the resource). The state file keeps it, and P(devinfra.providers.workspace_manifest#lookup) returns it.
      - A string, which may span lines. A number or a boolean is converted as Terraform converts it (V(1.0) is
        C(1), V(true) is C(true)); a list or a dictionary is an error (Ansible's string conversion would store its
        Python representation).
    type: raw
  merge_strategy:
    description:
      - How definitions of the same variable on one agent combine. V(replace) (the last wins), V(append) and
        V(prepend) (joined with C(:), in the order of their O(key)), V(error) (another definition fails the build).
    type: str
    choices: [replace, append, prepend, error]
    default: replace
  key:
    description:
      - Distinguishes several definitions of one variable on one agent (upstream they are separate Terraform resources);
        they are merged in the order of their key, as upstream orders them by resource address.
    type: str
extends_documentation_fragment:
  - devinfra.providers.workspace
  - devinfra.providers.workspace.state_backend
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_workspace
  - devinfra.providers.attributes.controller_action
seealso:
  - module: devinfra.providers.workspace_agent
"""

EXAMPLES = r"""
- name: A variable for the agent
  devinfra.providers.workspace_env:
    agent_id: "{{ agent.agent.id }}"
    name: EDITOR
    value: vim

- name: Two additions to PATH, merged in key order
  devinfra.providers.workspace_env:
    agent_id: "{{ agent.agent.id }}"
    name: PATH
    key: "{{ item.key }}"
    value: "{{ item.value }}"
    merge_strategy: append
  loop:
    - {key: "10-go", value: /usr/local/go/bin}
    - {key: "20-local", value: "$HOME/.local/bin"}
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
env:
  description: The variable with its arguments and RV(env.id). With O(state=absent), what was removed, or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The id (a UUID).
      type: str
    env_id:
      description: The same id, also under this name (C(id) is upstream's name for it).
      type: str
    value:
      description: Always masked as C(********) when set (see O(value)).
      type: str
operation:
  description: V(create), V(replace) (an argument changed, new id), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file (C(workspace_env.<agent name>.<name>[.<key>])).
  returned: always
  type: str
  sample: workspace_env.main.EDITOR
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field.
  returned: in diff mode
  type: dict
"""
