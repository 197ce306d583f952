# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_metadata
short_description: Metadata shown in the dashboard beside a workspace resource
version_added: 0.1.0
description:
  - The C(coder_metadata) resource of the Coder Terraform provider.
  - Identified by O(resource_id) in the state file (the server accepts one metadata resource per resource).
  - Each item records C(is_null), V(true) when its O(items[].value) was omitted. Item keys must be unique.
  - The values of items with O(items[].sensitive=true) are masked in the result and the diff (the state file keeps them).
author:
  - devinfra.providers contributors (@devinfra)
options:
  resource_id:
    description:
      - The id of the resource the metadata belongs to (for example a VM's UUID); its key in the state file.
    type: str
    required: true
  hide:
    description: Hide the resource in the dashboard.
    type: bool
  icon:
    description: URL of a dashboard icon (validated with Go's C(url.Parse)).
    type: str
  daily_cost:
    description: The resource's daily cost, in the deployment's quota units.
    type: int
  items:
    description: The key/value pairs shown.
    type: list
    elements: dict
    aliases: [item]
    suboptions:
      key:
        description: The key.
        type: str
        required: true
      value:
        description: The value; when omitted, the item's C(is_null) is V(true).
        type: str
      sensitive:
        description: The dashboard hides the value until clicked; here it is masked in the result and diff.
        type: bool
        default: false
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
- name: Describe the VM in the dashboard
  devinfra.providers.workspace_metadata:
    resource_id: "{{ vm_uuid }}"
    daily_cost: 3
    items:
      - key: image
        value: debian-12
      - key: ip
"""

RETURN = r"""
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
metadata:
  description: The metadata. With O(state=absent), what was removed, or empty.
  returned: always
  type: dict
  contains:
    id:
      description: The id (a UUID).
      type: str
    metadata_id:
      description: The same id.
      type: str
    item:
      description:
        - The items of O(items), each with C(key), C(value), C(sensitive) and C(is_null), under upstream's name
          (C(items) cannot be read with dot notation in Jinja).
      type: list
      elements: dict
operation:
  description: V(create), V(replace) (an argument changed, new id), V(none), V(delete) or V(absent).
  returned: always
  type: str
  sample: create
address:
  description: The key of the resource in the state file (C(workspace_metadata.<resource_id>)).
  returned: always
  type: str
  sample: workspace_metadata.3b6d1d36-3c4a-4d6e-8d8a-8a7f9a1d2c3b
state_file:
  description: The absolute path of the state file.
  returned: always
  type: str
diff:
  description: Before and after, with an C(exists) field.
  returned: in diff mode
  type: dict
"""
