# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    # The libvirt connection, for modules (resolved on the managed host).
    DOCUMENTATION = r"""
options:
  uri:
    description:
      - The libvirt connection URI, for example V(qemu:///system), V(qemu+ssh://root@host/system)
        or V(test:///default). See U(https://libvirt.org/uri.html).
      - When not set, the value of the E(LIBVIRT_DEFAULT_URI) environment variable on the managed
        host is used if it is not empty, else V(qemu:///system) (the upstream provider's precedence).
      - An empty string is an error.
      - Set it for a whole play with C(module_defaults) and C(group/devinfra.providers.libvirt).
    type: str
requirements:
  - libvirt-python (the C(libvirt) Python binding) on the managed host
"""

    # The same connection, for lookups (resolved on the controller).
    LOOKUP = r"""
options:
  uri:
    description:
      - The libvirt connection URI, for example V(qemu:///system), V(qemu+ssh://root@host/system)
        or V(test:///default). See U(https://libvirt.org/uri.html).
      - When not set by any source, or set to an empty string by E(LIBVIRT_DEFAULT_URI), V(qemu:///system) is used
        (the upstream provider's precedence).
      - Lookups run on the controller, so this URI is opened from the controller.
    type: str
    env:
      - name: LIBVIRT_DEFAULT_URI
    vars:
      - name: devinfra_libvirt_uri
requirements:
  - libvirt-python (the C(libvirt) Python binding) on the controller
"""
