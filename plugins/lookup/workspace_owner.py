# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_owner
short_description: The owner of the workspace being built - identity, groups, roles and credentials
version_added: 0.1.0
description:
  - The C(coder_workspace_owner) data source of the Coder Terraform provider, as one dictionary.
  - "Defaults as upstream: V(name) and V(full_name) V(default), V(email) V(default@example.com), V(id) a new UUID."
  - V(groups) (E(CODER_WORKSPACE_OWNER_GROUPS)) and V(rbac_roles) (E(CODER_WORKSPACE_OWNER_RBAC_ROLES), a list of C(name)
    and C(org_id)) are JSON, decoded only when their variable is set; an empty or invalid value fails with
    C(invalid user groups) or C(invalid user rbac roles) and Go's decoder message.
  - V(ssh_private_key), V(session_token) and V(oidc_access_token) are secret. The lookup never displays them; the
    modules of this collection that can receive them hide their results. Use C(no_log) on other tasks you pass them to.
author:
  - devinfra.providers contributors (@devinfra)
options: {}
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: Configure git for the owner
  ansible.builtin.set_fact:
    git_author: "{{ owner.full_name }} <{{ owner.email }}>"
  vars:
    owner: "{{ lookup('devinfra.providers.workspace_owner') }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(name), C(full_name), C(email), C(ssh_public_key), C(ssh_private_key), C(groups),
      C(session_token), C(oidc_access_token), C(login_type) and C(rbac_roles).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return data_sources.workspace_owner(environ=environ)
