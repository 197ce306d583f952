# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_agent
short_description: An agent of a workspace, with its token and init script
version_added: 0.1.0
description:
  - The C(coder_agent) resource of the Coder Terraform provider (the workspace provider) - an agent that runs inside
    the workspace's machine and connects it to the deployment.
  - The agent is identified by O(name) in the workspace state file (upstream uses the Terraform resource name,
    with the same name rules). Its RV(agent.id) is created once and stays the same while the arguments do not
    change; any argument change replaces the agent (a new id), as every argument is ForceNew upstream.
  - RV(agent.token) is secret. The whole result is hidden from the output at every verbosity (as with C(no_log)),
    but it is registered whole, so later tasks can put RV(agent.token) and RV(agent.init_script) into the
    machine's cloud-init. RV(diff) masks the token and the values of O(env); print C(result.diff) to see what changed.
  - RV(agent.init_script) is E(CODER_AGENT_SCRIPT_<os>_<arch>) with C(${ACCESS_URL}) and C(${AUTH_TYPE})
    replaced by the deployment's origin (with a trailing slash) and O(auth), or empty when that variable is not set.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The agent's name, its key in the state file and the name users see.
      - Must match V((?i\)^[a-z0-9]+(-[a-z0-9]+\)*$) (letters and digits in groups joined by single hyphens);
        names with underscores get coderd's dedicated message.
    type: str
    required: true
  agent_id:
    description:
      - Adopt this id instead of generating one. It must be a UUID (8-4-4-4-12 hexadecimal digits), as coderd's agent
        ids are; it is written into the guest's files (cloud-init meta-data).
      - An argument like the others; changing it replaces the agent.
    type: str
  token:
    description:
      - Adopt this token instead of generating one - the token coderd knows for this agent, which a Coder template
        passes as C(coder_agent.main.token) together with O(agent_id). It must be a UUID, as coderd's tokens are; the
        value is never shown.
      - It is kept with the agent's computed values, not as an argument, so a new token updates the agent in place
        (same id, RV(operation=update)). It takes precedence over a prebuild-claim token in the environment and over
        the stored token.
    type: str
    version_added: 0.5.0
  arch:
    description: The architecture of the machine the agent runs on. Required with O(state=present).
    type: str
    choices: [amd64, armv7, arm64]
  os:
    description: The operating system of the machine the agent runs on. Required with O(state=present).
    type: str
    choices: [linux, darwin, windows]
  auth:
    description:
      - How the agent authenticates. V(token) uses RV(agent.token); the others use the cloud's instance identity.
    type: str
    choices: [token, google-instance-identity, aws-instance-identity, azure-instance-identity]
    default: token
  api_key_scope:
    description:
      - The scope of the agent's API key. V(no_user_data) blocks the routes C(/external-auth), C(/gitsshkey)
        and C(/gitauth).
    type: str
    choices: [all, no_user_data]
    default: all
  dir:
    description:
      - Deprecated upstream. The starting directory of shell sessions (default C($HOME)).
      - Setting it warns; a value other than V(""), V($HOME) or V(~) also warns that it breaks Coder Desktop file sync.
    type: str
  env:
    description:
      - Environment variables set inside the workspace. Values must be strings.
      - A M(devinfra.providers.workspace_env) of this agent cannot set a variable listed here.
    type: dict
  startup_script:
    description: Run after the agent starts (an alias for a script with C(run_on_start)).
    type: str
  startup_script_behavior:
    description: With V(blocking), the startup script must exit before the workspace is ready (logins wait).
    type: str
    choices: [blocking, non-blocking]
    default: non-blocking
  shutdown_script:
    description: Run before the agent stops (an alias for a script with C(run_on_stop)).
    type: str
  connection_timeout:
    description:
      - Seconds until the agent is marked timed out when no connection can be established.
        V(0) means it is never marked timed out. Must be at least V(0).
    type: int
    default: 120
  troubleshooting_url:
    description: URL of troubleshooting instructions.
    type: str
  motd_file:
    description: Path in the workspace of a file shown on SSH login.
    type: str
  order:
    description: The agent's position in the UI; lowest first, equal orders sorted by name.
    type: int
  metadata:
    description:
      - Values the agent collects by running scripts and shows in the dashboard (alpha upstream).
      - Keys must be unique.
    type: list
    elements: dict
    aliases: [metadatas]
    suboptions:
      key:
        description: The key.
        type: str
        required: true
      display_name:
        description: The name shown in the dashboard.
        type: str
      script:
        description: The script that prints the value.
        type: str
        required: true
      interval:
        description: Seconds between runs.
        type: int
        required: true
      timeout:
        description: Seconds the script may run.
        type: int
      order:
        description: Position among the agent's metadata.
        type: int
  display_apps:
    description:
      - The built-in apps shown in the agent bar. When omitted, upstream's defaults are stored
        (all V(true) but O(display_apps.vscode_insiders)).
      - A list of one dictionary, as Terraform writes such a block (HCL, C(terraform show -json), the state), is taken too; two or more fail.
    type: dict
    suboptions:
      vscode:
        description: VS Code Desktop.
        type: bool
        default: true
      vscode_insiders:
        description: VS Code Insiders.
        type: bool
        default: false
      web_terminal:
        description: The web terminal.
        type: bool
        default: true
      port_forwarding_helper:
        description: The port forwarding helper.
        type: bool
        default: true
      ssh_helper:
        description: The SSH helper.
        type: bool
        default: true
  resources_monitoring:
    description:
      - Memory and volume usage alerts. At least one monitor must be defined.
      - A list of one dictionary, as Terraform writes such a block (HCL, C(terraform show -json), the state), is taken too; two or more fail.
    type: dict
    suboptions:
      memory:
        description:
          - The memory monitor.
          - A list of one dictionary, as Terraform writes such a block (HCL, C(terraform show -json), the state), is taken too; two or more fail.
        type: dict
        suboptions:
          enabled:
            description: Whether it is enabled.
            type: bool
            required: true
          threshold:
            description: Usage percentage (V(0) to V(100)) that triggers an alert.
            type: int
            required: true
      volume:
        description: Volume monitors; paths must be absolute and unique.
        type: list
        elements: dict
        aliases: [volumes]
        suboptions:
          path:
            description: The absolute path of the volume.
            type: str
            required: true
          enabled:
            description: Whether it is enabled.
            type: bool
            required: true
          threshold:
            description: Usage percentage (V(0) to V(100)) that triggers an alert.
            type: int
            required: true
