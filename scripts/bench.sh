#!/usr/bin/env bash
# The benchmarks (bench/): each prints its figure as a ratio against a baseline measured in
# the same run. Results also land in bench/results/*.json.
#
#   scripts/bench.sh [--tasks N] [--rounds R]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/ansible-test-env.sh
source "$(dirname "$0")/ansible-test-env.sh"

install_system_packages compile host
"$REPO_ROOT/scripts/libvirtd.sh" up
ensure_venv "$REPO_ROOT/tests/dev-requirements.txt"
sync_collection_tree
export PATH="$VENV/bin:$PATH" ANSIBLE_COLLECTIONS_PATH="$BUILD_DIR"

"$VENV/bin/python" "$REPO_ROOT/bench/node_info_vs_ping.py" --json "$REPO_ROOT/bench/results/node_info_vs_ping.json" "$@"
