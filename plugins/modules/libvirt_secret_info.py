#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: libvirt_secret_info
short_description: List the secrets of a libvirt host, without their values
version_added: 0.5.0
description:
  - Lists the secrets of a libvirt host, all of them or those O(uuid), O(usage_type) and O(usage_id) select, sorted by
    UUID, with what defines them. Their values are never returned.
  - Whether a secret has a value is told for a non-private secret by reading the value in memory only (libvirt has no
    other way to tell); for a private secret libvirt cannot tell it. That read needs a read-write connection, which the
    module opens; it changes nothing.
author:
  - devinfra.providers contributors (@devinfra)
options:
  uuid:
    description:
      - Only the secrets with one of these UUIDs. A UUID that matches no secret is no error, it lists nothing.
    type: list
    elements: str
  usage_type:
    description:
      - Only the secrets with one of these usage types.
    type: list
    elements: str
    choices: [ceph, iscsi, tls, volume, vtpm]
  usage_id:
    description:
      - Only the secrets whose usage's volume path, name or target is one of these. One with C(*), C(?) or C([) is a
        shell-style pattern (V(/var/lib/libvirt/images/*)); it is also matched as it is.
    type: list
    elements: str
extends_documentation_fragment:
  - devinfra.providers.libvirt
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_libvirt
seealso:
  - module: devinfra.providers.libvirt_secret
"""

EXAMPLES = r"""
- name: The secrets of encrypted volumes
  devinfra.providers.libvirt_secret_info:
    usage_type: [volume]
  register: listing

- name: Show their UUIDs by volume
  ansible.builtin.debug:
    msg: "{{ listing.secrets | items2dict(key_name='usage_id', value_name='uuid') }}"
"""

RETURN = r"""
secrets:
  description: The secrets, sorted by UUID, without their values.
  returned: success
  type: list
  elements: dict
  contains:
    uuid:
      description: The secret's UUID.
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
      description: Its usage as M(devinfra.providers.libvirt_secret) takes it, V(null) when it has none.
      type: dict
      sample: {type: volume, volume: /var/lib/libvirt/images/data.luks}
    usage_type:
      description: The usage type, V(null) when it has none.
      type: str
      sample: volume
    usage_id:
      description: The usage's volume path, name or target, V(null) when it has none.
      type: str
      sample: /var/lib/libvirt/images/data.luks
    value_set:
      description: Whether it has a value; V(null) when libvirt cannot tell (a private secret).
      type: bool
      sample: null
"""

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.info_module import run_info_module
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.secret import SECRET_INFO_ARGSPEC, list_secrets


def main() -> None:
    run_info_module(SECRET_INFO_ARGSPEC, list_secrets, read_only=False)


if __name__ == "__main__":
    main()
