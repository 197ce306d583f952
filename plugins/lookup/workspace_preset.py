# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_preset
short_description: A preset - predefined parameter values, optionally with prebuilt workspaces
version_added: 0.1.0
description:
  - The C(coder_workspace_preset) data source of the Coder Terraform provider, as one dictionary, with upstream's checks.
  - V(id) is the O(name), as upstream's code does.
  - Pass all presets to P(devinfra.providers.workspace_manifest#lookup) to apply the server's rules (at most one default).
author:
  - devinfra.providers contributors (@devinfra)
options:
  _terms:
    description: At most one term, the O(name).
    required: false
  name:
    description: The preset's name; must not be empty.
    type: str
  description:
    description: At most 128 characters.
    type: str
  icon:
    description: URL of an icon, at most 256 characters.
    type: str
  default:
    description: Whether the preset is selected by default.
    type: bool
    default: false
  parameters:
    description: Parameter names and the values the preset sets.
    type: dict
  prebuilds:
    description:
      - Prebuilt workspaces for this preset - C(instances) (required, at least 0); C(expiration_policy) with C(ttl)
        (0, or 3600 to 31536000 seconds); C(scheduling) with C(timezone) and C(schedule), a list of C(cron)
        (5 fields, the minute field C(*)) and C(instances). Schedules must not overlap.
      - A dictionary; it, C(expiration_policy) and C(scheduling) may each also be a list of one dictionary, as
        Terraform writes such a block (HCL, C(terraform show -json), the state); two or more fail.
    type: raw
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: A small and a large preset
  ansible.builtin.set_fact:
    presets:
      - "{{ lookup('devinfra.providers.workspace_preset', 'small', parameters={'cpu': '2'}, default=true) }}"
      - "{{ lookup('devinfra.providers.workspace_preset', 'large', parameters={'cpu': '8'}, prebuilds={'instances': 1}) }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(name), C(description), C(icon), C(default), C(parameters) and C(prebuilds).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup

_OPTIONS = ("name", "description", "icon", "default", "parameters", "prebuilds")


class LookupModule(WorkspaceDataSourceLookup):
    term_option = "name"

    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return data_sources.workspace_preset({option: self.get_option(option) for option in _OPTIONS})
