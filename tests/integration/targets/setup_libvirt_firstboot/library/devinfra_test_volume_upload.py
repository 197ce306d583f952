#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# A test-only module: it drives module_utils/_libvirt/stream_upload.upload_file() against the
# real daemon (test:///default has no virStorageVolUpload), until libvirt_volume uses it.

from __future__ import annotations

DOCUMENTATION = r"""
module: devinfra_test_volume_upload
short_description: Test helper, upload a file into a new raw volume with upload_file()
description:
  - Creates the raw volume O(volume) in O(pool) with the file's size (unless it exists), then streams
    O(path) into it. Integration tests only.
author:
  - devinfra.providers contributors (@devinfra)
options:
  uri:
    description: The libvirt URI.
    type: str
    required: true
  pool:
    description: The pool name.
    type: str
    required: true
  volume:
    description: The volume name.
    type: str
    required: true
  path:
    description: The local file.
    type: path
    required: true
  sparse:
    description: Passed to upload_file() (null lets it decide).
    type: bool
  capacity:
    description: The capacity of a new volume in bytes; defaults to the file size.
    type: int
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import connect, libvirt
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError, is_not_found
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.stream_upload import upload_file


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "uri": {"type": "str", "required": True},
            "pool": {"type": "str", "required": True},
            "volume": {"type": "str", "required": True},
            "path": {"type": "path", "required": True},
            "sparse": {"type": "bool"},
            "capacity": {"type": "int"},
        }
    )
    p = module.params
    try:
        with connect(p["uri"]) as conn:
            pool = conn.storagePoolLookupByName(p["pool"])
            created = False
            try:
                vol = pool.storageVolLookupByName(p["volume"])
            except libvirt.libvirtError as exc:
                if not is_not_found(exc):
                    raise
                capacity = p["capacity"] or os.path.getsize(p["path"])
                # no allocation: a dir pool would otherwise preallocate, and holes could not stay holes
                xml = (
                    f"<volume><name>{p['volume']}</name><capacity unit='bytes'>{capacity}</capacity>"
                    "<allocation>0</allocation><target><format type='raw'/></target></volume>"
                )
                vol = pool.createXML(xml, 0)
                created = True
            start = time.monotonic()
            result = upload_file(vol, p["path"], sparse=p["sparse"])
            seconds = time.monotonic() - start
            info = vol.info()
            module.exit_json(
                changed=True,
                created=created,
                size=result.size,
                data_bytes=result.data_bytes,
                hole_bytes=result.hole_bytes,
                sparse=result.sparse,
                seconds=round(seconds, 3),
                volume={"path": vol.path(), "capacity": int(info[1]), "allocation": int(info[2])},
            )
    except (LibvirtError, libvirt.libvirtError) as exc:
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
