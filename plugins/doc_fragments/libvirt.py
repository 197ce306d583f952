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

    # The first-boot modules' directory (libvirt_cloudinit_disk, libvirt_combustion, libvirt_ignition).
    FIRSTBOOT_DEST = r"""
options:
  dest:
    description:
      - The directory on the managed host that holds the files. It is created (mode 0755, so that qemu can read
        the files) when missing, with the directories above it.
      - Defaults to upstream's location for the module made per user, in E(TMPDIR) (else C(/tmp)), one of
        C(terraform-provider-libvirt-cloudinit-<uid>), C(terraform-provider-libvirt-combustion-<uid>) or
        C(terraform-provider-libvirt-ignition-<uid>), C(<uid>) being the numeric id of the user the module runs as
        (C(/tmp/terraform-provider-libvirt-cloudinit-0) for root). Upstream uses the name without C(-<uid>) for every
        user, a fixed name in a directory anyone can write to, which another local user can make first.
      - The module deletes and reads back the files its records in O(dest) name, so it refuses, before anything is
        touched and in check mode too, a O(dest) that another user could have made or could change. O(dest) and each
        directory above it must be owned by root or by the user the module runs as and must not be writable by group
        or others; a directory above it may be if it has the sticky bit (as C(/tmp) has), O(dest) itself may not (so
        C(/tmp) itself is refused, as the file names are predictable). A symlink on the way must be owned by root or by
        that user. C(..) and control characters are refused.
      - The directory also holds C(.devinfra-firstboot/) (created with mode 0700), the record of which files each
        resource owns. That directory, its lock file and its records must belong to the user the module runs as and
        must not be writable by group or others; a record names nothing but this module's own file names directly in
        O(dest). A file of this module in O(dest) that another user owns is never taken as up to date, it is rewritten.
    type: path
"""