extends_documentation_fragment:
  - devinfra.providers.workspace
  - devinfra.providers.workspace.state_backend
  - devinfra.providers.workspace.url
  - devinfra.providers.attributes
  - devinfra.providers.attributes.actiongroup_workspace
  - devinfra.providers.attributes.controller_action
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details:
      - The token and the values of O(env) are masked in the diff; the result is hidden from output, so print RV(diff) to read it.
  idempotent:
    support: full
    details:
      - The token is stored in the state file and reused, unless a prebuild claim passes another one in
        E(CODER_RUNNING_WORKSPACE_AGENT_TOKEN_e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855).
seealso:
  - module: devinfra.providers.workspace_app
  - module: devinfra.providers.workspace_script
  - plugin: devinfra.providers.workspace_manifest
    plugin_type: lookup
"""

EXAMPLES = r"""
- name: The workspace's agent
  devinfra.providers.workspace_agent:
    name: main
    arch: amd64
    os: linux
    startup_script: |
      code-server --auth none --port 13337 &
    env:
      GIT_AUTHOR_NAME: Jane Doe
    metadata:
      - key: load
        display_name: Load average
        script: cat /proc/loadavg
        interval: 60
    state_file: /tmp/workspace-example.json
  register: agent

- name: Use the token later (it goes into the machine's cloud-init)
  ansible.builtin.set_fact:
    agent_env: "CODER_AGENT_TOKEN={{ agent.agent.token }}"
  no_log: true
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
agent:
  description:
    - The agent, with its arguments (defaults applied) and computed outputs. With O(state=absent), what was removed
      (token masked), or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The agent's id (a UUID), stable while the arguments are unchanged.
      type: str
      sample: 8b8c3b3e-1f9f-4d55-9a0a-3d3b2e0e7f10
    agent_id:
      description: The same id, also under this name (C(id) is upstream's name for it).
      type: str
    token:
      description:
        - The agent's token (secret), for E(CODER_AGENT_TOKEN) inside the machine.
      type: str
    init_script:
      description: The script that downloads and starts the agent, or an empty string.
      type: str
    display_apps:
      description: The display apps, with upstream's defaults when not set.
      type: dict
operation:
  description: V(create), V(replace) (an argument changed, new id), V(update) (a computed value changed), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file.
  returned: always
  type: str
  sample: workspace_agent.main
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field, the token and the values of C(env) masked.
  returned: in diff mode
  type: dict
"""
