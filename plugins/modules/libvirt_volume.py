#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_volume
short_description: Manage a libvirt storage volume, optionally filled from a URL or a file
version_added: 0.1.0
description:
  - Creates, grows, replaces and removes a volume in a libvirt storage pool, with the options of the
    C(libvirt_volume) resource of terraform-provider-libvirt 0.9 (the libvirt volume XML, key by key).
  - With O(create.content.url) the new volume is filled from an C(http://) or C(https://) URL or from a file on
    the managed host, streamed through libvirt in 96 KiB pieces (constant memory whatever the size). Holes of a
    sparse local file are skipped (a sparse stream, as C(virsh vol-upload --sparse)) when the daemon supports it.
  - Only the options you set are compared, against the volume's XML. A larger O(capacity) grows the volume in
    place. Anything else that differs (format, backing store, encryption, permissions, a smaller capacity) cannot
    change without losing the volume's data, so it fails, unless O(replace=true) asks to delete and create it anew.
  - A download that ends before its C(Content-Length), a full pool or a lost connection fails the task and leaves no
    new volume. While a volume is filled, an empty volume C(<name>.incomplete-<run>) marks it, named after the run
    (a key of the host's boot and pid namespace, the process id and its start time). A run that finds the marker
    of a run still alive waits for it (as long as that run lives; the task keyword C(timeout) bounds the wait,
    check mode does not wait and reports a change); of a run that died before it could clean up (the daemon stopped, the
    process was killed), warns and makes the volume anew; of a run on another host or in another container, which
    it cannot tell alive or dead, fails and leaves both alone. A pool that cannot hold a marker cannot take
    content.
  - A replacement with content is uploaded into C(<name>.replacement-<run>) first and copied into the name only
    once complete, so a failed upload keeps the volume it was to replace (the copy costs time and pool space once).
  - Volumes of yours named like C(<name>.incomplete) or C(<name>.replacement) are never touched.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description: The volume's name in its pool. With O(pool), it identifies the volume.
    type: str
    required: true
  pool:
    description: The name of the storage pool that holds the volume. It must be active.
    type: str
    required: true
  capacity:
    description:
      - The volume's size, in O(capacity_unit).
      - Required to create an empty volume. With O(create.content.url), the size of the content wins (upstream's
        rule) and this is only needed when the size is unknown (an HTTP answer without Content-Length);
        a larger value grows the volume after the upload.
      - On an existing volume, a larger value grows it; a smaller one fails unless O(replace=true)
        (the content of a volume made from O(create.content.url) decides its size, so a smaller value is no change there).
    type: int
  capacity_unit:
    description:
      - The unit of O(capacity), as libvirt reads it, V(bytes) when not set; V(KiB), V(MiB), V(GiB), V(TiB)
        (1024-based, also V(k), V(M), V(G), V(T)) or V(KB), V(MB), V(GB), V(TB) (1000-based).
    type: str
  state:
    description: V(present) creates the volume; V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  create:
    description:
      - How a new volume is filled (upstream's C(create) block). Used only when the volume is created; a change
        of the URL of an existing volume is not detected (as upstream); remove the volume, or use O(replace).
    type: dict
    suboptions:
      content:
        description: Content to upload.
        type: dict
        required: true
        suboptions:
          url:
            description:
              - An C(http://) or C(https://) URL, fetched with one GET that must answer 200; or the path of a file
                on the managed host (C(file://) allowed), a regular file (not a directory, FIFO or device).
            type: str
            required: true
  sparse:
    description:
      - For uploads of local files, V(true) requires a sparse stream, V(false) sends every byte; not set, holes
        are skipped when the file has any and the daemon supports sparse streams.
    type: bool
  replace:
    description:
      - Delete and create the volume anew (with its content) when it differs in something that cannot change in
        place. Its data is lost.
    type: bool
    default: false
  url_timeout:
    description: Timeout in seconds for connecting to an O(create.content.url) over HTTP.
    type: int
    default: 30
  validate_certs:
    description: Verify the TLS certificate of an C(https://) O(create.content.url).
    type: bool
    default: true
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt_schema.storage_volume
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
attributes:
  check_mode:
    details:
      - In check mode an O(create.content.url) over HTTP is still opened (one GET, nothing read) to learn its size.
notes:
  - Upstream (terraform-provider-libvirt 0.9) fails on any change of a volume; here a larger capacity is applied in
    place and other changes need the explicit O(replace).
seealso:
  - module: devinfra.providers.libvirt_pool
"""

EXAMPLES = r"""
- name: An empty 20 GiB qcow2 disk
  devinfra.providers.libvirt_volume:
    name: ws1-data.qcow2
    pool: workspaces
    capacity: 20
    capacity_unit: GiB
    target:
      format:
        type: qcow2

- name: A root disk from a cloud image, grown to 10 GiB
  devinfra.providers.libvirt_volume:
    name: ws1-root.qcow2
    pool: workspaces
    capacity: 10
    capacity_unit: GiB
    target:
      format:
        type: qcow2
    create:
      content:
        url: https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2

- name: An overlay on a base image
  devinfra.providers.libvirt_volume:
    name: ws2-root.qcow2
    pool: workspaces
    capacity: 10
    capacity_unit: GiB
    target:
      format:
        type: qcow2
    backing_store:
      path: /var/lib/libvirt/workspaces/base.qcow2
      format:
        type: qcow2
"""

RETURN = r"""
volume:
  description:
    - The volume as options (everything libvirt holds for it), with C(key), C(path), C(pool) and the computed
      C(capacity), C(allocation) and C(physical) (with their C(_unit)). With O(state=absent), what was removed
      (empty when there was nothing).
  returned: always
  type: dict
  sample:
    name: ws1-data.qcow2
    pool: workspaces
    key: /var/lib/libvirt/workspaces/ws1-data.qcow2
    path: /var/lib/libvirt/workspaces/ws1-data.qcow2
    capacity: 21474836480
    capacity_unit: bytes
    allocation: 200704
    allocation_unit: bytes
    target: {path: /var/lib/libvirt/workspaces/ws1-data.qcow2, format: {type: qcow2}, permissions: {mode: "0600", owner: "0", group: "0"}}
replaced:
  description: True when the volume was deleted and created anew (O(replace=true)).
  returned: when it was replaced
  type: bool
  sample: true
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.volume import VOLUME_ARGSPEC, ensure_volume


def main() -> None:
    run_resource_module(noun="volume", argument_spec=VOLUME_ARGSPEC, run=ensure_volume)


if __name__ == "__main__":
    main()
