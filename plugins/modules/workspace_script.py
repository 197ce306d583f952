# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_script
short_description: A script an agent runs on start, on stop or on a schedule
version_added: 0.1.0
description:
  - The C(coder_script) resource of the Coder Terraform provider, which the agent's C(startup_script) and
    C(shutdown_script) are aliases of.
  - Identified in the state file by the agent's name, O(display_name) and O(key).
  - At least one of O(run_on_start), O(run_on_stop) and O(cron) must be set; O(start_blocks_login) needs O(run_on_start).
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
  display_name:
    description: The name shown in the dashboard; with the agent and O(key), the script's key in the state file.
    type: str
    required: true
  key:
    description:
      - Tells apart several scripts of one agent that have the same O(display_name) (upstream, two C(coder_script)
        resources may show the same name, such as a start and a stop script both called C(Archive)); a port of such a
        template gives each its Terraform resource name. Without it, a second script of that name would replace the first.
      - Part of the script's key in the state file; changing it makes another resource.
    type: str
  script:
    description: The script's content. Required with O(state=present).
    type: str
  log_path:
    description: Where the output is logged; a relative path is under the agent's log directory.
    type: str
  icon:
    description: URL of a dashboard icon.
    type: str
  cron:
    description:
      - A 6-field cron schedule (C(seconds minutes hours day-of-month month day-of-week)); descriptors such as
        V(@daily) work. The day of week may be left out, so a Unix 5-field schedule is accepted but read with
        seconds first, with upstream's warning.
    type: str
  start_blocks_login:
    description: Logins wait until the script has finished. Needs O(run_on_start=true).
    type: bool
    default: false
  run_on_start:
    description: Run when the workspace starts.
    type: bool
    default: false
  run_on_stop:
    description: Run when the workspace stops.
    type: bool
    default: false
  timeout:
    description: Seconds before the script is stopped; when omitted there is no timeout. An explicit value must be at least V(1).
    type: int
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
- name: Install dotfiles at start, logins waiting for it
  devinfra.providers.workspace_script:
    agent_id: "{{ agent.agent.id }}"
    display_name: Dotfiles
    script: coder dotfiles -y https://github.com/example/dotfiles
    run_on_start: true
    start_blocks_login: true

- name: A start and a stop script with the same name, told apart by key
  devinfra.providers.workspace_script:
    agent_id: "{{ agent.agent.id }}"
    display_name: Archive
    key: "{{ item.key }}"
    script: "{{ item.script }}"
    run_on_start: "{{ item.key == 'start' }}"
    run_on_stop: "{{ item.key == 'stop' }}"
  loop:
    - {key: start, script: coder-archive-extract}
    - {key: stop, script: coder-archive-create}

- name: Nightly cleanup
  devinfra.providers.workspace_script:
    agent_id: "{{ agent.agent.id }}"
    display_name: Cleanup
    script: rm -rf ~/.cache/tmp
    cron: "0 0 22 * * *"
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
script:
  description: The script with its arguments and RV(script.id). With O(state=absent), what was removed, or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The id (a UUID).
      type: str
    script_id:
      description: The same id.
      type: str
operation:
  description: V(create), V(replace) (an argument changed, new id), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file (C(workspace_script.<agent name>.<display_name>[.<key>])).
  returned: always
  type: str
  sample: workspace_script.main.Dotfiles
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field.
  returned: in diff mode
  type: dict
"""
