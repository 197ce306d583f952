# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: workspace_task
short_description: The AI task the workspace is built for, if any
version_added: 0.1.0
description:
  - The C(coder_task) data source of the Coder Terraform provider, as one dictionary.
  - When E(CODER_TASK_ID) is a UUID other than the nil UUID, V(id) is that UUID and V(enabled) is V(true); when it is
    empty or nil, V(id) is a new UUID and V(enabled) V(false); another value fails with the UUID parser's message
    (for example C(invalid UUID length; 3)). V(prompt) is E(CODER_TASK_PROMPT).
author:
  - devinfra.providers contributors (@devinfra)
options: {}
extends_documentation_fragment:
  - devinfra.providers.workspace.lookup
"""

EXAMPLES = r"""
- name: Start the task's agent only for tasks
  ansible.builtin.debug:
    msg: "{{ lookup('devinfra.providers.workspace_task').prompt }}"
  when: lookup('devinfra.providers.workspace_task').enabled
"""

RETURN = r"""
_raw:
  description:
    - One dictionary with the keys C(id), C(enabled) and C(prompt).
  type: list
  elements: dict
"""

import typing as t

from ansible_collections.devinfra.providers.plugins.module_utils._workspace import data_sources
from ansible_collections.devinfra.providers.plugins.plugin_utils._workspace_lookup import WorkspaceDataSourceLookup


class LookupModule(WorkspaceDataSourceLookup):
    def query(self, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
        return data_sources.task(environ=environ)
