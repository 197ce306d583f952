#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Set up a fresh Debian/Ubuntu machine and run the collection's main job on the local
# libvirt (README's first command): system packages, the local libvirt daemon (started
# without systemd when none answers), a venv with ansible-core and the collection's
# Python requirements, the collection itself, then the main playbook.
#
#   scripts/setup.sh [ansible-playbook arguments...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

# One workspace as one VM on the local libvirt (roles libvirt_host and workspace_vm); the
# read-only devinfra.providers.libvirt_host_report stays available.
MAIN_PLAYBOOK=devinfra.providers.workspace_vm

install_system_packages compile host
"$REPO_ROOT/scripts/libvirtd.sh" up
ensure_venv "$REPO_ROOT/tests/dev-requirements.txt"

log "installing the collection devinfra.providers"
dist=$(mktemp -d)
"$VENV/bin/ansible-galaxy" collection build --force --output-path "$dist" "$REPO_ROOT" >/dev/null
"$VENV/bin/ansible-galaxy" collection install --force "$dist"/devinfra-providers-*.tar.gz
rm -rf "$dist"

log "running $MAIN_PLAYBOOK against qemu:///system"
# The venv's interpreter runs the modules on localhost: it has libvirt-python.
as_root env PATH="$VENV/bin:$PATH" HOME="$HOME" ANSIBLE_PYTHON_INTERPRETER="$VENV/bin/python" \
  "$VENV/bin/ansible-playbook" "$MAIN_PLAYBOOK" "$@"
