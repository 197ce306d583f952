#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The benchmarks (bench/): each prints its figure as a ratio against a baseline measured in
# the same run. Results also land in bench/results/*.json.
#
#   scripts/bench.sh [--tasks N] [--rounds R]     (options of bench/noop_tasks.py)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/ansible-test-env.sh
source "$(dirname "$0")/ansible-test-env.sh"

install_system_packages compile host
"$REPO_ROOT/scripts/test-host.sh" up >/dev/null
ensure_venv "$REPO_ROOT/tests/dev-requirements.txt"
sync_collection_tree
export PATH="$VENV/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$BUILD_DIR"

export PYTHONPATH="$BUILD_DIR"  # the benchmarks import the collection's module_utils
"$VENV/bin/python" "$REPO_ROOT/bench/noop_tasks.py" --json "$REPO_ROOT/bench/results/noop_tasks.json" "$@"
"$VENV/bin/python" "$REPO_ROOT/bench/volume_upload.py" --json "$REPO_ROOT/bench/results/volume_upload.json"
"$VENV/bin/python" "$REPO_ROOT/bench/volume_upload_task.py" --json "$REPO_ROOT/bench/results/volume_upload_task.json"
"$VENV/bin/python" "$REPO_ROOT/bench/storage_notification_vs_ping.py" --json "$REPO_ROOT/bench/results/storage_notification_vs_ping.json"
"$VENV/bin/python" "$REPO_ROOT/bench/firstboot_iso.py" --json "$REPO_ROOT/bench/results/firstboot_iso.json"
"$VENV/bin/python" "$REPO_ROOT/bench/seed_iso_task.py" --json "$REPO_ROOT/bench/results/seed_iso_task.json"
"$VENV/bin/python" "$REPO_ROOT/bench/workspace_noop.py" --json "$REPO_ROOT/bench/results/workspace_noop.json"
"$VENV/bin/python" "$REPO_ROOT/bench/workspace_state_gcs.py" --json "$REPO_ROOT/bench/results/workspace_state_gcs.json"
"$VENV/bin/python" "$REPO_ROOT/bench/workspace_parameter_scaling.py" --json "$REPO_ROOT/bench/results/workspace_parameter_scaling.json"
"$VENV/bin/python" "$REPO_ROOT/bench/workspace_fleet.py" --json "$REPO_ROOT/bench/results/workspace_fleet.json"
"$VENV/bin/python" "$REPO_ROOT/bench/workspace_base_image.py" --domain-type "$("$REPO_ROOT/scripts/test-host.sh" env | sed -n 's/^DEVINFRA_TEST_DOMAIN_TYPE=//p')" --json "$REPO_ROOT/bench/results/workspace_base_image.json"

# The peer for the domain benchmark: community.libvirt, as the `ansible` package on PyPI
# bundles it (Galaxy is not reachable here), unpacked into a collections path of its own.
peer="$BUILD_DIR/peer"
if [ ! -d "$peer/ansible_collections/community/libvirt" ]; then
  mkdir -p "$peer/download"
  "$VENV/bin/pip" download --no-deps --quiet -d "$peer/download" "ansible>=12"
  "$VENV/bin/python" - "$peer" <<'PY'
import pathlib, sys, zipfile
peer = pathlib.Path(sys.argv[1])
wheel = sorted((peer / "download").glob("ansible-*.whl"))[-1]
with zipfile.ZipFile(wheel) as archive:
    members = [m for m in archive.namelist() if m.startswith("ansible_collections/community/libvirt/")]
    archive.extractall(peer, members)
PY
fi
(cd "$REPO_ROOT/bench" && "$VENV/bin/python" domain_noop.py --peer-collections "$peer" \
  --domain-type "$("$REPO_ROOT/scripts/test-host.sh" env | sed -n 's/^DEVINFRA_TEST_DOMAIN_TYPE=//p')" \
  --json "$REPO_ROOT/bench/results/domain_noop.json")
(cd "$REPO_ROOT/bench" && "$VENV/bin/python" guest_connection.py --peer-collections "$peer" \
  --domain-type "$("$REPO_ROOT/scripts/test-host.sh" env | sed -n 's/^DEVINFRA_TEST_DOMAIN_TYPE=//p')" \
  --json "$REPO_ROOT/bench/results/guest_connection.json")
