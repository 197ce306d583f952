# shellcheck shell=bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the test scripts: the ansible_collections tree ansible-test needs, and the
# offline stand-in for ansible-test's pip bootstrap. Needs lib.sh sourced first.

COLLECTION_TREE=$BUILD_DIR/ansible_collections/devinfra/providers

# ansible-test insists on running inside ansible_collections/<ns>/<name>; give it a fresh
# copy of the tracked (and new, not ignored) files, so stale outputs never leak in.
sync_collection_tree() {
  rm -rf "$COLLECTION_TREE"
  mkdir -p "$COLLECTION_TREE"
  (cd "$REPO_ROOT" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf -) | tar -xf - -C "$COLLECTION_TREE"
}

# ansible-test creates its venvs without pip, then downloads get-pip.py from a host
# that is unreachable here. Its cache is checked first, so put a stand-in there that
# bootstraps pip with ensurepip and then installs what get-pip.py was asked for.
write_get_pip_standin() {
  local cache="${HOME}/.ansible/test/cache" version
  mkdir -p "$cache"
  for version in 24_2 25_2 25_3; do
    cat >"$cache/get_pip_${version}.py" <<'PY'
"""Offline stand-in for get-pip.py, written by devinfra.providers' scripts/ansible-test-env.sh."""
import subprocess
import sys

args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade", "--default-pip"])
subprocess.check_call([sys.executable, "-m", "pip", "install", *args])
PY
  done
}
