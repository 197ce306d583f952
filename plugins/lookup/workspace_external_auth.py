# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_external_auth
short_description: The access token of an external authentication provider (GitHub, GitLab, ...)
version_added: 0.1.0
description:
  - The C(coder_external_auth) data source of the Coder Terraform provider, as one dictionary.
  - V(access_token) (secret) is E(CODER_EXTERNAL_AUTH_ACCESS_TOKEN_<id>), with the raw id, or empty.
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(id).
    required: false
  id:
    description: The id of an external authentication provider configured on the deployment.
    type: str
  optional:
    description: Whether users may skip authenticating with this provider.
    type: bool
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: Clone with the owner's GitHub token
  ansible.builtin.git:
    repo: "https://oauth2:{{ lookup('devinfra.providers.workspace_external_auth', 'github').access_token }}@github.com/example/repo"
    dest: /srv/repo
  no_log: true
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(optional) and C(access_token).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    term_option = "id"

    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return data_sources.external_auth(auth_id=self.get_option("id"), optional=self.get_option("optional"), environ=environ)
