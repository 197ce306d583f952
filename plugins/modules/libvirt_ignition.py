#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_ignition
short_description: Write an Ignition config on the managed host
version_added: 0.1.0
description:
  - The C(libvirt_ignition) resource of the upstream Terraform provider (terraform-provider-libvirt 0.9),
    the JSON configuration that Ignition (Fedora CoreOS, Flatcar, openSUSE MicroOS) applies on first boot,
    written B(on the managed host) as C(ignition-<id>.ign) in O(dest), mode C(0644).
  - The content must be a JSON object; anything else fails with the JSON parser's message before anything is
    written. Upstream does not check it.
  - The file is named after the upstream id. The same content gives the same file, which is never rewritten;
    a file at that path whose content or mode does not match is rewritten. New content gives a new file, and
    the file of the previous content of this O(name) is removed unless another resource still uses it.
  - Files are written to a temporary file in O(dest), then renamed, so nothing half-written is ever left.
  - Beyond upstream, O(format=config_drive) also builds the ISO image a guest looks for
    (label C(ignition), file C(ignition/config.ign), ISO9660 + Joliet + Rock Ridge), and O(pool) streams the image (or the
    plain file) into a raw volume of a storage pool.
  - A guest can also get the plain file through QEMU's fw_cfg, with the domain's C(sys_infos) entry
    C(opt/com.coreos/config) pointing at RV(ignition.path); see the examples and
    R(the collection's first-boot guide,ansible_collections.devinfra.providers.docsite.firstboot).
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The name of this resource. As upstream, it is not part of the id or the file name.
      - It identifies the resource between runs, so that a changed content removes the file it replaces.
      - It is the default volume name with O(pool) (V(<name>.iso) for a config drive, else V(<name>.ign)).
    type: str
    required: true
  content:
    description:
      - The Ignition config, a JSON object (for example rendered by Butane).
      - Required and not empty with O(state=present); it must parse as a JSON object.
      - Never shown (C(no_log)); the result and the diff give its sha256 and size.
    type: str
  format:
    description:
      - V(file) writes the plain file only, as upstream.
      - V(config_drive) also writes C(ignition-<id>.iso), an ISO image labelled C(ignition) with the content as
        C(ignition/config.ign) (Rock Ridge mode C(0444)), which Ignition on openSUSE MicroOS (and Combustion) reads from a disk with that label.
    type: str
    choices: [file, config_drive]
    default: file
  state:
    description:
      - V(present) writes the files (and fills the volume); V(absent) removes this resource's files unless
        another resource uses them, its record, and its volume.
      - The last resource of a O(dest) removed takes the record store and its lock along, and the default O(dest)
        when nothing else is in it (a O(dest) given stays).
    type: str
    choices: [present, absent]
    default: present
  pool:
    description:
      - A storage pool (name) of the libvirt host at O(uri) to copy the config drive (with
        O(format=config_drive)) or else the plain file into, as a raw volume named O(volume). The volume is
        created with the file's size; when its content differs, it is rewritten in place,
        or made anew when the size differs.
    type: str
  volume:
    description:
      - The name of the volume in O(pool). Defaults to V(<name>.iso) with O(format=config_drive), else
        V(<name>.ign).
      - Changing it leaves the previous volume in place.
    type: str
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt.firstboot_dest
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
requirements:
  - pycdlib on the managed host, only with O(format=config_drive)
  - libvirt-python on the managed host, only with O(pool)
notes:
  - The connection options are only used with O(pool) (and with O(state=absent) for a recorded volume).
  - O(content) is C(no_log), as the C(content) of M(ansible.builtin.copy) is (an Ignition config carries
    passwords and keys). The invocation a task shows at C(-v) holds C(VALUE_SPECIFIED_IN_NO_LOG_PARAMETER) instead,
    and Ansible replaces any occurrence of the value in the task's result and messages with C(********).
  - The result and the diff give its sha256 and size (C(content_sha256), C(content_size)), on both sides of the
    diff, so a diff shows that the content changed without its text - neither the new one nor the one read back from
    the file it replaces (which no C(no_log) would mask).
seealso:
  - module: devinfra.providers.libvirt_combustion
  - module: devinfra.providers.libvirt_cloudinit_disk
  - name: Ignition
    description: The configuration format and the supported platforms.
    link: https://coreos.github.io/ignition/
"""

EXAMPLES = r"""
- name: Write the Ignition config of fcos01
  devinfra.providers.libvirt_ignition:
    name: fcos01-ignition
    content: "{{ {'ignition': {'version': '3.4.0'}, 'passwd': {'users': [{'name': 'core', 'sshAuthorizedKeys': [ssh_key]}]}} | to_json }}"
  vars:
    ssh_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBGM0uKMb0fMwIuvnE3OXyXw2tTWN6fq2uDiq0pqvqmN core@example
  register: ignition

# Fedora CoreOS on QEMU reads its config from fw_cfg: libvirt_domain's sys_infos
# (<sysinfo type='fwcfg'>) with an entry named opt/com.coreos/config.
- name: The domain XML this corresponds to
  ansible.builtin.debug:
    msg: >-
      <sysinfo type='fwcfg'><entry name='opt/com.coreos/config'
      file='{{ ignition.ignition.path }}'/></sysinfo>

- name: Or a config drive (label ignition, ignition/config.ign) in the default pool
  devinfra.providers.libvirt_ignition:
    name: micro01-ignition
    content: '{"ignition": {"version": "3.2.0"}}'
    format: config_drive
    pool: default
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
ignition:
  description:
    - The resource, with the upstream fields C(id), C(path) and C(size), plus C(dest), C(mode), C(format),
      C(config_drive), C(volume) and the sha256 and size of O(content) (never the text, neither here nor in the diff).
    - With O(state=absent), what was removed (C(name), C(id), C(path), C(files), C(volume)), or empty when there
      was nothing.
  returned: always
  type: dict
  contains:
    name:
      description: The resource name.
      type: str
      sample: fcos-ignition
    id:
      description: Upstream's id, the first 16 hex digits of sha256 over the content.
      type: str
      sample: 9c1185a5c5e9fc54
    path:
      description: The plain file on the managed host.
      type: str
      sample: /tmp/terraform-provider-libvirt-ignition-0/ignition-9c1185a5c5e9fc54.ign
    size:
      description: The size of the plain file in bytes (null in check mode before it exists).
      type: int
      sample: 120
    mode:
      description: The plain file's mode, as upstream sets it.
      type: str
      sample: "0644"
    content_sha256:
      description:
        - The sha256 of O(content) (its UTF-8 bytes). The text itself is not returned (it often carries passwords
          and keys), nor is it in the diff.
      type: str
      sample: d8636f1e83cff0947ca63c1149600f6c29d7a3564a8ca44601748268c0ffddc3
    content_size:
      description: The size of O(content) in bytes (UTF-8).
      type: int
      sample: 34
    dest:
      description: The directory that holds the files.
      type: str
    format:
      description: The value of O(format).
      type: str
      sample: file
    files:
      description: With O(state=absent), the files removed.
      type: list
      elements: str
    config_drive:
      description: The config drive, null unless O(format=config_drive).
      type: dict
      contains:
        path:
          description: The ISO image on the managed host.
          type: str
          sample: /tmp/terraform-provider-libvirt-ignition-0/ignition-9c1185a5c5e9fc54.iso
        size:
          description: Its size in bytes.
          type: int
        label:
          description: Its volume label.
          type: str
          sample: ignition
        file:
          description: The path of the content inside the image.
          type: str
          sample: ignition/config.ign
    volume:
      description: The volume holding a copy of the config drive or of the plain file, null without O(pool).
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
    run_firstboot_module("ignition")


if __name__ == "__main__":
    main()
