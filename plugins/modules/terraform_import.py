#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: terraform_import
short_description: Turn a Terraform state into a playbook and a workspace state
version_added: 0.5.0
description:
  - Reads a Terraform state (C(terraform.tfstate), format version 4, as Terraform 0.12 and later and OpenTofu write it)
    that holds resources of terraform-provider-libvirt 0.9 or 0.8 (C(dmacvicar/libvirt)) and of the Coder provider
    (C(coder/coder)), and writes a playbook at O(dest) with one task per resource, named after its Terraform address,
    with the options of this collection's module for it; with O(teardown_dest), also the playbook that removes what the
    state holds, the counterpart of C(terraform destroy).
  - Every task is named by its Terraform address as Terraform prints it - C(libvirt_domain.vm[0]),
    C(module.ws.coder_agent.main), C(libvirt_volume.disk["a"]) - from the state's C(module), C(mode), C(type), C(name)
    and each instance's C(index_key). A string key is quoted as Terraform quotes it (line breaks, tabs, quotes and
    backslashes escaped, C(${) and C(%{) doubled, other characters that are not printable as C(\uXXXX)), so an
    address is one line whatever the key holds. Each task also carries its address as the task variable
    C(devinfra_tf_address) (C(!unsafe)), which the C(devinfra.providers.plan) callback shows beside the object's name.
  - The modules take upstream's attributes key by key, so a task's options are the attributes the state holds, without
    Terraform's nulls (attributes not set) and without what upstream computes (ids, sizes). References between resources
    are the values the state holds (a disk's volume, a backing store's path). A domain keeps its C(uuid) and every MAC
    address the state has, so the task finds the domain as it is; networks, pools and volumes are found by their names.
    Applied to the objects Terraform made, the playbook changes nothing.
  - The Coder resources live in a workspace state (O(state_file)) here, as they lived in Terraform's state. The module
    writes there the entry each workspace module would have written, with the ids Terraform's state holds and each
    agent's token, so running agents keep working and the tasks find everything unchanged. The token never goes into the
    playbook - the agent's task registers its result, and a value that held the token (a cloud-init user-data) refers to
    it instead.
  - Every resource is either converted or listed in RV(not_converted) with the reason (another provider, a resource or
    data source no module ports, a 0.8 attribute with no equivalent, options the module refuses, a tainted or
    deposed object); nothing is dropped without a word. The playbook ends with the same list as comments. Data sources
    are listed with the lookup that reads them when a play runs.
  - Of a resource that is converted, every attribute set in the state that its task does not carry is listed in
    RV(not_carried) with the reason (and as comments at the end of the playbook), for every provider and version. A
    0.9 or Coder attribute no option takes makes the resource not converted instead; so RV(not_carried) names what a
    0.8 object holds beyond what its XML needs (C(qemu_agent), an interface's C(wait_for_lease)), and a Coder app's
    deprecated C(name) beside its C(display_name). Attributes the provider computes (ids, sizes, paths) are not options
    and not listed.
  - The state's outputs are listed in RV(outputs) and written as the play's variable C(terraform_outputs) (a
    dictionary by output name, every string C(!unsafe)). A sensitive output - marked so in the state, or holding a
    value the state marks sensitive elsewhere or an agent's token - is never written or returned; its value is masked
    (C(********)) and it is named, with the reason, in a comment at the end of the playbook. A malformed output, or one
    whose name is not an identifier, is listed the same way.
  - The teardown playbook (O(teardown_dest)) has one C(state=absent) task per object of the state, named only by what
    finds exactly that object - a domain by its UUID (by name when the state holds none), a volume by pool and name
    (0.8's first-boot volumes too), a network or a pool by name (with the pool's C(destroy) and the domain's C(destroy)
    options as imported), a workspace resource by its key in the workspace state. A libvirt object whose create task
    could not be written is removed all the same when the state says which object it is, and so is a tainted one, as
    C(terraform destroy) would. Each is removed after everything that depends on it - the state's C(dependencies) of
    each instance (and an agent after what names it), reversed; where that leaves a choice, in the state's order.
    Objects of other providers, deposed objects and resources the state does not name are listed in RV(not_removed)
    and in its closing comments.
  - Which terraform-provider-libvirt wrote the state is read from the state, not from the attributes that happen to be
    set. 0.8 is built on Terraform's SDKv2, which records a C(schema_version) in each object's C(private) data; 0.9
    records none (the instances' own C(schema_version) is 0 in both and tells nothing). Without that record, the
    instance's attribute set decides - Terraform writes every attribute of the schema, null ones too, so a key only one
    version's schema has (a domain's C(disk) or C(devices), a network's C(addresses) or C(ips), a cloud-init disk's
    C(pool) or C(path)) names it. One configuration uses one version of a provider, so an instance that names none takes
    the state's; a state whose instances name both is not converted (each libvirt resource listed with the reason); a
    state where none names one is read as 0.9.
  - A terraform-provider-libvirt 0.8 resource becomes a task whose options give the XML 0.8 made, so the task finds
    the object unchanged. C(libvirt_pool) - C(type), C(path) or C(target.path), C(source.name), C(source.device), and
    C(running=true) (0.8 started the pool; its state does not record autostart, which the task leaves as it is).
    C(libvirt_volume) - C(size) as C(capacity) in bytes, C(format) as C(target.format.type), C(base_volume_id) as
    C(backing_store.path), C(source) as C(create.content.url) (read only when the volume is made again).
    C(libvirt_network) - C(mode) as C(forward.mode) (none - no forward), C(bridge), C(domain) (and C(dns.local_only)),
    C(mtu), each of C(addresses) as the C(ips) entry 0.8 made (the subnet's first address for the host, DHCP from the
    second to the one before the last, unless C(dhcp.enabled=false) or a bridge network), C(dns) (C(enabled),
    C(forwarders), C(hosts)), C(routes), C(dnsmasq_options), C(autostart).
    C(libvirt_domain) - the UUID (C(id)), C(type), C(memory) in MiB, C(vcpu), C(description), C(arch) and C(machine),
    C(cpu.mode), C(firmware) and C(nvram) as C(os.loader) (read-only pflash) and C(os.nv_ram), C(running),
    C(autostart); each C(disk) as 0.8 attached it (C(vdX) on virtio by its place; a C(volume_id) by the pool and name
    of that volume, found among the state's volumes, with the C(qcow2) driver for a qcow2 volume; a C(file) ending in
    C(.iso) as an IDE CD-ROM C(hdX); a C(block_device)); the C(cloudinit) ISO as the IDE CD-ROM C(hdd) by its path;
    each C(network_interface) with its MAC and a virtio model, by network (C(network_name), or C(network_id) resolved
    through the state), C(bridge), or a direct device (C(vepa), C(private), C(macvtap), C(passthrough)); C(pty)
    consoles, C(graphics) (spice or vnc, autoport), C(video). 0.8's own additions (the guest agent channel,
    the RNG, the default spice display, C(pae)/C(acpi)/C(apic)) stay as they are and are not options of the task;
    C(qemu_agent), C(wait_for_lease), C(hostname) and C(addresses) of an interface made 0.8 wait or add DHCP hosts to
    the network, nothing of the domain's XML, and are not carried.
  - Not converted from 0.8, each with its reason - C(xml.xslt) on any resource (no option applies an XSLT; there is
    no equivalent); a C(libvirt_cloudinit_disk), C(libvirt_ignition) or C(libvirt_combustion), whose volume 0.8 wrote
    itself (the module would write its own image over it; the volume stays as it is, and the domain's task keeps it
    attached); a volume with C(base_volume_name) only (its path is not in the state); a domain with SCSI or URL disks, a
    C(volume_id) or C(network_id) the state does not hold, an interface without a MAC, C(filesystem), C(tpm),
    C(coreos_ignition), C(combustion), C(kernel)/C(initrd)/C(cmdline), C(boot_device), a console other than a pty; a network
    with C(dns.srvs).
  - The tasks run in an order the state's dependencies allow (Terraform's graph); where they leave a choice, pools, networks,
    first-boot files, volumes, agents, domains, then the other workspace resources.
  - What the state holds is data. Every string of it in the playbook - option values, the keys of maps, task names - is
    tagged C(!unsafe), whatever it holds, so Ansible passes it on as it is and never templates it (a value whose first
    line is a C(#jinja2:) header would otherwise be a template without any brace). Only what the module makes itself is
    written without the tag - the play's keywords, module and option names, register names, and the template that puts
    an agent's token back into a value; that value's other pieces are the task's C(vars), C(!unsafe) too. A string
    the tag would turn into a number, a boolean or null (C(!unsafe "012")) is written quoted instead; such a string is
    made of characters no template can be made of. O(hosts), O(libvirt_uri) and O(state_file) are written as given,
    C(!unsafe) too.
  - The playbook is written atomically with mode C(0600) (it holds what the state held - a cloud-init user-data may carry
    passwords), never through a symbolic link. An existing O(dest) with other content is replaced only with O(force=true);
    so is an entry of the workspace state that holds other ids, tokens or arguments. A O(dest) in a directory another
    user owns or can write to (or on a way there they can change) gets a warning naming it (they could read or change
    the playbook before it runs).
author:
  - devinfra.providers contributors (@devinfra)
options:
  src:
    description:
      - The Terraform state - a path on the host the module runs on, or V(gs://BUCKET/OBJECT) (for example the
        C(default.tfstate) of Terraform's C(gcs) backend), read with the credential options below.
      - Read only, never changed; at most 64 MiB. A state of another format version, a file that is not JSON or is nested
        deeper than 64 levels is refused as a whole; a resource whose name or index holds a control character is listed
        in RV(not_converted).
      - One of O(src) and O(src_dir) is required; they are mutually exclusive.
    type: str
  src_dir:
    description:
      - A Terraform configuration that was never applied (it has no state) - the directory of its C(.tf) files, on the
        host the module runs on (the controller), read with python-hcl2 (8 or later, needed only for this option).
      - Its C(*.tf) files are read in name order, with the values of C(terraform.tfvars) and C(*.auto.tfvars) for its
        variables; each file at most 512 KiB, 1 MiB in all, never through a symbolic link. Override files
        (C(*_override.tf)) and Terraform's JSON syntax (C(*.tf.json)) are refused, as a file that is not UTF-8 or not HCL
        is (the message gives the line, never the text).
      - A resource becomes a task as the same resource of a state would, its attributes the values the configuration
        gives literally - literals, variables with a default or a C(.tfvars) value, locals made of them, C(count.index),
        C(each.key), C(each.value), C(toset), C(tolist), C(tomap), C(tostring), C(tonumber), and attributes another
        resource of the configuration sets (C(libvirt_pool.main.name)). Anything else (an C(id) or C(path) known only
        after apply, data sources, other functions, operators, template directives, dynamic blocks) is never guessed
        and never written as a template - the resource is listed in RV(not_converted) with each such attribute and why.
        Module calls are listed too (their resources are not read). The values are data, written C(!unsafe) like a
        state's.
      - A literal C(count) or C(for_each) makes one task per instance, named by its address (C(libvirt_volume.disk[0]),
        C(libvirt_volume.disk["a"])), not a loop - each instance's options are checked against the module now, and the
        playbook holds no template made from the configuration.
      - The version of terraform-provider-libvirt is the one C(required_providers) asks for when its version
        constraint admits only 0.8 (and older) or only 0.9 (and newer); otherwise the attributes decide, as for a state.
        RV(configuration) says which.
    type: path
    version_added: 0.6.0
  dest:
    description:
      - Where to write the playbook. Its directory must exist.
    type: path
    required: true
  force:
    description:
      - Replace an existing O(dest) with other content, and entries of the workspace state that differ from what the
        Terraform state says. Without it both are errors, and nothing is written.
    type: bool
    default: false
  state_file:
    description:
      - The workspace state the Coder resources go into (a local path, or V(gs://BUCKET/OBJECT)); the playbook's
        C(module_defaults) point the workspace modules at it.
      - When not set, E(DEVINFRA_WORKSPACE_STATE) is used if it is not empty, else C(workspace-state.json) next to O(dest).
      - Entries for other resources already there are kept. Only written when the Terraform state holds Coder resources.
    type: str
  teardown_dest:
    description:
      - Where to write the teardown playbook, which removes the objects of the state (see above). Its directory must
        exist; it is written as O(dest) is (atomically, mode C(0600), never through a symbolic link, replaced only with
        O(force=true)), and must be neither O(dest) nor O(src).
      - When not set, no teardown playbook is written (RV(teardown) still lists what it would remove).
    type: path
    version_added: 0.7.0
  hosts:
    description:
      - The C(hosts) of the play written - the libvirt host the modules run on (they reach libvirt at their C(uri) from
        there). The workspace modules run on the controller whatever it is.
    type: str
    default: localhost
  libvirt_uri:
    description:
      - The libvirt URI the playbook's libvirt tasks use, written into its C(module_defaults) (the state does not hold
        the provider's configuration). When not set, the tasks use their own default (E(LIBVIRT_DEFAULT_URI), else
        V(qemu:///system)).
    type: str
  src_encryption_key:
    description:
      - The customer-supplied encryption key of a V(gs://) O(src) (the C(encryption_key) of Terraform's C(gcs) backend),
        an AES-256 key encoded as base64. When not set, E(GOOGLE_ENCRYPTION_KEY) is used, as Terraform does.
      - Never returned, logged or shown in a message.
    type: str
extends_documentation_fragment:
  - devinfra.providers.workspace.state_backend
  - devinfra.providers.attributes
attributes:
  check_mode:
    support: full
    details:
      - Reads the Terraform state, O(dest) and the workspace state, reports what would be written, and writes nothing.
  diff_mode:
    support: full
    details:
      - The playbook's text before and after, with every token, every value the state marks sensitive and every value the
        modules keep C(no_log) (cloud-init and Ignition contents) masked; and the addresses of the workspace state's
        resources before and after, never their values.
  idempotent:
    support: full
    details:
      - Run again on the same state, it finds the playbook and the workspace entries as they are and changes nothing.
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
notes:
  - It runs where the Terraform state is - usually the controller, with C(delegate_to=localhost) (or a play on
    C(localhost)). The workspace state and the playbook are written there too.
  - A cloud-init, Ignition or Combustion file is written by its task on the host the play runs on, in the directory the
    state says upstream wrote it to. Upstream's cloud-init image is plain ISO9660, which the module replaces once with
    its ISO9660, Joliet and Rock Ridge image (a change on the first run).
  - The ids of networks and pools are not options - the modules find them by name, with the UUID libvirt keeps.
  - The Coder provider's SDK writes an unset attribute as its zero value (an empty string, C(0), C(false)), so such a
    value is written as not set, unless the option has another default (C(connection_timeout=0) stays).
  - Resources in Terraform modules keep their full address (C(module.vm.libvirt_domain.web)) as the task name.
  - The teardown playbook removes the workspace state's entries, not the workspace state file.
seealso:
  - module: devinfra.providers.workspace_state
  - ref: ansible_collections.devinfra.providers.docsite.coming_from_terraform
    description: Coming from Terraform - the concepts mapped, and a worked import.
"""

EXAMPLES = r"""
- name: Turn the state of a Terraform workspace into a playbook
  devinfra.providers.terraform_import:
    src: /srv/terraform/dev/terraform.tfstate
    dest: /srv/ansible/dev.yml
    state_file: /srv/ansible/dev-workspace-state.json
    libvirt_uri: qemu:///system
    teardown_dest: /srv/ansible/dev-destroy.yml
  delegate_to: localhost
  register: imported

- name: Show what was not converted, and why
  ansible.builtin.debug:
    msg: "{{ item.address }}: {{ item.reason }}"
  loop: "{{ imported.not_converted }}"

- name: Read the state from Terraform's gcs backend
  devinfra.providers.terraform_import:
    src: gs://team-terraform/dev/default.tfstate
    dest: /srv/ansible/dev.yml
    auth_kind: serviceaccount
    service_account_file: /etc/devinfra/state-reader.json
  delegate_to: localhost
"""

RETURN = r"""
operation:
  description:
    - What the task did, or would do in check mode, as Terraform's plan names it - C(create) (a new playbook),
      C(update) (the playbook or the workspace state entries replaced or added) or C(none); the
      C(devinfra.providers.plan) callback shows it.
  returned: success
  type: str
  sample: create
address:
  description: The task as Terraform's plan would name it, C(terraform_import.<dest>).
  returned: success
  type: str
  sample: terraform_import./srv/ansible/dev.yml
changed_paths:
  description: The options whose files change with C(update) (C(dest), C(teardown_dest), C(state_file)); empty otherwise.
  returned: success
  type: list
  elements: str
  sample: [dest]
dest:
  description: The playbook's path.
  returned: success
  type: str
  sample: /srv/ansible/dev.yml
teardown_dest:
  description: The teardown playbook's path, null when O(teardown_dest) is not set.
  returned: success
  type: str
  sample: /srv/ansible/dev-destroy.yml
state_file:
  description: The workspace state's location (an absolute path or V(gs://BUCKET/OBJECT)), null when the Terraform
    state holds no Coder resource.
  returned: success
  type: str
  sample: /srv/ansible/dev-workspace-state.json
configuration:
  description: What was read of the configuration of O(src_dir).
  returned: success, with O(src_dir)
  type: dict
  contains:
    files:
      description: The files read, in order.
      type: list
      elements: str
      sample: [main.tf, variables.tf, terraform.tfvars]
    libvirt_provider_version:
      description: The terraform-provider-libvirt version the resources were read as (V(0.8) or V(0.9)), null without
        a libvirt resource.
      type: str
      sample: "0.9"
    libvirt_provider_version_from:
      description: Why - C(required_providers) and its constraint, or that it was assumed from the attributes.
      type: str
      sample: required_providers (version "~> 0.9.0")
terraform:
  description: What the Terraform state says of itself.
  returned: success, with O(src)
  type: dict
  contains:
    terraform_version:
      description: The Terraform version that wrote it.
      type: str
      sample: 1.9.8
    serial:
      description: Its serial.
      type: int
      sample: 12
    lineage:
      description: Its lineage.
      type: str
      sample: 8f0e7d3c-5a7b-4c1e-9d2f-0a1b2c3d4e5f
converted:
  description: Each resource converted, in the order of the playbook's tasks.
  returned: success
  type: list
  elements: dict
  contains:
    address:
      description: The Terraform address, the task's name.
      type: str
      sample: libvirt_domain.web
    module:
      description: The module of the task.
      type: str
      sample: devinfra.providers.libvirt_domain
not_converted:
  description: Each resource (and data source) not converted, with the reason.
  returned: success
  type: list
  elements: dict
  contains:
    address:
      description: The Terraform address (control characters escaped).
      type: str
      sample: docker_container.workspace[0]
    reason:
      description: Why it was not converted.
      type: str
      sample: its provider kreuzwerker/docker is not one this module converts (dmacvicar/libvirt, coder/coder)
not_carried:
  description: Each attribute set in the state of a converted resource that its task does not carry, with the reason.
  returned: success
  type: list
  elements: dict
  contains:
    address:
      description: The resource's Terraform address.
      type: str
      sample: libvirt_domain.vm
    attribute:
      description: The attribute's path in the state.
      type: str
      sample: network_interface[0].wait_for_lease
    reason:
      description: Why it is not carried.
      type: str
      sample: 0.8 waited for a DHCP lease; nothing of the domain's XML
outputs:
  description: The state's outputs, in its order.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The output's name (control characters escaped).
      type: str
      sample: vm_uuid
    sensitive:
      description: Whether the output is sensitive (marked so in the state, or holding a value the state keeps secret).
      type: bool
      sample: false
    value:
      description: Its value; C(********) for a sensitive output.
      type: raw
      sample: 7c1f3a52-9d04-4be8-a1f6-2e9b5c0d8e13
    variable:
      description: The expression that holds it in the playbook, null when it is not written.
      type: str
      sample: terraform_outputs['vm_uuid']
    reason:
      description: Why it is not written; only for those not written.
      type: str
      sample: "marked sensitive in the state: never written (read it with terraform output)"
teardown:
  description: The tasks of the teardown playbook, in its order (each after what depends on it).
  returned: success
  type: list
  elements: dict
  contains:
    address:
      description: The Terraform address, the task's name.
      type: str
      sample: libvirt_domain.vm
    module:
      description: The module of the task (with C(state=absent)).
      type: str
      sample: devinfra.providers.libvirt_domain
    options:
      description: The options that name the object (and how it is stopped or its storage treated).
      type: dict
      sample: {uuid: 7c1f3a52-9d04-4be8-a1f6-2e9b5c0d8e13}
not_removed:
  description: Each managed resource of the state the teardown playbook does not remove, with the reason.
  returned: success
  type: list
  elements: dict
  contains:
    address:
      description: The Terraform address.
      type: str
      sample: docker_container.workspace[0]
    reason:
      description: Why it is not removed.
      type: str
      sample: its provider is not one this module converts, so no task of this collection removes it
workspace_resources:
  description: The addresses of the workspace state entries written (or found as they are) for the Coder resources.
  returned: success
  type: list
  elements: str
  sample: [workspace_agent.main, workspace_app.main.code-server]
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.devinfra.providers.plugins.module_utils._terraform.errors import TerraformImportError
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.hcl import HAS_HCL2, HCL2_IMPORT_ERROR
from ansible_collections.devinfra.providers.plugins.module_utils._terraform.importer import IMPORT_ARGSPEC, IMPORT_RULES, run_import


def main() -> None:
    module = AnsibleModule(argument_spec=IMPORT_ARGSPEC, supports_check_mode=True, **IMPORT_RULES)
    if module.params["src_dir"] and not HAS_HCL2:
        module.fail_json(msg=missing_required_lib("python-hcl2 (8 or later)", reason="to read the .tf files of src_dir"), exception=HCL2_IMPORT_ERROR)
    try:
        result = run_import(module.params, check_mode=module.check_mode)
    except TerraformImportError as exc:
        module.fail_json(msg=str(exc))
    module.no_log_values.update(result.pop("secrets"))
    for warning in result.pop("warnings"):
        module.warn(warning)
    if not module._diff:
        result.pop("diff")
    module.exit_json(**result)


if __name__ == "__main__":
    main()
