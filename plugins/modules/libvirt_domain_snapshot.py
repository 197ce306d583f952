#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_domain_snapshot
short_description: Take, revert to and remove snapshots of a libvirt domain
version_added: 0.1.0
description:
  - Takes a snapshot of a libvirt domain, reverts the domain to it, or removes it. A snapshot is identified by
    its O(name) within its O(domain).
  - By default the snapshot is internal, kept inside the domain's qcow2 disk images, as C(virsh snapshot-create)
    takes it. Of a running (or paused) domain it saves the memory too, so reverting to it resumes the guest where it
    was. Of a domain that is shut off it saves the disks. Every disk of the domain must be a qcow2 image.
  - With O(disk_only=true) the snapshot is external and disk-only, as C(virsh snapshot-create --disk-only) takes it.
    Each writable disk gets a new qcow2 overlay file next to its image, named after the image with its extension
    replaced by the snapshot name (C(disk.qcow2) gives C(disk.nightly)); the domain writes to the overlay from then
    on, and the image below it keeps the state of the snapshot. No memory is saved. libvirt names the overlay of a
    disk given by its file; this module names it the same way for a disk taken from a storage pool volume (which
    libvirt refuses to name), so an overlay is a file of that pool (listed as its volume once the pool is refreshed).
  - A snapshot that exists is left as it is (the second run reports no change). What it saved cannot change
    afterwards, so an existing snapshot of the other kind than O(disk_only) asks for is an error, never a silent
    new snapshot. Its O(description) is metadata, and is changed in place when it differs.
  - The domain's current snapshot (the parent of the next one) is returned in RV(current_snapshot).
author:
  - devinfra.providers contributors (@devinfra)
