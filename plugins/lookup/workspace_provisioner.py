# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_provisioner
short_description: The operating system and architecture of the provisioner (the controller)
version_added: 0.1.0
description:
  - The C(coder_provisioner) data source of the Coder Terraform provider, as one dictionary.
  - V(os) and V(arch) are Go's names (C(GOOS), C(GOARCH)) for the controller (C(x86_64) is V(amd64), C(aarch64) is
    V(arm64)); 32-bit ARM is V(armv7), as upstream reports it. V(id) is a new UUID on every call.
author:
  - devinfra.providers contributors (@devinfra)
options: {}
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: An agent for the provisioner's own platform
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.workspace_provisioner').arch }}"
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(os) and C(arch).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return data_sources.provisioner()
