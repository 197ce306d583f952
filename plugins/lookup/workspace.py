# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace
short_description: The workspace being built - identity, transition, template and deployment URL
version_added: 0.1.0
description:
  - The C(coder_workspace) data source of the Coder Terraform provider, as one dictionary.
  - Read from the controller's environment as upstream reads the provisioner's. V(id) is E(CODER_WORKSPACE_ID) or a new UUID;
    V(name) is E(CODER_WORKSPACE_NAME) or V(default); V(transition) is E(CODER_WORKSPACE_TRANSITION) or V(start), and
    V(start_count) is V(1) exactly when it is V(start).
  - V(is_prebuild) and V(prebuild_count) come from E(CODER_WORKSPACE_IS_PREBUILD), V(is_prebuild_claim) from
    E(CODER_WORKSPACE_IS_PREBUILD_CLAIM) (both V(true) in any case); a claim forces V(is_prebuild=false).
  - V(template_id), V(template_name) and V(template_version) come from E(CODER_WORKSPACE_TEMPLATE_ID), E(CODER_WORKSPACE_TEMPLATE_NAME)
    and E(CODER_WORKSPACE_TEMPLATE_VERSION); during a build (E(CODER_WORKSPACE_BUILD_ID) set) a missing one is an error
    such as C(template ID is missing; CODER_WORKSPACE_TEMPLATE_ID is required).
  - V(access_url) is the deployment URL as given (not normalised, as upstream); V(access_port) its port, else V(443) for
    C(https) and V(80) otherwise.
author:
  - devinfra.providers contributors (@devinfra)
options: {}
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: Create the machine only while the workspace is started
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.workspace').start_count }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(name), C(transition), C(start_count), C(is_prebuild), C(prebuild_count),
      C(is_prebuild_claim), C(template_id), C(template_name), C(template_version), C(access_url) and C(access_port).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        url, parsed = self.deployment(environ)
        return data_sources.workspace(environ=environ, url=url, parsed_url=parsed)
