# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_external_agent
short_description: Mark an agent as running outside the workspace's infrastructure
version_added: 0.1.0
description:
  - The C(coder_external_agent) resource of the Coder Terraform provider (needs a premium licence on the deployment).
  - Identified in the state file by the agent's name (one per agent).
author:
  - devinfra.providers contributors (@devinfra)
options:
  agent_id:
    description:
      - The id of the agent (RV(devinfra.providers.workspace_agent#module:agent.id)). The agent must be in the same
        state file (in check mode a missing agent only warns, as an earlier task may only have predicted it).
      - Changing it replaces the resource, as upstream.
    required: true
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
- name: The agent runs on a machine the template does not create
  devinfra.providers.workspace_external_agent:
    agent_id: "{{ agent.agent.id }}"
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
external_agent:
  description: The external agent. With O(state=absent), what was removed, or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The id (a UUID).
      type: str
    external_agent_id:
      description: The same id, also under this name (C(id) is upstream's name for it).
      type: str
operation:
  description: V(create), V(replace) (an argument changed, new id), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file (C(workspace_external_agent.<agent name>)).
  returned: always
  type: str
  sample: workspace_external_agent.main
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field.
  returned: in diff mode
  type: dict
"""
