#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_domain_info
short_description: List the domains of a libvirt host, with their snapshots
version_added: 0.1.0
description:
  - Lists the domains (virtual machines) of a libvirt host, all of them or those O(name) and O(state) select,
    sorted by name.
  - Each domain comes with the facts a listing needs (UUID, state, id, whether it is active, persistent and set to
    autostart), its snapshots, and under C(options) the options of M(devinfra.providers.libvirt_domain) that
    describe it as it is. Passed back to M(devinfra.providers.libvirt_domain), those options change nothing, so a
    listed domain can be changed key by key or copied to another host.
  - The module opens a read-only connection and changes nothing.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - Only the domains with one of these names. A name with C(*), C(?) or C([) is a shell-style pattern
        (V(ws-*)); a name is also matched as it is.
      - When not set, every domain is listed. A name that matches no domain is no error, it lists nothing.
    type: list
    elements: str
  state:
    description:
      - Only the domains in one of these states (the names C(virsh list) uses). V(active) matches every domain that
        runs (running, blocked, paused, shutdown, crashed, pmsuspended), V(inactive) every domain that does not.
      - When not set, domains in every state are listed.
    type: list
    elements: str
    choices: [active, blocked, crashed, inactive, nostate, paused, pmsuspended, running, shutdown, shutoff]
  xml:
    description:
      - Also return each domain's XML, under C(xml), the live definition of an active domain (the persistent one of an inactive domain).
      - Secrets are masked; see RV(domains[].xml).
    type: bool
    default: false
    version_added: 0.5.0
  inactive:
    description:
      - With O(xml=true), the XML is the domain's persistent (inactive) definition, C(VIR_DOMAIN_XML_INACTIVE), instead of the live
        one, which is what libvirt starts it with next time.
      - Only with O(xml=true).
    type: bool
    default: false
    version_added: 0.5.0
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - C(options) is read from the domain's persistent (inactive) definition, as M(devinfra.providers.libvirt_domain)
    compares it; secrets such as graphics passwords are not in it (a read-only connection cannot read them), and
    options that are not set leave the domain's value as it is.
  - A transient domain (not persistent) is listed too; passing its C(options) to
    M(devinfra.providers.libvirt_domain) makes it persistent.
seealso:
  - module: devinfra.providers.libvirt_domain
  - module: devinfra.providers.libvirt_domain_snapshot
  - module: devinfra.providers.libvirt_network_info
  - module: devinfra.providers.libvirt_pool_info
  - module: devinfra.providers.libvirt_volume_info
"""

EXAMPLES = r"""
- name: List every domain of the host
  devinfra.providers.libvirt_domain_info:
  register: listing

- name: Show their names and states
  ansible.builtin.debug:
    msg: "{{ listing.domains | items2dict(key_name='name', value_name='state') }}"

- name: List the running workspaces
  devinfra.providers.libvirt_domain_info:
    name: ["ws-*"]
    state: [running]
  register: running

- name: Give every running workspace one more vCPU, keeping the rest of its definition
  devinfra.providers.libvirt_domain:
    name: "{{ item.name }}"
    vcpu: "{{ item.options.vcpu + 1 }}"
  loop: "{{ running.domains }}"
  loop_control:
    label: "{{ item.name }}"

- name: Copy a domain's definition to another host (its UUID left out, so that host makes its own)
  devinfra.providers.libvirt_domain: >-
    {{ listing.domains[0].options | dict2items | rejectattr('key', '==', 'uuid') | items2dict
       | combine({'uri': 'qemu+ssh://root@other.example.com/system', 'running': false}) }}

- name: Read one domain's persistent definition as XML (graphics passwords and other secrets masked)
  devinfra.providers.libvirt_domain_info:
    name: [workspace-vm]
    xml: true
    inactive: true
  register: defined

- name: Keep it in a file
  ansible.builtin.copy:
    content: "{{ defined.domains[0].xml }}"
    dest: /srv/backup/workspace-vm.xml
    mode: "0600"

- name: Show the snapshots of one domain, newest last
  devinfra.providers.libvirt_domain_info:
    name: [workspace-vm]
  register: one

- name: Show them
  ansible.builtin.debug:
    msg: "{{ one.domains[0].snapshots | map(attribute='name') }} (current {{ one.domains[0].current_snapshot }})"
"""

RETURN = r"""
domains:
  description: The domains, sorted by name.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The domain's name.
      type: str
      sample: workspace-vm
    uuid:
      description: The domain's UUID.
      type: str
      sample: 6695eb01-f6a4-8304-79aa-97f2502e193f
    id:
      description: The numeric id libvirt gives a running domain; V(null) for an inactive one.
      type: int
      sample: 3
    state:
      description:
        - The domain's state as C(virsh list) names it, one of V(running), V(blocked), V(paused), V(shutdown)
          (being shut down), V(shutoff), V(crashed), V(pmsuspended), V(nostate).
      type: str
      sample: running
    active:
      description: Whether the domain runs (any state but V(shutoff)).
      type: bool
      sample: true
    persistent:
      description: Whether the domain has a persistent definition (a transient domain goes away when it stops).
      type: bool
      sample: true
    autostart:
      description: Whether libvirt starts the domain when the host boots.
      type: bool
      sample: false
    current_snapshot:
      description: The name of the domain's current snapshot, V(null) when it has none.
      type: str
      sample: before-upgrade
    snapshots:
      description:
        - The domain's snapshots, oldest first, as M(devinfra.providers.libvirt_domain_snapshot) returns them
          (see its RV(devinfra.providers.libvirt_domain_snapshot#module:snapshot)), each with the C(options) of
          that module that keep it as it is.
      type: list
      elements: dict
      sample:
        - name: before-upgrade
          domain: workspace-vm
          description: Before the kernel upgrade
          state: shutoff
          creation_time: 1795571887
          current: true
          disk_only: false
          memory: "no"
          parent: null
          disks: [{name: vda, snapshot: internal, file: null}]
          options: {domain: workspace-vm, name: before-upgrade, disk_only: false, description: Before the kernel upgrade}
    options:
      description:
        - The options of M(devinfra.providers.libvirt_domain) that describe the domain as it is (every option of
          its persistent definition, with C(name), C(uuid), C(running) and C(autostart)); what libvirt computes
          (the id) is left out.
      type: dict
      sample:
        name: workspace-vm
        uuid: 6695eb01-f6a4-8304-79aa-97f2502e193f
        type: kvm
        memory: 2097152
        memory_unit: KiB
        vcpu: 2
        os: {type: hvm, type_arch: x86_64, type_machine: pc-q35-7.2}
        devices:
          disks:
            - device: disk
              driver: {name: qemu, type: qcow2}
              source: {file: {file: /var/lib/libvirt/images/workspace-vm.qcow2}}
              target: {dev: vda, bus: virtio}
        running: true
        autostart: false
    xml:
      description:
        - The domain's XML as libvirt gives it (its persistent definition with O(inactive=true)). C(VIR_DOMAIN_XML_SECURE)
          is never asked for, so libvirt leaves graphics passwords and cookies out;
          any C(passwd) or C(password) attribute, and the text of a C(cookie), C(passwd), C(password) or C(passphrase)
          element, that still shows is replaced by C(********).
      returned: with O(xml=true)
      type: str
      sample: "<domain type='kvm'>...</domain>"
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.listing import DOMAIN_INFO_ARGSPEC, list_domains
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema import HAS_LXML, LXML_IMPORT_ERROR


def main() -> None:
    run_info_module(DOMAIN_INFO_ARGSPEC, list_domains, libraries=[("lxml", HAS_LXML, LXML_IMPORT_ERROR)])


if __name__ == "__main__":
    main()
