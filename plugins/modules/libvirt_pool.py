#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_pool
short_description: Manage a libvirt storage pool
version_added: 0.1.0
description:
  - Defines, builds, starts, sets to autostart, refreshes, updates and removes a libvirt storage pool, with the
    options of the C(libvirt_pool) resource of terraform-provider-libvirt 0.9 (the libvirt pool XML, key by key).
  - Only the options you set are managed and compared, against the pool's persistent (inactive) definition;
    what libvirt adds by itself (UUID, sizes, defaults) is left alone and is no change. C(/path/) and C(/path),
    and modes C(755) and C(0755), are the same.
  - A change redefines the pool with the same UUID; an active pool keeps its old configuration until it is
    restarted, which O(restart=true) does. The pool type cannot change in place.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The pool's name, unique on the host. It identifies the pool.
      - Required unless O(xml) is given (its C(<name>)).
    type: str
  type:
    description:
      - The pool type, for example V(dir), V(fs), V(netfs), V(logical), V(disk), V(iscsi), V(rbd).
      - Required to create the pool; it cannot change afterwards.
    type: str
  state:
    description:
      - V(present) defines the pool, builds it, sets it to autostart and starts it (see O(create));
        V(absent) stops and undefines it (see O(destroy)).
    type: str
    choices: [present, absent]
    default: present
  autostart:
    description:
      - Whether libvirt starts the pool when the host boots. Enforced on every run when set.
      - B(A new pool autostarts) unless this or O(create.autostart) is V(false) (upstream's default; community.libvirt's
        C(virt_pool) left it off). Set O(autostart=false) for a pool that should not start with the host.
    type: bool
  refresh:
    description:
      - V(true) reads the pool's storage again on every run, as C(virsh pool-refresh) does. Files put into the pool's
        directory by hand become volumes, and the volumes' sizes and formats are read anew. Nothing stored changes,
        so it reports no change, and it also runs in check mode. An inactive pool is not refreshed; a pool libvirt
        cannot refresh now (another run uploads into it) warns. M(devinfra.providers.libvirt_volume) refreshes
        the pool by itself once before it decides that a volume is missing.
      - A dictionary is upstream's C(refresh) block, the pool's C(<refresh>) element (C(/pool/refresh)), with
        O(refresh.volume.allocation) V(default) or V(never).
    type: raw
    suboptions:
      volume:
        description:
          - Maps to C(/pool/refresh/volume).
        type: dict
        required: true
        suboptions:
          allocation:
            description:
              - Maps to C(/pool/refresh/volume/@allocation).
            type: str
            required: true
  running:
    description:
      - Whether the pool is active. Enforced on every run when set; a new pool is started unless this or
        O(create.start) says otherwise (upstream's default).
    type: bool
  restart:
    description:
      - After a change to the definition of an active pool, restart it (destroy and start) so the change takes
        effect now. Without it, such a change returns RV(restart_required=true) and a warning.
    type: bool
    default: false
  create:
    description:
      - What happens when the pool is created (upstream's experimental C(create) block).
    type: dict
    suboptions:
      build:
        description:
          - Build the pool (for a V(dir) pool, create its directory). Default, as upstream, is to build,
            except a V(logical) pool without O(source.device).
        type: bool
      build_mode:
        description:
          - The flags of libvirt's C(virStoragePoolBuild) when the pool is built - V(new) (no flag),
            V(repair) (C(VIR_STORAGE_POOL_BUILD_REPAIR)), V(resize) (C(VIR_STORAGE_POOL_BUILD_RESIZE)),
            V(overwrite) (C(VIR_STORAGE_POOL_BUILD_OVERWRITE), which may format the pool's device) or
            V(no_overwrite) (C(VIR_STORAGE_POOL_BUILD_NO_OVERWRITE), which refuses to format a device that
            holds data). Which flags a pool type supports is up to libvirt; a refused one fails and leaves no pool.
          - Applied only when this module creates (defines and builds) the pool. An existing pool is never
            built again, so a second run is no change (community.libvirt's C(state=build) builds every time).
        type: str
        choices: [new, repair, resize, overwrite, no_overwrite]
        default: new
        version_added: 0.5.0
      start:
        description: Start the pool after defining it. Default V(true).
        type: bool
      autostart:
        description: Set the pool to autostart. Default V(true).
        type: bool
  destroy:
    description:
      - What O(state=absent) does to the pool's storage (upstream's experimental C(destroy) block).
    type: dict
    suboptions:
      delete:
        description:
          - V(true) deletes the pool's volumes and its storage (for a V(dir) pool, the directory).
          - V(false) keeps the storage.
          - When not set, a V(dir) or V(logical) pool's storage is deleted only when the pool is active and holds
            no volume; otherwise it is kept with a warning (upstream would try to delete it and fail half-way). An
            inactive pool's volumes cannot be listed without starting it, so its storage is kept; a check run decides
            the same way and RV(storage_deleted) says what the real run deletes.
        type: bool
      delete_mode:
        description:
          - How the storage is deleted when O(destroy.delete) (or its default) deletes it, the flags of libvirt's
            C(virStoragePoolDelete) - V(normal) (C(VIR_STORAGE_POOL_DELETE_NORMAL)) or V(zeroed)
            (C(VIR_STORAGE_POOL_DELETE_ZEROED), which zeroes the storage first where the pool type supports it).
          - libvirt deletes the storage of V(dir), V(fs) and V(netfs) pools without flags only, and V(zeroed) on such a
            pool fails naming this option before anything is touched, so wipe the volumes first with
            M(devinfra.providers.libvirt_volume)'s O(devinfra.providers.libvirt_volume#module:wipe) instead.
          - To keep the storage and only undefine the pool, set O(destroy.delete=false).
        type: str
        choices: [normal, zeroed]
        default: normal
        version_added: 0.5.0
  xml:
    description:
      - A whole pool definition, C(<pool>) as C(virsh pool-dumpxml) prints it or a community.libvirt
        template holds it, instead of the pool options (O(type), O(target), O(source)...).
      - It is read into those options, so the same checks and the same comparison apply; what libvirt adds or
        computes (a UUID, the sizes) is no change, and a second run with the same XML is no change.
      - Its C(<name>) and O(name) agree; without O(name), the name is taken from the XML.
      - Mutually exclusive with the pool options. An XML that is not well-formed, has another root element or a
        C(<!DOCTYPE>) (entities are never resolved, nothing is fetched) fails before anything is touched.
      - To turn it into options instead, read the existing pool with M(devinfra.providers.libvirt_pool_info) and take its C(options).
    type: str
    version_added: 0.7.0
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt_schema.storage_pool
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - Upstream (terraform-provider-libvirt 0.9) refuses any update of a pool; here changes are applied in place,
    keeping the UUID.
seealso:
  - module: devinfra.providers.libvirt_network
"""

EXAMPLES = r"""
- name: A directory pool for workspace disks
  devinfra.providers.libvirt_pool:
    name: workspaces
    type: dir
    target:
      path: /var/lib/libvirt/workspaces
      permissions:
        mode: "0711"

- name: Remove it, and its directory and volumes
  devinfra.providers.libvirt_pool:
    name: workspaces
    state: absent
    destroy:
      delete: true

- name: Remove a pool, zeroing its storage as it is deleted
  devinfra.providers.libvirt_pool:
    name: scratch
    state: absent
    destroy:
      delete: true
      delete_mode: zeroed

- name: Undefine a pool and keep its storage
  devinfra.providers.libvirt_pool:
    name: archive
    state: absent
    destroy:
      delete: false

- name: A pool from a community.libvirt template (the name is the XML's)
  devinfra.providers.libvirt_pool:
    xml: "{{ lookup('ansible.builtin.template', 'pool.xml.j2') }}"
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
pool:
  description:
    - The pool as options (every option libvirt holds for it), with C(uuid), C(autostart), C(running) and the
      computed C(capacity), C(allocation) and C(available) (with their C(_unit), bytes).
      With O(state=absent), what was removed (empty when there was nothing).
  returned: always
  type: dict
  sample:
    name: workspaces
    type: dir
    uuid: ea4c7a94-3f30-4ecb-b356-9ee589b840d2
    target: {path: /var/lib/libvirt/workspaces, permissions: {mode: "0711", owner: "0", group: "0"}}
    capacity: 270553174016
    capacity_unit: bytes
    allocation: 23632740352
    allocation_unit: bytes
    available: 246920433664
    available_unit: bytes
    autostart: true
    running: true
storage_deleted:
  description:
    - Whether the pool's storage (its volumes and, for a V(dir) pool, its directory) is deleted with it, or would be
      in check mode; see O(destroy.delete).
  returned: when O(state=absent) removed a pool
  type: bool
  sample: true
update_method:
  description:
    - How a change was applied; V(redefine) (the definition, same UUID), V(restart) (to bring the active pool to
      its definition), or V(redefine+restart).
  returned: when the definition of an existing pool changed, or it was restarted
  type: str
  sample: redefine
restart_required:
  description: True when the active pool keeps its old configuration until it is restarted.
  returned: when a change was redefined without O(restart)
  type: bool
  sample: true
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.pool import POOL_ARGSPEC, ensure_pool, split_refresh
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module


def main() -> None:
    run_resource_module(
        noun="pool", argument_spec=POOL_ARGSPEC, run=ensure_pool, schema_struct="StoragePool", prepare=split_refresh, required_one_of=[("name", "xml")]
    )


if __name__ == "__main__":
    main()
