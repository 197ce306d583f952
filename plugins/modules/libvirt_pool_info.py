#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_pool_info
short_description: List the storage pools of a libvirt host
version_added: 0.1.0
description:
  - Lists the storage pools of a libvirt host, all of them or those O(name) and O(state) select, sorted by name.
  - Each pool comes with the facts a listing needs (UUID, type, state, whether it is active, persistent and set to
    autostart, its path, sizes in bytes and number of volumes), and under C(options) the options of
    M(devinfra.providers.libvirt_pool) that describe it as it is. Passed back to M(devinfra.providers.libvirt_pool),
    those options change nothing.
  - The module opens a read-only connection and changes nothing. The sizes are libvirt's figures of the last
    refresh of the pool.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - Only the pools with one of these names. A name with C(*), C(?) or C([) is a shell-style pattern
        (V(ws-*)); a name is also matched as it is.
      - When not set, every pool is listed. A name that matches no pool is no error, it lists nothing.
    type: list
    elements: str
  state:
    description:
      - Only the pools in one of these states (libvirt's names). V(active) matches every pool that is not
        V(inactive).
      - When not set, pools in every state are listed.
    type: list
    elements: str
    choices: [active, building, degraded, inaccessible, inactive, running]
  xml:
    description:
      - Also return each storage pool's XML, under C(xml), as libvirt describes it.
      - Secrets are masked; see RV(pools[].xml).
    type: bool
    default: false
    version_added: 0.5.0
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - C(options) is read from the pool's persistent (inactive) definition, as M(devinfra.providers.libvirt_pool)
    compares it.
seealso:
  - module: devinfra.providers.libvirt_pool
  - module: devinfra.providers.libvirt_volume_info
"""

EXAMPLES = r"""
- name: List every pool
  devinfra.providers.libvirt_pool_info:
  register: listing

- name: Show the free space of each active pool, in GiB
  ansible.builtin.debug:
    msg: "{{ item.name }}: {{ (item.available / 1024 ** 3) | round(1) }} GiB free of {{ (item.capacity / 1024 ** 3) | round(1) }}"
  loop: "{{ listing.pools | selectattr('active') }}"
  loop_control:
    label: "{{ item.name }}"

- name: Start the pools that are not active
  devinfra.providers.libvirt_pool: "{{ item.options | combine({'running': true}) }}"
  loop: "{{ listing.pools | rejectattr('active') }}"
  loop_control:
    label: "{{ item.name }}"
"""

RETURN = r"""
pools:
  description: The storage pools, sorted by name.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The pool's name.
      type: str
      sample: default
    uuid:
      description: The pool's UUID.
      type: str
      sample: dfe224cb-28fb-8dd0-c4b2-64eb3f0f4566
    type:
      description: The pool type (V(dir), V(logical), V(netfs)...).
      type: str
      sample: dir
    state:
      description: libvirt's state of the pool, one of V(inactive), V(building), V(running), V(degraded), V(inaccessible).
      type: str
      sample: running
    active:
      description: Whether the pool is active (its volumes can be listed and used).
      type: bool
      sample: true
    persistent:
      description: Whether the pool has a persistent definition.
      type: bool
      sample: true
    autostart:
      description: Whether libvirt starts the pool when the host boots.
      type: bool
      sample: true
    path:
      description: The pool's target path (for a V(dir) pool, its directory), V(null) when it has none.
      type: str
      sample: /var/lib/libvirt/images
    capacity:
      description: The pool's size in bytes (0 for an inactive pool).
      type: int
      sample: 107374182400
    allocation:
      description: The bytes its volumes take.
      type: int
      sample: 21474836480
    available:
      description: The bytes free for new volumes.
      type: int
      sample: 85899345920
    volume_count:
      description: The number of volumes in the pool; V(null) for an inactive pool (libvirt cannot tell).
      type: int
      sample: 4
    options:
      description:
        - The options of M(devinfra.providers.libvirt_pool) that describe the pool as it is (every option of its
          persistent definition, with C(name), C(running) and C(autostart)); the sizes libvirt computes are left out.
      type: dict
      sample:
        name: default
        type: dir
        target: {path: /var/lib/libvirt/images, permissions: {mode: "0711", owner: "0", group: "0"}}
        running: true
        autostart: true
    xml:
      description:
        - The storage pool's XML as libvirt gives it. no secure flag is asked for;
          any C(passwd) or C(password) attribute, and the text of a C(cookie), C(passwd), C(password) or C(passphrase)
          element, that still shows is replaced by C(********).
      returned: with O(xml=true)
      type: str
      sample: "<pool type='dir'>...</pool>"
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.listing import POOL_INFO_ARGSPEC, list_pools
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema import HAS_LXML, LXML_IMPORT_ERROR


def main() -> None:
    run_info_module(POOL_INFO_ARGSPEC, list_pools, libraries=[("lxml", HAS_LXML, LXML_IMPORT_ERROR)])


if __name__ == "__main__":
    main()
