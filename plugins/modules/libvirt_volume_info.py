#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_volume_info
short_description: List the storage volumes of a libvirt host, pool by pool
version_added: 0.1.0
description:
  - Lists the volumes of a libvirt host's active storage pools, of every pool or of those O(pool) selects, and
    every volume or those O(name) selects, sorted by pool and name.
  - Each volume comes with the facts a listing needs (its pool, key, path, type, format, capacity, allocation and
    backing store), and under C(options) the options of M(devinfra.providers.libvirt_volume) that describe it as it
    is. Passed back to M(devinfra.providers.libvirt_volume), those options change nothing.
  - The module opens a read-only connection and changes nothing. It lists what libvirt knows of a pool since its
    last refresh (M(devinfra.providers.libvirt_pool) refreshes a pool when it starts it).
author:
  - devinfra.providers contributors (@devinfra)
options:
  pool:
    description:
      - Only the volumes of the pools with one of these names. A name with C(*), C(?) or C([) is a shell-style
        pattern; a name is also matched as it is.
      - When not set, the volumes of every active pool are listed.
      - libvirt lists the volumes of an active pool only; a pool named here (not by a pattern) that is not active
        gives a warning.
    type: list
    elements: str
  name:
    description:
      - Only the volumes with one of these names (in any of the pools listed). A name with C(*), C(?) or C([) is a
        shell-style pattern (V(*.qcow2)); a name is also matched as it is.
      - When not set, every volume is listed. A name that matches no volume is no error, it lists nothing.
    type: list
    elements: str
  xml:
    description:
      - Also return each volume's XML, under C(xml), as libvirt describes it.
      - Secrets are masked; see RV(volumes[].xml).
    type: bool
    default: false
    version_added: 0.5.0
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
seealso:
  - module: devinfra.providers.libvirt_volume
  - module: devinfra.providers.libvirt_pool_info
"""

EXAMPLES = r"""
- name: List the qcow2 images of the default pool
  devinfra.providers.libvirt_volume_info:
    pool: [default]
    name: ["*.qcow2"]
  register: listing

- name: Show what each takes on disk, in MiB
  ansible.builtin.debug:
    msg: "{{ item.name }}: {{ (item.allocation / 1024 ** 2) | round }} MiB of {{ (item.capacity / 1024 ** 2) | round }}"
  loop: "{{ listing.volumes }}"
  loop_control:
    label: "{{ item.name }}"

- name: Grow every listed volume to at least 20 GiB, keeping everything else
  devinfra.providers.libvirt_volume: "{{ item.options | combine({'capacity': [item.capacity, 20 * 1024 ** 3] | max}) }}"
  loop: "{{ listing.volumes }}"
  loop_control:
    label: "{{ item.name }}"
"""

RETURN = r"""
volumes:
  description: The volumes, sorted by pool and name.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The volume's name.
      type: str
      sample: workspace-vm.qcow2
    pool:
      description: The name of its pool.
      type: str
      sample: default
    key:
      description: libvirt's key of the volume, unique on the host.
      type: str
      sample: /var/lib/libvirt/images/workspace-vm.qcow2
    path:
      description: The volume's path on the host.
      type: str
      sample: /var/lib/libvirt/images/workspace-vm.qcow2
    type:
      description: libvirt's volume type, one of V(file), V(block), V(dir), V(network), V(netdir), V(ploop).
      type: str
      sample: file
    format:
      description: The format of its content (V(qcow2), V(raw)...), V(null) when libvirt reports none.
      type: str
      sample: qcow2
    capacity:
      description: The size the volume offers, in bytes.
      type: int
      sample: 10737418240
    allocation:
      description: The bytes the volume takes in its pool.
      type: int
      sample: 1966080
    backing_store:
      description: The path of the image the volume is an overlay of, V(null) for a volume without one.
      type: str
      sample: /var/lib/libvirt/images/debian-12.qcow2
    options:
      description:
        - The options of M(devinfra.providers.libvirt_volume) that describe the volume as it is, with C(name),
          C(pool) and the capacity in bytes (C(capacity_unit=bytes)); what libvirt computes (key, allocation) is
          left out.
      type: dict
      sample:
        name: workspace-vm.qcow2
        pool: default
        type: file
        capacity: 10737418240
        capacity_unit: bytes
        target:
          path: /var/lib/libvirt/images/workspace-vm.qcow2
          format: {type: qcow2}
          permissions: {mode: "0600", owner: "0", group: "0"}
    xml:
      description:
        - The volume's XML as libvirt gives it. no secure flag is asked for;
          any C(passwd) or C(password) attribute, and the text of a C(cookie), C(passwd), C(password) or C(passphrase)
          element, that still shows is replaced by C(********).
      returned: with O(xml=true)
      type: str
      sample: "<volume type='file'>...</volume>"
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.listing import VOLUME_INFO_ARGSPEC, list_volumes
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema import HAS_LXML, LXML_IMPORT_ERROR


def main() -> None:
    run_info_module(VOLUME_INFO_ARGSPEC, list_volumes, libraries=[("lxml", HAS_LXML, LXML_IMPORT_ERROR)])


if __name__ == "__main__":
    main()
