# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_devcontainer
short_description: A dev container started by a workspace agent
version_added: 0.1.0
description:
  - The C(coder_devcontainer) resource of the Coder Terraform provider (needs deployment v2.21 or later).
  - Identified by O(name) in the state file (upstream uses the Terraform resource name, which is also the name the
    server gives the dev container).
  - Returns the id and the id of the sub-agent created for the dev container.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description: The dev container's name, its key in the state file.
    type: str
    required: true
  agent_id:
    description:
      - The id of the agent (RV(devinfra.providers.workspace_agent#module:agent.id)). The agent must be in the same
        state file (in check mode a missing agent only warns, as an earlier task may only have predicted it).
      - Changing it replaces the resource, as upstream.
      - Required with O(state=present).
    type: str
  workspace_folder:
    description: The folder holding the project. Required with O(state=present); must not be empty.
    type: str
  config_path:
    description: The path of the C(devcontainer.json), when not the default one.
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
- name: The project's dev container
  devinfra.providers.workspace_devcontainer:
    name: project
    agent_id: "{{ agent.agent.id }}"
    workspace_folder: /home/coder/project
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
devcontainer:
  description: The dev container. With O(state=absent), what was removed, or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The id (a UUID).
      type: str
    devcontainer_id:
      description: The same id, also under this name (C(id) is upstream's name for it).
      type: str
    subagent_id:
      description: The id of the sub-agent created for this dev container (another UUID).
      type: str
operation:
  description: V(create), V(replace) (an argument changed, new id), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file (C(workspace_devcontainer.<name>)).
  returned: always
  type: str
  sample: workspace_devcontainer.project
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field.
  returned: in diff mode
  type: dict
"""
