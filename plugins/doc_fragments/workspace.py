# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    # The state file and state, for every workspace resource module.
    DOCUMENTATION = r"""
options:
  state:
    description:
      - V(present) creates the resource in the workspace state file, or replaces it (a new id) when one of its
        arguments changed, as upstream's ForceNew arguments do.
      - V(absent) removes it from the state file.
    type: str
    choices: [present, absent]
    default: present
  state_file:
    description:
      - The workspace state file (JSON) the resources of one workspace persist in, the counterpart of the
        Terraform state the upstream provider's resources live in.
      - When not set, the value of the E(DEVINFRA_WORKSPACE_STATE) environment variable on the controller is used
        if it is not empty, else C(workspace-state.json) in the controller's current directory.
      - The file is written atomically (temporary file and rename) under a lock, so concurrent tasks (forks) lose
        nothing; it and its C(.lock) sidecar are created with mode C(0600), because the file holds agent tokens.
      - A file that is not valid JSON or not a workspace state file is an error and is left untouched.
      - The file names no paths, so a copy works where it is copied to.
      - Set it for a whole play with C(module_defaults) and C(group/devinfra.providers.workspace).
    type: path
notes:
  - Like the upstream provider, which runs inside the provisioner, this module runs on the B(controller)
    (through an action plugin of the same name) - the state file, the C(CODER_*) environment variables it reads
    and the lookups of this collection all belong to the controller, and the managed host is not contacted.
  - The environment variables it reads (C(CODER_*), E(DEVINFRA_WORKSPACE_STATE)) are the controller's, with the
    task's C(environment) keyword (of the play, block and task) applied on top, as a module sees them on its host.
    The lookups cannot see a task's C(environment) (a lookup has no task); give them their values as options or
    variables instead.
"""

    # The deployment URL, for workspace_agent (the only resource whose outputs depend on it).
    URL = r"""
options:
  url:
    description:
      - The URL of the workspace deployment (the upstream provider's C(url)).
      - When not set, the value of E(CODER_AGENT_URL) on the controller is used if it is not empty,
        else V(https://mydeployment.coder.com).
      - An explicitly empty value fails with upstream's message C(CODER_AGENT_URL must not be empty; got ""),
        and a value Go's C(url.Parse) rejects fails with Go's message.
      - Changing it does not replace the agent; it only changes the computed C(init_script).
    type: str
"""

    # The deployment URL, for lookups.
    LOOKUP = r"""
options:
  url:
    description:
      - The URL of the workspace deployment (the upstream provider's C(url)).
      - When not set by any source, or set to an empty string by E(CODER_AGENT_URL), V(https://mydeployment.coder.com) is used.
      - An explicitly empty value fails with upstream's message C(CODER_AGENT_URL must not be empty; got ""),
        and a value Go's C(url.Parse) rejects fails with Go's message.
    type: str
    env:
      - name: CODER_AGENT_URL
    vars:
      - name: devinfra_workspace_url
notes:
  - The C(CODER_*) variables are read from the controller's environment. A lookup does not see the C(environment)
    keyword of the task it is used in (the workspace resource modules do); set the controller's environment, or
    pass values as options and variables.
"""

    # The state file, for lookups that read it.
    STATE_FILE_LOOKUP = r"""
options:
  state_file:
    description:
      - The workspace state file written by the workspace resource modules.
      - When not set by any source, or set to an empty string by E(DEVINFRA_WORKSPACE_STATE), C(workspace-state.json)
        in the controller's current directory is used, as by the modules.
      - A missing file is an empty workspace; a corrupt or foreign file is an error.
    type: path
    env:
      - name: DEVINFRA_WORKSPACE_STATE
    vars:
      - name: devinfra_workspace_state_file
"""
