# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: workspace_state
short_description: Move a workspace state between a local file and a Cloud Storage object
version_added: 0.2.0
description:
  - Copies the workspace state at O(src) to O(dest), each a local file or V(gs://BUCKET/OBJECT), with the same
    resources, ids and tokens, so that the workspace resource modules find every resource unchanged at O(dest).
    This is the way to move a workspace's state into a bucket, and back.
  - A O(dest) that holds the same resources is left alone. A O(dest) that does not exist or holds no resources
    is written. A O(dest) that holds other resources is an error naming how many resources differ (their
    addresses, never their values) unless O(force=true).
  - The write goes through the state's own mechanism - the file's lock, or a write conditional on the object's
    generation - so a concurrent run of a workspace module is never overwritten without notice.
  - O(src) and O(dest) may name the same V(gs://) object with two keys, O(src_encryption_key) and
    O(state_encryption_key) - the object is read with the first and written with the second, which replaces
    its customer-supplied encryption key. Run again, the task finds the object already under the new key and
    changes nothing.
  - O(src) is only read, never changed or removed.
author:
  - devinfra.providers contributors (@devinfra)
options:
  src:
    description:
      - The state to copy - the path of a state file on the controller, or V(gs://BUCKET/OBJECT).
      - A O(src) that does not exist or holds no resources is an error; so is one that is not a workspace state.
    type: str
    required: true
  dest:
    description:
      - Where to copy the state - the path of a state file on the controller, or V(gs://BUCKET/OBJECT).
      - A file is written atomically under its lock with mode C(0600), as by the workspace modules; its directory
        must exist.
    type: str
    required: true
  force:
    description:
      - Replace a O(dest) that holds other resources than O(src). Its resources are lost (with Object Versioning
        on the bucket, the previous object remains as a noncurrent version).
    type: bool
    default: false
  src_encryption_key:
    description:
      - The customer-supplied encryption key of a V(gs://) O(src), when it is not O(state_encryption_key) (which
        is the default, also for O(src)).
      - V("") reads a O(src) that has no customer-supplied key, for example to encrypt an object in place.
      - Never returned, logged or shown in a message.
    type: str
  state_encryption_key:
    description:
      - The customer-supplied encryption key a V(gs://) O(dest) is written with (and read with), and O(src) read with
        unless O(src_encryption_key) is set - an AES-256 key (32 bytes) encoded as base64, for example the output of
        C(openssl rand -base64 32). Every later run reading O(dest) needs the same key; losing it loses the state.
      - When not set, E(DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY) is used.
      - Never returned, logged or shown in a message.
extends_documentation_fragment:
  - devinfra.providers.workspace.state_backend
  - devinfra.providers.attributes
  - devinfra.providers.attributes.controller_action
attributes:
  check_mode:
    support: full
    details:
      - Reads O(src) and O(dest) and writes nothing.
  diff_mode:
    support: full
    details:
      - The addresses of the resources O(dest) holds before and after; never their values, which hold agent tokens.
  idempotent:
    support: full
notes:
  - Unlike the workspace resource modules it takes no C(state_file) (it has two locations), so it is not in the
    C(group/devinfra.providers.workspace) action group, whose C(module_defaults) set C(state_file).
  - The credential options apply to both locations when both are V(gs://) objects; to copy between buckets that
    need different credentials, copy through a local file in two tasks.
  - Once the workspace runs against O(dest), point C(state_file) of its tasks (or E(DEVINFRA_WORKSPACE_STATE))
    there, and remove O(src) when no run uses it any more - it still holds the agent tokens.
seealso:
  - module: devinfra.providers.workspace_agent
  - ref: ansible_collections.devinfra.providers.docsite.workspace_remote_state
    description: The workspace state in Cloud Storage - credentials, bucket permissions, retention, the encryption key.
"""

EXAMPLES = r"""
- name: Move the state of a workspace into a bucket
  devinfra.providers.workspace_state:
    src: /srv/workspaces/dev.json
    dest: gs://team-workspace-states/dev.json
    auth_kind: serviceaccount
    service_account_file: /etc/devinfra/state-writer.json
    state_encryption_key: "{{ vault_workspace_state_key }}"

- name: Copy it back to a local file, for example before giving up the bucket
  devinfra.providers.workspace_state:
    src: gs://team-workspace-states/dev.json
    dest: /srv/workspaces/dev.json
    state_encryption_key: "{{ vault_workspace_state_key }}"

- name: Replace the customer-supplied key of the object
  devinfra.providers.workspace_state:
    src: gs://team-workspace-states/dev.json
    dest: gs://team-workspace-states/dev.json
    src_encryption_key: "{{ vault_workspace_state_old_key }}"
    state_encryption_key: "{{ vault_workspace_state_key }}"
"""

RETURN = r"""
operation:
  description:
    - V(create) (O(dest) held no resources), V(update) (its resources replaced, or the object's key) or V(none), for the
      P(devinfra.providers.plan#callback) callback.
  returned: success
  type: str
  sample: create
address:
  description: C(workspace_state.<dest>), where O(dest) is the absolute path or V(gs://BUCKET/OBJECT) written.
  returned: success
  type: str
  sample: workspace_state.gs://team-workspace-states/dev.json
changed_paths:
  description:
    - For an update, C(resources.<address>) of each resource that differed, or C(state_encryption_key) when the object's key
      was replaced; names only, never values.
  returned: success
  type: list
  elements: str
  sample: [resources.workspace_agent.main]
src:
  description: Where the state was read, an absolute path or V(gs://BUCKET/OBJECT).
  returned: success
  type: str
  sample: /srv/workspaces/dev.json
dest:
  description: Where the state was written (or found), an absolute path or V(gs://BUCKET/OBJECT).
  returned: success
  type: str
  sample: gs://team-workspace-states/dev.json
resources:
  description: The number of resources in the state.
  returned: success
  type: int
  sample: 3
addresses:
  description: The addresses of the resources in the state, sorted.
  returned: success
  type: list
  elements: str
  sample: [workspace_agent.main, workspace_app.main.code-server, workspace_env.main.EDITOR]
diff:
  description:
    - C(before) and C(after), each with C(exists) and the C(addresses) of the resources O(dest) holds.
  returned: in diff mode
  type: dict
"""