options:
  domain:
    description:
      - The domain, by UUID or by name (a UUID is tried first).
    type: str
    required: true
  name:
    description:
      - The snapshot's name, unique within the domain.
      - libvirt keeps each snapshot in a file named after it, so the name must not contain C(/) and has at most 247
        bytes (UTF-8), as the file C(<name>.xml.new) libvirt writes first is a file name of at most 255 bytes. A longer name
        used to fail only after QEMU had taken the snapshot, leaving an internal snapshot in the qcow2 image that libvirt
        no longer knew.
      - The name is one line (the collection's rule) - control characters (C0, DEL, C1), the line and paragraph
        separators U+2028 and U+2029 and the bidirectional controls U+202A-U+202E and U+2066-U+2069 are refused.
      - All of this is checked before libvirt is asked anything. For O(disk_only=true), the overlay's file name
        (the image's name without its extension, a dot and the snapshot name) must also fit in 255 bytes.
    type: str
    required: true
  state:
    description:
      - V(present) takes the snapshot when the domain has none of that name.
      - V(absent) removes the snapshot; its children, if any, then hang off its parent. A domain or a snapshot
        that does not exist is no error (nothing to remove), so a teardown can run twice.
    type: str
    choices: [present, absent]
    default: present
  revert:
    description:
      - Revert the domain to the snapshot, which must exist. The disks (and, for a snapshot with memory, the running
        guest) go back to the state the snapshot saved; what was written since is lost. The domain ends up in the
        state it was in when the snapshot was taken (running, paused or shut off).
      - Reverting is an action, not a state that can be checked, so every run with O(revert=true) reverts and reports
        a change; check mode reports the change and reverts nothing.
      - Cannot be combined with O(state=absent).
    type: bool
    default: false
  disk_only:
    description:
      - V(false) takes an internal snapshot (the disks, and the memory of a running domain, kept inside the qcow2
        images); V(true) takes an external disk-only snapshot (overlay files, no memory).
      - When not set, a new snapshot is internal, and an existing snapshot of either kind is accepted.
      - libvirt 9.9 and later can revert to a disk-only snapshot, and libvirt 9.7 and later can remove one; with an
        older libvirt those fail with libvirt's message (see O(metadata_only)).
    type: bool
  description:
    description:
      - A free-form description of the snapshot (several lines allowed).
      - When not set, an existing snapshot's description is left as it is.
    type: str
  metadata_only:
    description:
      - With O(state=absent), remove only libvirt's record of the snapshot and leave its data where it is (an internal
        snapshot stays inside the qcow2 image, where C(qemu-img snapshot) still sees it; the overlay files of a
        disk-only snapshot stay, and the domain keeps using them). This is how a disk-only snapshot is forgotten on a
        libvirt older than 9.7.
    type: bool
    default: false
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.actiongroup_libvirt
attributes:
  check_mode:
    support: full
    details:
      - Nothing is taken, reverted or removed; the result says what would be.
  diff_mode:
    support: full
    details:
      - The snapshot's name, description, kind and whether it is current, and the domain's state, before and after.
  idempotent:
    support: partial
    details:
      - Taking and removing a snapshot are idempotent; O(revert=true) reverts on every run and reports a change.
notes:
  - libvirt refuses to undefine a domain that has snapshots (C(cannot delete inactive domain with N snapshots)), so
    remove its snapshots with this module before the domain.
  - Snapshots are of the domain's disks as the domain uses them; a volume replaced under the domain (for example by
    M(devinfra.providers.libvirt_volume) with O(devinfra.providers.libvirt_volume#module:replace=true)) loses the internal
    snapshots kept in it.
seealso:
  - module: devinfra.providers.libvirt_domain_info
  - module: devinfra.providers.libvirt_domain
  - name: libvirt's snapshot XML format
    description: What libvirt saves in a snapshot, and the rules for internal and external snapshots.
    link: https://libvirt.org/formatsnapshot.html
"""

EXAMPLES = r"""
- name: Take a snapshot before the upgrade
  devinfra.providers.libvirt_domain_snapshot:
    domain: workspace-vm
    name: before-upgrade
    description: Before the kernel upgrade
  register: snap

- name: Something went wrong; go back to it
  devinfra.providers.libvirt_domain_snapshot:
    domain: workspace-vm
    name: before-upgrade
    revert: true

- name: A disk-only snapshot of a running domain (overlay files, no memory saved)
  devinfra.providers.libvirt_domain_snapshot:
    domain: workspace-vm
    name: nightly
    disk_only: true

- name: Remove the snapshot
  devinfra.providers.libvirt_domain_snapshot:
    domain: workspace-vm
    name: before-upgrade
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
snapshot:
  description:
    - The snapshot as it is after the run (as it would be, in check mode). With O(state=absent), what was removed
      (empty when there was nothing).
  returned: always
  type: dict
  contains:
    name:
      description: The snapshot's name.
      type: str
      sample: before-upgrade
    domain:
      description: The name of its domain.
      type: str
      sample: workspace-vm
    description:
      description: Its description, V(null) when it has none.
      type: str
      sample: Before the kernel upgrade
    state:
      description:
        - The state the domain was in when the snapshot was taken (V(running), V(paused), V(shutoff)...), or
          V(disk-snapshot) for a disk-only snapshot of a running domain.
      type: str
      sample: shutoff
    creation_time:
      description: When the snapshot was taken, in seconds since the epoch (V(null) in check mode, before it is).
      type: int
      sample: 1795571887
    current:
      description: Whether it is the domain's current snapshot.
      type: bool
      sample: true
    disk_only:
      description: Whether it is an external disk-only snapshot (V(false) for an internal one).
      type: bool
      sample: false
    memory:
      description: How the memory was saved, V(internal), V(external) or V(no) (not saved).
      type: str
      sample: "no"
    parent:
      description: The name of its parent snapshot, V(null) for a snapshot without one.
      type: str
      sample: null
    disks:
      description:
        - Each disk of the snapshot, with its target C(name), how it was saved (C(snapshot), V(internal),
          V(external) or V(no)) and, for an external snapshot, the C(file) that holds what was written after.
      type: list
      elements: dict
      sample: [{name: vda, snapshot: internal, file: null}]
current_snapshot:
  description: The name of the domain's current snapshot after the run, V(null) when it has none.
  returned: always
  type: str
  sample: before-upgrade
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.snapshot import SNAPSHOT_ARGSPEC, ensure_snapshot


def main() -> None:
    run_resource_module(noun="snapshot", argument_spec=SNAPSHOT_ARGSPEC, run=ensure_snapshot)


if __name__ == "__main__":
    main()
