#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_cloudinit_disk
short_description: Build a cloud-init NoCloud seed ISO on the managed host
version_added: 0.1.0
description:
  - The C(libvirt_cloudinit_disk) resource of the upstream Terraform provider (terraform-provider-libvirt 0.9),
    an ISO image labelled C(cidata) holding C(user-data), C(meta-data) and, when set, C(network-config) in its
    root, which cloud-init's NoCloud data source reads on first boot.
  - The image is built with pycdlib B(on the managed host), as ISO9660 level 3 with Joliet and Rock Ridge
    names, like C(genisoimage -volid cidata -joliet -rock). Upstream 0.9 writes plain ISO9660 only, which
    guests do not read (L(upstream issue 1329,https://github.com/dmacvicar/terraform-provider-libvirt/issues/1329)).
  - The file is named after the upstream id, C(cloudinit-<id>.iso), in O(dest). The same content gives the same
    file, which is never rewritten; a file at that path whose content does not match (corrupt, truncated,
    edited) is rebuilt. New content gives a new file, and the file of the previous content of this O(name) is
    removed unless another resource still uses it.
  - Files are written to a temporary file in O(dest), then renamed, so nothing half-written is ever left.
  - With O(pool), the image is also streamed into a raw volume of that storage pool, so a domain can attach
    it as a CD-ROM without a separate upload step.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The name of this resource. As upstream, it is not part of the id or the file name.
      - It identifies the resource between runs, so that a changed content removes the file it replaces.
      - It is the default volume name with O(pool) (V(<name>.iso)).
    type: str
    required: true
  user_data:
    description:
      - The cloud-init user-data, usually a C(#cloud-config) YAML document.
      - Required and not empty with O(state=present).
      - Never shown (C(no_log)); the result and the diff give its sha256 and size.
    type: str
  meta_data:
    description:
      - The cloud-init meta-data (YAML), for example C(instance-id) and C(local-hostname).
      - Required and not empty with O(state=present).
      - Never shown (C(no_log)); the result and the diff give its sha256 and size.
    type: str
  network_config:
    description:
      - The cloud-init network configuration (YAML, version 1 or 2). The file C(network-config) is
        only in the image when this is set.
      - Never shown (C(no_log)); the result and the diff give its sha256 and size.
    type: str
  state:
    description:
      - V(present) builds the image (and fills the volume); V(absent) removes this resource's image unless
        another resource uses the same file, its record, and its volume.
      - The last resource of a O(dest) removed takes the record store and its lock along, and the default O(dest)
        when nothing else is in it (a O(dest) given stays).
    type: str
    choices: [present, absent]
    default: present
  pool:
    description:
      - A storage pool (name) of the libvirt host at O(uri) to copy the image into, as a raw volume named
        O(volume). The volume is created with the image's size; when its content differs from the image, it
        is rewritten in place, or made anew when the size differs.
      - The upload is streamed from the managed host to libvirt, so the libvirt host can be remote.
    type: str
  volume:
    description:
      - The name of the volume in O(pool). Defaults to V(<name>.iso).
      - Changing it leaves the previous volume in place.
    type: str
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt.firstboot_dest
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
requirements:
  - pycdlib on the managed host
  - libvirt-python on the managed host, only with O(pool)
notes:
  - The connection options are only used with O(pool) (and with O(state=absent) for a recorded volume).
  - O(user_data), O(meta_data) and O(network_config) are C(no_log), as the C(content) of M(ansible.builtin.copy) is
    (they carry passwords and keys). The invocation a task shows at C(-v) holds
    C(VALUE_SPECIFIED_IN_NO_LOG_PARAMETER) instead of them, and Ansible replaces any occurrence of their values in the
    task's result and messages with C(********) (so a value of a few characters can mask parts of other text).
  - The result and the diff give the sha256 and size of each of them (C(user_data_sha256), C(user_data_size)...),
    on both sides of the diff, so a diff shows which content changed without its text - neither the new one nor the
    one read back from the image it replaces (which no C(no_log) would mask).
  - See R(the collection's first-boot guide,ansible_collections.devinfra.providers.docsite.firstboot) for the layout of the image
    and how guests find it.
seealso:
  - module: devinfra.providers.libvirt_combustion
  - module: devinfra.providers.libvirt_ignition
  - name: cloud-init NoCloud data source
    description: How cloud-init finds and reads the C(cidata) image.
    link: https://cloudinit.readthedocs.io/en/latest/reference/datasources/nocloud.html
"""

EXAMPLES = r"""
- name: Build the cloud-init seed of web01 and put it into the default pool
  devinfra.providers.libvirt_cloudinit_disk:
    name: web01-seed
    user_data: |
      #cloud-config
      hostname: web01
      runcmd:
        - echo hello > /var/tmp/hello
    meta_data: |
      instance-id: web01
      local-hostname: web01
    pool: default
  register: seed

- name: Show where the image and its volume are
  ansible.builtin.debug:
    msg: "{{ seed.cloudinit_disk.path }} ({{ seed.cloudinit_disk.size }} bytes) -> {{ seed.cloudinit_disk.volume.path }}"

- name: Remove it again
  devinfra.providers.libvirt_cloudinit_disk:
    name: web01-seed
    state: absent
"""

RETURN = r"""
operation:
  description:
    - What the task did, or would do in check mode, as Terraform's plan names it, C(create), C(update) (in place),
      C(replace), C(delete) or C(none); the C(devinfra.providers.plan) callback shows it.
  returned: always
  type: str
  sample: update
address:
  description:
    - The resource as Terraform prints it, C(<module>.<name>); an object inside another one names both,
      C(libvirt_volume.<pool>/<name>), C(libvirt_domain_snapshot.<domain>/<name>).
  returned: always
  type: str
  sample: libvirt_domain.web
changed_paths:
  description:
    - The option paths that change (C(update), C(replace)), never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [memory, vcpu]
cloudinit_disk:
  description:
    - The resource, with the upstream fields C(id), C(path) and C(size), plus C(dest), C(volume) and the sha256 and size
      of each content option (never the text, neither here nor in the diff).
    - With O(state=absent), what was removed (C(name), C(id), C(path), C(files), C(volume)), or empty when there
      was nothing.
  returned: always
  type: dict
  contains:
    name:
      description: The resource name.
      type: str
      sample: web01-seed
    id:
      description: Upstream's id, the first 16 hex digits of sha256 over user_data, meta_data and network_config.
      type: str
      sample: 3f5d0c8d1b2a4e6f
    path:
      description: The image on the managed host.
      type: str
      sample: /tmp/terraform-provider-libvirt-cloudinit-0/cloudinit-3f5d0c8d1b2a4e6f.iso
    size:
      description: The size of the image in bytes (null in check mode before it exists).
      type: int
      sample: 69632
    dest:
      description: The directory that holds the image.
      type: str
    user_data_sha256:
      description:
        - The sha256 of O(user_data) (its UTF-8 bytes). The text itself is not returned (it usually carries
          passwords and keys), nor is it in the diff.
      type: str
      sample: 44e0ba155d9ecd939ad051079c8aec4ca8f3c41be65c9d1fed4832a94444876f
    user_data_size:
      description: The size of O(user_data) in bytes (UTF-8).
      type: int
      sample: 30
    meta_data_sha256:
      description: The sha256 of O(meta_data).
      type: str
    meta_data_size:
      description: The size of O(meta_data) in bytes.
      type: int
    network_config_sha256:
      description: The sha256 of O(network_config), null when not set.
      type: str
    network_config_size:
      description: The size of O(network_config) in bytes, null when not set.
      type: int
    files:
      description: With O(state=absent), the files removed.
      type: list
      elements: str
    volume:
      description: The volume holding a copy of the image, null without O(pool).
      type: dict
      contains:
        pool:
          description: The pool name.
          type: str
        name:
          description: The volume name.
          type: str
        path:
          description: The volume's path on the libvirt host.
          type: str
        key:
          description: The volume's key.
          type: str
        capacity:
          description: The volume's capacity in bytes.
          type: int
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.firstboot_module import run_firstboot_module


def main() -> None:
    run_firstboot_module("cloudinit_disk")


if __name__ == "__main__":
    main()
