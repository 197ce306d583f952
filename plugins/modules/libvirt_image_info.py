#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_image_info
short_description: Inspect a disk image file on the managed host
version_added: 0.3.0
description:
  - Reads the header of a disk image file on the managed host and returns what it is, as
    M(devinfra.providers.libvirt_volume) sees it before uploading it - its format as QEMU probes it (V(raw), V(iso),
    V(qcow), V(qcow2), V(qed), V(vmdk), V(vhdx), V(vpc), V(vdi), V(parallels), V(bochs), V(cloop) or V(luks)), its
    virtual size, the files of the host its header names (a backing
    file, an external data file, vmdk extents or a vmdk parent), and why an upload of it would be refused - and its
    digest.
  - Nothing the image names is opened. Only the first 2 MiB are read to inspect it.
  - The digest is read once per version of the file. It is remembered in a record only the running user can write
    (C(/var/lib/devinfra.providers/digests) for root), valid while the file's device, inode, size, modification and
    change times are all unchanged; the kernel sets the change time on every write and no user can set it. A later
    run returns it without reading the file. M(devinfra.providers.libvirt_volume) with C(create.content.checksum)
    checks the bytes it uploads against the digest again, so a file changed after it was digested can never be
    uploaded under the digest.
author:
  - devinfra.providers contributors (@devinfra)
options:
  path:
    description: The image file on the managed host (C(file://) allowed). It must be a regular file.
    type: str
    required: true
  get_checksum:
    description: Return the file's digest in RV(image.checksum).
    type: bool
    default: true
  checksum_algorithm:
    description: The digest's algorithm.
    type: str
    choices: [sha256, sha384, sha512]
    default: sha256
extends_documentation_fragment:
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
seealso:
  - module: devinfra.providers.libvirt_volume
"""

EXAMPLES = r"""
- name: Look at an image before it becomes a volume
  devinfra.providers.libvirt_image_info:
    path: /srv/images/debian-12-genericcloud-amd64.qcow2
  register: debian

- name: Upload it, verified against the digest just read (the format is read from the content)
  devinfra.providers.libvirt_volume:
    pool: default
    name: debian-12.{{ debian.image.format }}
    create:
      content:
        url: "{{ debian.image.path }}"
        checksum: "{{ debian.image.checksum }}"
  when: debian.image.refused is none
"""

RETURN = r"""
image:
  description: What the image is.
  returned: success
  type: dict
  contains:
    path:
      description: The file's path.
      type: str
      sample: /srv/images/debian-12-genericcloud-amd64.qcow2
    size:
      description: The file's size in bytes.
      type: int
      sample: 334626816
    format:
      description: The format read from the content (V(raw) when no other format's header is there).
      type: str
      sample: qcow2
    virtual_size:
      description: The size of the disk the image holds, in bytes, when its header gives it (the file size for raw).
      type: int
      sample: 2147483648
    references:
      description: The files of the host the header names, each with its C(kind) (C(backing file),
        C(external data file), C(vmdk extent), C(vmdk parent)) and C(path) as written in the image.
      type: list
      elements: dict
      sample: [{kind: backing file, path: /var/lib/libvirt/images/base.qcow2}]
    refused:
      description: Why M(devinfra.providers.libvirt_volume) would refuse this image as content (with no backing
        file allowed), or null.
      type: str
      sample: null
    checksum:
      description: The file's digest, C(<algorithm>:<hex digits>), when O(get_checksum) is true.
      type: str
      sample: sha256:5f2e8c4b0c3b6a1e9d7f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.image_file import IMAGE_INFO_ARGSPEC, describe_image_file


def main() -> None:
    module = AnsibleModule(argument_spec=IMAGE_INFO_ARGSPEC, supports_check_mode=True)
    try:
        module.exit_json(changed=False, image=describe_image_file(module.params))
    except LibvirtError as exc:
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
