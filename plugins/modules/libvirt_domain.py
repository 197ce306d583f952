#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_domain
short_description: Manage a libvirt domain (virtual machine)
version_added: 0.1.0
description:
  - Defines, starts, stops, updates and removes a libvirt domain, with the options of the C(libvirt_domain) resource of
    terraform-provider-libvirt 0.9 (the libvirt domain XML, key by key), or with a whole domain XML (O(xml)).
  - Only the options you set are managed and compared, against the domain's persistent (inactive) definition; what
    libvirt adds by itself (UUID, MAC and PCI addresses, controllers, the console of a serial port, the full machine
    name for an alias such as V(pc) or V(q35), firmware paths) is left alone and is no change.
  - A change redefines the domain in place, with the same UUID, so its NVRAM, TPM state, autostart flag and snapshots
    survive. A running domain then takes live what libvirt can change while it runs (RV(update_method) says V(live)) -
    its balloon (O(current_memory) up to the memory it started with), more vCPUs (O(vcpu_current) up to the O(vcpu) it
    started with; the guest agent, when it answers, brings them online), interfaces and virtio, SCSI or USB disks
    plugged in and out (an interface whose settings changed is plugged out and in again with its MAC address), the
    media of a CD-ROM or floppy drive, the password of a display that has one. The rest (a higher O(memory) or
    O(vcpu), fewer vCPUs, a new display, the machine, a disk's other settings) waits for a restart - O(update)
    restarts it, otherwise the result says RV(restart_required) and a warning names the options.
  - Where only O(memory) is set, O(current_memory) follows it (the guest gets O(memory)); where only O(vcpu) is set,
    O(vcpu_current) follows it (all vCPUs online). O(current_memory) above O(memory), or O(vcpu_current) above
    O(vcpu), is refused before anything is touched.
  - A redefinition keeps what the guest sees of every device that stays. The devices given are matched to the ones the
    domain has (disks by C(target.dev), interfaces by C(mac.address), file systems by C(target.dir), controllers by
    C(type) and C(index); a device without its key matches the one that holds what it asks for, else the one at its
    position) and written over them, so each keeps its PCI address, alias and MAC address; a device is made anew only
    when its kind changes (a disk from a file to a block device, an interface from a network to a bridge), and keeps
    its address then too. Controllers, inputs, consoles, videos and audio devices that libvirt added stay.
  - O(running), O(paused) and O(autostart) are enforced on every run when they are set.
  - This page describes the options people set. The module takes every option of libvirt's domain XML (thousands of them);
    each is in R(the domain options reference,ansible_collections.devinfra.providers.docsite.libvirt_domain_options), one
    section per XML element, and each is validated with its path before anything is touched. That reference is the file
    C(docs/docsite/rst/libvirt_domain_options.rst) of the installed collection, also
    L(in the collection's repository,https://github.com/devinfra/devinfra.providers/blob/main/docs/docsite/rst/libvirt_domain_options.rst);
    an option below that points to the domain options reference has its own section there, with all its options.
  - A disk knows its volume. A disk on a storage volume (O(devices.disks[].source.volume), or a
    O(devices.disks[].source.file.file) or O(devices.disks[].source.block.dev) that is the path of a volume of an active
    pool) without O(devices.disks[].driver.type) is written with the volume's format as libvirt reports it (its
    C(target/format/@type), an ISO image as V(raw)), so QEMU opens a qcow2 volume as qcow2. Upstream writes no type, and
    QEMU then opens a qcow2 volume as raw, so the guest sees the qcow2 metadata and writes into the file. The type written
    is part of what is compared, and the diff shows it; a domain defined without it gets it on its next run.
  - A O(devices.disks[].driver.type) that contradicts the volume's format is refused before anything is defined, naming
    the option, the type and the format (V(raw) is the only type for a raw volume; an ISO volume takes V(raw) too). A
    volume libvirt does not know (no such pool or volume, an inactive pool) leaves the disk as given, and so does a
    domain given as O(xml). A volume whose backing file lies outside the target path of every storage pool of the host
    gives a warning.
author:
  - devinfra.providers contributors (@devinfra)
options:
  name:
    description:
      - The domain's name, unique on the host. It identifies the domain unless O(uuid) is given.
      - Required to define a new domain, unless O(xml) has a C(<name>).
    type: str
  uuid:
    description:
      - Look the domain up by this UUID instead of by name (to adopt an existing domain). A new domain is defined with
        it; without it libvirt assigns one, which the module returns and keeps.
    type: str
  state:
    description:
      - V(present) defines the domain; V(absent) stops it (see O(destroy)) and undefines it, removing its NVRAM file
        and TPM state where the libvirt daemon supports that (1.2.9 and 8.9.0 on), with a plain undefine as fallback.
      - V(absent) also removes the domain's snapshot metadata (as C(virsh undefine --snapshots-metadata)), since libvirt
        refuses to undefine a domain that has snapshots. What an internal snapshot holds stays inside its qcow2 disk,
        and the overlay file of a disk-only snapshot stays; remove those volumes to free the space.
    type: str
    choices: [present, absent]
    default: present
  running:
    description:
      - Whether the domain runs. Not managed when not set; a new domain is then defined but not started (as upstream).
      - V(true) starts a stopped domain with the O(create) flags, V(false) stops a running one as O(destroy) says.
    type: bool
  paused:
    description:
      - Whether the running domain is paused (its virtual CPUs stopped, its memory kept; C(virsh suspend) and
        C(virsh resume)). Not managed when not set.
      - V(true) pauses a running domain (C(virDomainSuspend)) and starts a stopped one paused when O(running=true);
        V(false) resumes a paused domain (C(virDomainResume)). A domain that does not run is not paused, so
        V(false) asks nothing of it.
      - V(true) needs a running domain. With O(running=false) it is refused, naming both options, before anything is
        touched; so it is when O(running) is not set and the domain does not run. V(false) with O(create.paused=true)
        is refused too.
      - A paused guest gets no address, so the interfaces' C(wait_for_ip) is not waited for while it is paused.
      - The state before and after is in the diff, and the state now in RV(domain) (its C(paused)).
    type: bool
    version_added: 0.5.0
  autostart:
    description:
      - Whether libvirt starts the domain when the host boots. Not managed when not set.
    type: bool
  create:
    description:
      - Flags for starting the domain (C(virDomainCreateWithFlags)).
    type: dict
    suboptions:
      paused:
        description: Start it paused.
        type: bool
        default: false
      autodestroy:
        description: Destroy it when the connection that started it closes.
        type: bool
        default: false
      bypass_cache:
        description: Bypass the file system cache when restoring a managed save image.
        type: bool
        default: false
      force_boot:
        description: Boot, discarding a managed save image.
        type: bool
        default: false
      validate:
        description: Validate the XML against the schema before starting.
        type: bool
        default: false
      reset_nvram:
        description: Start with fresh UEFI variables from the NVRAM template.
        type: bool
        default: false
  destroy:
    description:
      - How a running domain is stopped for O(state=absent) and O(running=false).
      - Without O(destroy.shutdown), it is forced off (C(virDomainDestroy)).
    type: dict
    suboptions:
      graceful:
        description:
          - Force it off gracefully (C(VIR_DOMAIN_DESTROY_GRACEFUL), SIGTERM only). This is not an ACPI shutdown.
        type: bool
        default: false
      shutdown:
        description:
          - Ask the guest to shut down (ACPI) and wait for it; the task fails when it is still running after the timeout
            (as upstream, it is not forced off).
        type: dict
        suboptions:
          timeout:
            description: Seconds to wait for the guest to shut down.
            type: int
            default: 30
  update:
    description:
      - When set, a running domain that still differs from its configuration after the changes it took live is
        restarted so that the rest takes effect (an ACPI shutdown, forced off after the timeout, then a start with the
        O(create) flags).
      - Without it, such a change returns RV(restart_required=true) and a warning.
    type: dict
    suboptions:
      shutdown:
        description: The shutdown before the restart.
        type: dict
        suboptions:
          timeout:
            description: Seconds to wait for the guest to shut down before it is forced off.
            type: int
            default: 30
  xml:
    description:
      - A whole domain definition (the escape hatch), instead of the domain options. It is compared with the domain's
        persistent definition the same way (only what it says counts) and defined with the domain's UUID.
      - Mutually exclusive with the domain options.
      - When the XML holds a password (graphics C(passwd)), set C(no_log) on the task; the module masks it in its
        results and diff, but the option itself is shown with the task's arguments at high verbosity.
    type: str
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.libvirt_schema.domain
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - Upstream (terraform-provider-libvirt 0.9) undefines and redefines a domain on every change, stops it first and
    leaves it stopped unless C(running=true); here the domain is redefined in place and restarted only with O(update).
  - Upstream compares against the live XML of a running domain, which gives "inconsistent result" errors (upstream's
    issues are listed in R(the collection's libvirt_domain guide,ansible_collections.devinfra.providers.docsite.libvirt_domain));
    here the compare is against the persistent (inactive) definition.
  - Size options such as O(memory) take libvirt's default unit, KiB, when their C(_unit) option is not set, and
    compare by size (V(1) V(GiB) is V(1048576) KiB), as do the NUMA cells' C(memory) with their C(unit).
  - Values libvirt does not store as given compare as libvirt stores them, so a second run reports no change. With
    NUMA cells (in C(cpu.numa)) the QEMU driver sets O(memory) to the sum of the cells and the memory devices,
    and that sum counts as the value given. O(vcpu_current) equal to O(vcpu), a lease's C(target.offset) V(0) and a
    UNIX chardev's C(mode=bind) without a path are left out by libvirt and compare equal; an empty object (C({}))
    asks for nothing.
  - libvirt keeps a device alias (C(alias.name)) only when it starts with C(ua-) and silently drops any other, so
    any other alias is refused before anything is touched.
  - See R(the collection's libvirt_domain guide,ansible_collections.devinfra.providers.docsite.libvirt_domain) for the upstream option names
    and the full list of differences.
seealso:
  - name: The domain options reference
    description: Every option of the module, one section per XML element of the domain XML.
    link: https://github.com/devinfra/devinfra.providers/blob/main/docs/docsite/rst/libvirt_domain_options.rst
  - module: devinfra.providers.libvirt_volume
  - module: devinfra.providers.libvirt_cloudinit_disk
  - plugin: devinfra.providers.libvirt_domain_interface_addresses
    plugin_type: lookup
"""

EXAMPLES = r"""
- name: A workspace VM on a pool volume, its cloud-init seed as a CD-ROM, started
  devinfra.providers.libvirt_domain:
    name: ws1
    type: kvm
    memory: 2
    memory_unit: GiB
    vcpu: 2
    os:
      type: hvm
      type_arch: x86_64
      type_machine: q35
      boot_devices:
        - dev: hd
    features:
      acpi: true
    cpu:
      mode: host-passthrough
    devices:
      disks:
        # no driver: the volume's format (qcow2) is written as the driver type
        - source: {volume: {pool: default, volume: ws1-root.qcow2}}
          target: {dev: vda, bus: virtio}
        - device: cdrom
          source: {volume: {pool: default, volume: ws1-cidata.iso}}
          target: {dev: sda, bus: sata}
          read_only: true
      interfaces:
        - source: {network: {network: default}}
          model: {type: virtio}
          wait_for_ip:
            timeout: 120
            source: lease
      serials:
        - source: {pty: {}}
          target: {port: 0}
      graphics:
        - vnc: {auto_port: true}
    running: true
    autostart: true
  register: ws1

- name: Its address (a check run plans the domain without starting it, so it has none yet)
  ansible.builtin.debug:
    msg: "{{ ws1.interfaces[0].addrs[0].addr }}"
  when: ws1.interfaces is defined

- name: Two more vCPUs and a smaller balloon, taken live by the running guest
  devinfra.providers.libvirt_domain:
    name: ws1
    vcpu: 4            # the most it has (as it started)
    vcpu_current: 4    # all of them online, hot-plugged
    memory: 4GiB       # the most it has (as it started)
    current_memory: 3GiB

- name: More memory, applied now (ACPI shutdown, then start again); current_memory follows memory
  devinfra.providers.libvirt_domain:
    name: ws1
    memory: 4
    memory_unit: GiB
    update:
      shutdown:
        timeout: 60

- name: Stop it, asking the guest first
  devinfra.providers.libvirt_domain:
    name: ws1
    running: false
    destroy:
      shutdown:
        timeout: 60

- name: Pause it (its vCPUs stop, its memory stays); run again with paused false to resume it
  devinfra.providers.libvirt_domain:
    name: ws1
    running: true
    paused: true

- name: A domain from XML
  devinfra.providers.libvirt_domain:
    xml: "{{ lookup('ansible.builtin.template', 'vm.xml.j2') }}"
    running: true

- name: Remove it (its NVRAM and TPM state too)
  devinfra.providers.libvirt_domain:
    name: ws1
    state: absent
    destroy:
      graceful: true
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
domain:
  description:
    - The domain as options (every option its persistent definition holds, including what libvirt added), with
      C(uuid), C(id) (the runtime domain ID, null when it is not running), C(running), C(paused) (whether it is
      running paused, V(false) when it is not running) and C(autostart).
      With O(state=absent), what was removed (empty when there was nothing).
  returned: always
  type: dict
  sample:
    name: ws1
    type: kvm
    uuid: 4c7a3e53-02b8-4b8e-9f7e-2b5bb6a3f0c1
    id: 7
    memory: 2097152
    memory_unit: KiB
    vcpu: 2
    os: {type: hvm, type_arch: x86_64, type_machine: pc-q35-7.2}
    running: true
    paused: false
    autostart: true
interfaces:
  description:
    - The domain's interfaces and their addresses once every interface with C(wait_for_ip) has one, as the
      P(devinfra.providers.libvirt_domain_interface_addresses#lookup) lookup returns them.
  returned: when an interface has C(wait_for_ip) and the domain runs
  type: list
  elements: dict
  sample:
    - name: vnet3
      hwaddr: "52:54:00:6b:3c:58"
      addrs: [{type: ipv4, addr: 192.168.122.45, prefix: 24}]
update_method:
  description:
    - How a change was applied, in order, joined by V(+); V(redefine) (the definition, same UUID), V(live) (changes
      the running domain took without a restart), V(restart) (to bring the running domain to its definition); for
      example V(redefine+live) or V(redefine+restart).
  returned: when an existing domain changed, or was restarted
  type: str
  sample: redefine
live_changes:
  description:
    - What the running domain took without a restart (in check mode, what it would take), one line each.
  returned: when RV(update_method) includes V(live)
  type: list
  elements: str
  sample: ["current_memory 1048576 KiB -> 786432 KiB (balloon)", "vcpu_current 1 -> 2 (hot-plug)", "interface 52:54:00:d2:00:02 plugged in"]
restart_required:
  description: True when the running domain keeps its old configuration until it restarts.
  returned: when a running domain's definition changed without O(update)
  type: bool
  sample: true
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.domain import DOMAIN_ARGSPEC, ensure_domain
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module


def main() -> None:
    run_resource_module(noun="domain", argument_spec=DOMAIN_ARGSPEC, run=ensure_domain, schema_struct="Domain", required_one_of=[("name", "uuid", "xml")])


if __name__ == "__main__":
    main()
