#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_secret
short_description: Manage a libvirt secret and its value
version_added: 0.5.0
description:
  - Defines, gives a value to, redefines and removes a libvirt secret (the passphrase of an encrypted volume, a Ceph or
    iSCSI key, a TLS key's passphrase, a vTPM's state key). See U(https://libvirt.org/formatsecret.html).
  - The secret is found by O(uuid) when it is set, else by its O(usage). When libvirt makes the UUID, it is returned in
    RV(secret.uuid).
  - The value is never returned, never shown in a diff and never put in an error message. To tell whether it changed,
    a non-private secret's value is read back and compared in memory; a private secret's value cannot be read through
    libvirt at all, so the module compares it with a keyed digest of the value it set last (see the notes).
  - Only the options you set are compared. The description and O(ephemeral) are changed by redefining the secret with
    the same UUID, which keeps its value. libvirt cannot change O(private) or O(usage) of an existing secret; such a
    change fails naming the option, before anything is touched (remove the secret with O(state=absent) and create it
    again).
author:
  - devinfra.providers contributors (@devinfra)
options:
  uuid:
    description:
      - The secret's UUID. When not set, the secret is found by O(usage), and a new one gets a UUID from libvirt.
      - One of O(uuid) and O(usage) is required.
    type: str
  description:
    description:
      - A human-readable description (one line). Not managed when not set.
    type: str
  ephemeral:
    description:
      - Whether libvirt keeps the secret in memory only (it is lost when the secret daemon restarts). Not managed when
        not set; a new secret is not ephemeral.
    type: bool
  private:
    description:
      - Whether libvirt refuses to reveal the value to any client. Not managed when not set; a new secret is not private.
      - It cannot change on an existing secret.
    type: bool
  usage:
    description:
      - What the secret is for, which libvirt allows one secret to have (libvirt's C(<usage>) element). It cannot change
        on an existing secret.
    type: dict
    suboptions:
      type:
        description: The usage type.
        type: str
        required: true
        choices: [ceph, iscsi, tls, volume, vtpm]
      volume:
        description: With O(usage.type=volume), the absolute path of the volume the secret encrypts.
        type: str
      name:
        description: With O(usage.type=ceph), O(usage.type=tls) or O(usage.type=vtpm), the usage's name.
        type: str
      target:
        description: With O(usage.type=iscsi), the iSCSI target's name.
        type: str
  value:
    description:
      - The value, as text (encoded as UTF-8). Not managed when none of O(value), O(value_base64) and O(value_file) is set.
      - Not empty, at most 65536 bytes.
    type: str
  value_base64:
    description:
      - The value as base64, for bytes that are not text.
    type: str
  value_file:
    description:
      - A file on the managed host holding the value (its bytes, as they are; a trailing newline is part of the value).
        It must be a regular file of at most 65536 bytes; a symbolic link is refused.
      - A file with more than one name (hard links) is refused before it is read, since the name given may be a link
        another user made to a file they cannot read, which the module (run as root) would hand to libvirt. Put the
        value in a file of its own with one name (C(cp) makes a new file).
      - A file that its group or others can read gives the value to them; the module warns, naming the file, and goes
        on. Make it readable by its owner only (C(chmod 600)).
    type: path
  state:
    description:
      - V(present) defines the secret (and sets its value); V(absent) undefines it. Removing a missing secret is no change.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.resource
  - devinfra.providers.attributes.actiongroup_libvirt
notes:
  - "The digest record: for every secret it sets a value of, the module keeps on the managed host an HMAC-SHA256 of the
    value under a key of 32 random bytes made once per host, in C(/var/lib/devinfra.providers/secret-digests) (as root;
    else C(~/.cache/devinfra.providers/secret-digests)), a directory of mode 0700 whose files are the running user's,
    mode 0600, opened without following links. A record alone tells nothing about the value. A record that is missing or
    not safe to use means the value of a private secret is set again, reported as a change once."
  - The record of a private secret cannot see a change of the value made outside this module; set the value with this
    module only, or remove the record to have it set again.
  - O(state=absent) removes the secret's record too.
seealso:
  - module: devinfra.providers.libvirt_secret_info
  - module: devinfra.providers.libvirt_volume
"""

EXAMPLES = r"""
- name: The passphrase of a LUKS volume
  devinfra.providers.libvirt_secret:
    usage:
      type: volume
      volume: /var/lib/libvirt/images/data.luks
    description: passphrase of data.luks
    private: true
    value: "{{ vault_data_passphrase }}"
  register: passphrase

- name: The encrypted volume that uses it
  devinfra.providers.libvirt_volume:
    pool: default
    name: data.luks
    capacity: 1
    capacity_unit: GiB
    target:
      format:
        type: raw
      encryption:
        format: luks
        secret:
          type: passphrase
          uuid: "{{ passphrase.secret.uuid }}"

- name: A Ceph client key, given as base64, with a UUID of our own
  devinfra.providers.libvirt_secret:
    uuid: 2a6a4b3c-0d5e-4f61-8a72-93b4c5d6e7f8
    usage:
      type: ceph
      name: client.libvirt secret
    value_base64: "{{ vault_ceph_client_key }}"

- name: Remove it
  devinfra.providers.libvirt_secret:
    uuid: 2a6a4b3c-0d5e-4f61-8a72-93b4c5d6e7f8
    state: absent
"""

RETURN = r"""
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
secret:
  description:
    - The secret, without its value. With O(state=absent), what was removed (empty when there was nothing).
  returned: always
  type: dict
  contains:
    uuid:
      description: The secret's UUID (libvirt's when it made it; V(null) in check mode for a secret still to be made).
      type: str
      sample: 2a6a4b3c-0d5e-4f61-8a72-93b4c5d6e7f8
    description:
      description: Its description, V(null) when it has none.
      type: str
      sample: passphrase of data.luks
    ephemeral:
      description: Whether libvirt keeps it in memory only.
      type: bool
      sample: false
    private:
      description: Whether libvirt refuses to reveal its value.
      type: bool
      sample: true
    usage:
      description: Its usage (C(type) and the usage's C(volume), C(name) or C(target)), V(null) when it has none.
      type: dict
      sample: {type: volume, volume: /var/lib/libvirt/images/data.luks}
    value_set:
      description:
        - Whether it has a value; V(null) when libvirt cannot tell (a private secret whose value this task does not set).
      type: bool
      returned: with O(state=present)
      sample: true
  sample:
    uuid: 2a6a4b3c-0d5e-4f61-8a72-93b4c5d6e7f8
    description: passphrase of data.luks
    ephemeral: false
    private: true
    usage: {type: volume, volume: /var/lib/libvirt/images/data.luks}
    value_set: true
operation:
  description: What was done to the secret, V(create), V(update), V(delete) or V(none).
  returned: always
  type: str
  sample: create
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.resource import run_resource_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.secret import (
    SECRET_ARGSPEC,
    SECRET_MUTUALLY_EXCLUSIVE,
    ensure_secret,
    validate_params,
)


def main() -> None:
    run_resource_module(
        noun="secret",
        argument_spec=SECRET_ARGSPEC,
        run=ensure_secret,
        prepare=validate_params,
        mutually_exclusive=SECRET_MUTUALLY_EXCLUSIVE,
    )


if __name__ == "__main__":
    main()
