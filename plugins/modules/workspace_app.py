# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_app
short_description: An app of a workspace agent
version_added: 0.1.0
description:
  - The C(coder_app) resource of the Coder Terraform provider, a web app or a command shown on the workspace's agent.
  - Identified by O(slug) in the workspace state file (slugs are unique per template on the server). The id is
    created once and stays while the arguments are unchanged; any argument change replaces the app (a new id).
  - Exactly one of O(command) and O(url) must be set (this collection's rule, so an app always does something; upstream requires neither).
    O(command) conflicts with O(subdomain) and O(healthcheck); O(external) conflicts with O(healthcheck),
    O(command), O(subdomain) and O(share). As upstream, a conflict counts any value written, even V(false).
author:
  - devinfra.providers contributors (@devinfra)
options:
  slug:
    description:
      - The app's slug, its key in the state file; a valid hostname label matching V(^[a-z0-9]+(-[a-z0-9]+\)*$)
        (no two consecutive hyphens, no hyphen at either end).
    type: str
    required: true
  agent_id:
    description:
      - The id of the agent (RV(devinfra.providers.workspace_agent#module:agent.id)). The agent must be in the same
        state file (in check mode a missing agent only warns, as an earlier task may only have predicted it).
      - Or the sub-agent id of a dev container in the same state file
        (RV(devinfra.providers.workspace_devcontainer#module:devcontainer.subagent_id)), as coderd's own templates write
        C(agent_id = coder_devcontainer.dev.subagent_id); the resource then belongs to the dev container's sub-agent and
        P(devinfra.providers.workspace_manifest#lookup) lists it under that dev container.
      - Changing it replaces the resource, as upstream.
      - Required with O(state=present).
    type: str
  command:
    description: A command run in a terminal when the app is opened.
    type: str
  url:
    description:
      - The app's URL, C(http://localhost:PORT[/SUBPATH]) proxied from inside the workspace, or opened on the client
        when O(external=true).
    type: str
  display_name:
    description: The name shown; defaults to the slug on the server. At most 64 bytes.
    type: str
  external:
    description: Open O(url) on the client machine instead of proxying it. Defaults to V(false).
    type: bool
  subdomain:
    description:
      - Serve the app on its own subdomain (needs wildcard access URLs on the deployment) instead of a path.
        Defaults to V(false).
    type: bool
  share:
    description:
      - Who may open the app. Defaults to V(owner). V(authenticated) means all signed-in users, V(public) anyone.
    type: str
    choices: [owner, authenticated, public]
  healthcheck:
    description:
      - An HTTP readiness check.
      - A list of one dictionary, as Terraform writes such a block (HCL, C(terraform show -json), the state), is taken too; two or more fail.
    type: dict
    suboptions:
      url:
        description: The URL to check.
        type: str
        required: true
      interval:
        description: Seconds between checks.
        type: int
        required: true
      threshold:
        description: Failed checks before the app is unhealthy.
        type: int
        required: true
  icon:
    description: URL of a dashboard icon (validated with Go's C(url.Parse), as upstream).
    type: str
  group:
    description: The group the app belongs to. At most 64 bytes.
    type: str
  order:
    description: Position; lowest first, equal orders sorted by name.
    type: int
  hidden:
    description:
      - Hide the app in the UI (needs deployment v2.16 or later). With V(true), a non-empty O(display_name),
        O(icon) or a non-zero O(order) only warns, as upstream.
    type: bool
    default: false
  open_in:
    description: Open the app in a V(tab) or a V(slim-window).
    type: str
    choices: [tab, slim-window]
    default: slim-window
  tooltip:
    description: Markdown shown on hover. At most 2048 bytes.
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
- name: A web IDE served from the workspace
  devinfra.providers.workspace_app:
    slug: code-server
    agent_id: "{{ agent.agent.id }}"
    display_name: code-server
    url: http://localhost:13337/?folder=/home/coder
    icon: /icon/code.svg
    subdomain: false
    share: owner
    healthcheck:
      url: http://localhost:13337/healthz
      interval: 5
      threshold: 6
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
app:
  description: The app with its arguments (defaults applied) and RV(app.id). With O(state=absent), what was removed, or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The app's id (a UUID).
      type: str
    app_id:
      description: The same id, also under this name (C(id) is upstream's name for it).
      type: str
operation:
  description: V(create), V(replace) (an argument changed, new id), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file (C(workspace_app.<slug>)).
  returned: always
  type: str
  sample: workspace_app.code-server
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field.
  returned: in diff mode
  type: dict
"""
