# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_tags
short_description: Tags that route the workspace's builds to provisioners
version_added: 0.1.0
description:
  - The C(coder_workspace_tags) data source of the Coder Terraform provider, as one dictionary.
  - Values are strings (a boolean becomes V(true) or V(false)); V(id) is a new UUID on every call.
author:
  - devinfra.providers contributors (@devinfra)
options:
  tags:
    description: The tags.
    type: dict
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: Route to provisioners in the chosen region
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.workspace_tags', tags={'region': 'eu'}) }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id) and C(tags).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return data_sources.workspace_tags(tags=self.get_option("tags"))
