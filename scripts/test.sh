#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite (README's second command; CI runs it on a fresh clone):
# installs what it needs, starts the real libvirt test host, then runs the linters,
# ansible-test sanity (no ignore files), units and integration, the docs and changelog
# linters, and ends with one summary line.
#
#   scripts/test.sh                 everything
#   scripts/test.sh sanity units    only these steps (lint sanity units integration molecule docs)
#   DEVINFRA_TEST_TARGETS="t1 t2" scripts/test.sh integration    only these targets
set -uo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/ansible-test-env.sh
source "$(dirname "$0")/ansible-test-env.sh"
set -e

STEPS=${*:-lint sanity units integration molecule docs}
RUN_STARTED=$(date +%s)
# Each step's wall time, one "name<TAB>seconds" line each, for the table the run ends with.
STEP_TIMES=$(mktemp)
trap 'rm -f "$STEP_TIMES"' EXIT

# One row of the table: a step's name, when it started, and its seconds (until now unless given).
record_time() {
  printf '%s\t%s\t%s\n' "$1" "$2" "${3:-$(($(date +%s) - $2))}" >>"$STEP_TIMES"
}

# Run a set-up command and record its wall time as a step of the table (it counts no test).
timed() {
  local name=$1 started
  shift
  started=$(date +%s)
  "$@"
  record_time "$name" "$started"
}

timed setup-system-packages install_system_packages compile host test
# The unit tests' requirements too: mypy reads their types (responses) before units install them.
timed setup-venv ensure_venv "$REPO_ROOT/tests/dev-requirements.txt" "$REPO_ROOT/tests/unit/requirements.txt"
PY_VERSION=$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
TARGET_PYTHONS_DIR=$(target_pythons_path)
export PATH="$VENV/bin:$PATH:$TARGET_PYTHONS_DIR"
export ANSIBLE_FORCE_COLOR=0 PY_COLORS=0 NO_COLOR=1

case " $STEPS " in *" integration "*|*" molecule "*)
  timed setup-test-host "$REPO_ROOT/scripts/test-host.sh" up
  guest_started=$(date +%s)
  DEVINFRA_TEST_GUEST_DIR=$("$REPO_ROOT/tests/guest/build.sh")
  # The Debian cloud-init guest too (cached): built here once, never by two targets at once.
  "$REPO_ROOT/tests/integration/targets/setup_libvirt_firstboot/files/build-cloudinit-guest.sh" "$DEVINFRA_TEST_GUEST_DIR/cloudinit" >/dev/null
  record_time setup-test-guest "$guest_started"
  ;;
esac

write_get_pip_standin
timed setup-collection-tree sync_collection_tree
cd "$COLLECTION_TREE"
case " $STEPS " in *" integration "*)
  # ansible-test hands the targets a filtered environment: pass the test host's settings
  # as variables instead (read by the setup_libvirt_test_host target).
  "$REPO_ROOT/scripts/test-host.sh" env | sed -E 's/^([A-Z_]+)=(.*)$/\L\1\E: "\2"/' > tests/integration/integration_config.yml
  echo "devinfra_test_guest_dir: \"$DEVINFRA_TEST_GUEST_DIR\"" >> tests/integration/integration_config.yml
  # Every task of the collection's modules runs in check mode first and is compared with its real
  # run (tests/check_mode/action/normal.py); integration-check-mode lists each difference at the
  # end. ansible-test gives every target this file as its ANSIBLE_CONFIG. DEVINFRA_CHECK_MODE=0: off.
  CHECK_MODE_REPORT=$BUILD_DIR/check-mode-report.jsonl
  rm -rf "$CHECK_MODE_REPORT" "$CHECK_MODE_REPORT.locks" tests/integration/integration.cfg
  if [ "${DEVINFRA_CHECK_MODE:-1}" != 0 ]; then
    printf '[defaults]\naction_plugins = %s\n[devinfra_check_mode]\nreport = %s\n' \
      "$COLLECTION_TREE/tests/check_mode/action" "$CHECK_MODE_REPORT" > tests/integration/integration.cfg
  fi
  ;;
esac

PASSED=0
FAILED=0
FAILED_STEPS=()
LOGS=$BUILD_DIR/logs
mkdir -p "$LOGS"

# Run one check; its output goes to a log the counters read, and to the terminal: all of
# it, or with TERMINAL_LINES set (a grep -E pattern) the lines that match, cut at 2000
# characters, and the end of the log when the check fails.
check() {
  local name=$1 started
  shift
  log "$name: $*"
  started=$(date +%s)
  set +e
  if [ -n "${TERMINAL_LINES:-}" ]; then
    "$@" 2>&1 | tee "$LOGS/$name.log" | { grep --line-buffered -E "$TERMINAL_LINES" | awk '{ print substr($0, 1, 2000); fflush() }'; true; }
  else
    "$@" 2>&1 | tee "$LOGS/$name.log"
  fi
  local rc=${PIPESTATUS[0]}
  set -e
  record_time "$name" "$started"
  if [ "$rc" -ne 0 ] && [ -n "${TERMINAL_LINES:-}" ]; then
    echo "--- $name failed; the end of $LOGS/$name.log:"
    tail -n 120 "$LOGS/$name.log"
  fi
  return "$rc"
}

# The secrets audit over the integration outputs: the test secrets (every token, key and
# password the targets pass starts with DVTSECRET) must appear in none of them. With
# CANARY=yes (the storage targets ran), the emulator's fixture names (dvtcanary...), passed to
# the same modules the same way, must appear, or the search read nothing the tasks returned.
scan_for_test_secrets() {
  local files
  # Every target's log and junit report, of every lane's tree.
  mapfile -t files < <(ls "$LOGS"/integration-*.log tests/output/junit/*.xml \
    "$BUILD_DIR"/lane*/ansible_collections/devinfra/providers/tests/output/junit/*.xml 2>/dev/null)
  if grep -q -- DVTSECRET "${files[@]}"; then
    echo "test secrets in (file:lines):"
    grep -c -- DVTSECRET "${files[@]}" | grep -v ':0$'
    return 1
  fi
  if [ "${CANARY:-}" = yes ] && ! grep -q -- dvtcanary "${files[@]}"; then
    echo "no output holds the emulator's fixture names (dvtcanary...): the search would miss a leak"
    return 1
  fi
  echo "no test secret in ${#files[@]} outputs (-vvvv --diff, junit); the fixture names are in $(grep -l -- dvtcanary "${files[@]}" | wc -l) of them"
}

# One integration target at -vvvv with --diff; fails when ansible-test skipped it.
run_target() {
  local out
  out=$(mktemp)
  ansible-test integration "$1" -vvvv --diff --allow-destructive --python "$PY_VERSION" --requirements --color no 2>&1 | tee "$out"
  local rc=${PIPESTATUS[0]}
  if grep -q '^WARNING: All targets skipped' "$out"; then
    echo "integration target $1 was skipped by ansible-test"
    rc=1
  fi
  rm -f "$out"
  return "$rc"
}

# What the terminal shows of a target: its name, task names, recaps and failures.
INTEGRATION_TERMINAL_LINES='^(Running |TASK \[|PLAY RECAP|localhost +: |fatal: |failed: |\.\.\.ignoring|ERROR|FATAL|Traceback|runme.sh failed|WARNING: All targets skipped)'

# Integration targets spend about half their time waiting on one core (a TCG guest, one
# ansible-playbook): DEVINFRA_LANES (default 2) lanes run them at once. Each lane works in its
# own copy of the collection tree (ansible-test's outputs are per tree) and takes the next
# target from one queue, longest first by testing.rst's table, so the lanes end together.
# A lane's terminal lines start with its target's name; the whole output goes to the log.
run_lanes() {
  local queue results lane pids=() name rc started seconds
  queue=$(mktemp)
  results=$(mktemp)
  python3 "$REPO_ROOT/scripts/step_times.py" --longest-first "$REPO_ROOT/docs/docsite/rst/testing.rst" "$@" |
    while read -r name; do
      if has_alias "$name" devinfra/heavy; then echo "$name heavy"; else echo "$name light"; fi
    done >"$queue"
  for lane in $(seq 1 "${DEVINFRA_LANES:-2}"); do
    ( run_lane "$lane" "$queue" "$results" ) &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  while IFS=$'\t' read -r name rc started seconds; do
    record_time "$name" "$started" "$seconds"
    if [ "$rc" -eq 0 ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); FAILED_STEPS+=("$name"); fi
  done <"$results"
  # A target that never reported (a lane died) is a failure too.
  for name in "$@"; do
    grep -q "^integration-$name"$'\t' "$results" || { FAILED=$((FAILED + 1)); FAILED_STEPS+=("integration-$name"); }
  done
  rm -f "$queue" "$queue.lock" "$queue.heavy-running" "$results"
}

# The next target of the queue file ("target heavy|light" lines), taken under a lock; empty when
# none is left, "-" when only heavy ones are left while one runs (the lane waits). Targets aliased
# devinfra/heavy (a Debian guest under TCG, twenty forks) run one at a time, so that two never
# share the two cores: while one runs, a lane takes the first light target of the queue.
pop_target() {
  local queue=$1
  (
    flock 9
    [ -s "$queue" ] || exit 0
    pick=1
    if [ -e "$queue.heavy-running" ]; then
      pick=$(awk '$2 == "light" { print NR; exit }' "$queue")
      [ -n "$pick" ] || { echo -; exit 0; }
    fi
    read -r target weight < <(sed -n "${pick}p" "$queue")
    sed -i "${pick}d" "$queue"
    if [ "$weight" = heavy ]; then : >"$queue.heavy-running"; fi
    echo "$target"
  ) 9>"$queue.lock"
}

heavy_done() {
  local queue=$1
  ( flock 9; rm -f "$queue.heavy-running" ) 9>"$queue.lock"
}

# Whether a target's aliases file has the line ALIAS.
has_alias() { grep -qx "$2" "tests/integration/targets/$1/aliases"; }

run_lane() {
  local lane=$1 queue=$2 results=$3 tree=$COLLECTION_TREE target started rc
  if [ "$lane" -gt 1 ]; then
    tree=$BUILD_DIR/lane$lane/ansible_collections/devinfra/providers
    mkdir -p "$tree"
    # The tree without the first lane's outputs (junit reports of the exclusive targets).
    tar -C "$COLLECTION_TREE" --exclude=./tests/output -cf - . | tar -C "$tree" -xf -
  fi
  cd "$tree"
  while target=$(pop_target "$queue") && [ -n "$target" ]; do
    if [ "$target" = - ]; then sleep 5; continue; fi
    log "integration-$target (lane $lane)"
    started=$(date +%s)
    set +e
    run_target "$target" 2>&1 | tee "$LOGS/integration-$target.log" |
      { grep --line-buffered -E "$INTEGRATION_TERMINAL_LINES" | awk -v p="[$target] " '{ print p substr($0, 1, 2000); fflush() }'; true; }
    rc=${PIPESTATUS[0]}
    set -e
    if [ "$rc" -ne 0 ]; then
      tail -n 120 "$LOGS/integration-$target.log" | sed "s/^/[$target failed] /"
    fi
    printf '%s\t%s\t%s\t%s\n' "integration-$target" "$rc" "$started" "$(($(date +%s) - started))" >>"$results"
    if has_alias "$target" devinfra/heavy; then heavy_done "$queue"; fi
  done
}

# Build the collection's tarball (galaxy.yml's build_ignore), check what it holds, install it
# and list its modules with ansible-doc from the installed copy.
galaxy_build_install() {
  local out="$BUILD_DIR/galaxy"
  rm -rf "$out"
  mkdir -p "$out/installed"
  ansible-galaxy collection build --output-path "$out" . || return 1
  python3 "$REPO_ROOT/scripts/check_release.py" tarball "$(galaxy_tarball)" || return 1
  ansible-galaxy collection install "$out"/devinfra-providers-*.tar.gz -p "$out/installed" || return 1
  # Every plugin of every documented type, listed and rendered by ansible-doc from the installed copy.
  local dir type listed shipped rc=0
  for dir in plugins/modules plugins/lookup plugins/inventory; do
    type=$(basename "$dir")
    [ "$type" != modules ] || type=module
    listed=$(ANSIBLE_COLLECTIONS_PATH="$out/installed" ansible-doc -t "$type" -l devinfra.providers | grep -c '^devinfra\.providers\.')
    shipped=$(find "$dir" -name '*.py' ! -name '__init__.py' | wc -l)
    echo "ansible-doc lists $listed ${type} plugins of the installed collection; it ships $shipped"
    [ "$listed" -eq "$shipped" ] || rc=1
    # ansible-doc exits 0 when a plugin's documentation does not parse: look at what it rendered.
    # shellcheck disable=SC2046  # one plugin name per word
    ANSIBLE_COLLECTIONS_PATH="$out/installed" ansible-doc -t "$type" --json \
      $(find "$dir" -name '*.py' ! -name '__init__.py' -printf 'devinfra.providers.%f\n' | sed 's/\.py$//') |
      python3 "$REPO_ROOT/scripts/check_release.py" rendered "$dir" || rc=1
  done
  return "$rc"
}

# The tarball galaxy_build_install built.
galaxy_tarball() {
  echo "$BUILD_DIR/galaxy/devinfra-providers-$(awk '/^version:/ {print $2}' galaxy.yml).tar.gz"
}

# Render the installed collection's docs as its docsite does (plugin pages and the guides of
# docs/docsite), away from the source tree so that only the installed copy is found, then check
# that every guide is listed in extra-docs.yml and rendered.
render_collection_docs() {
  local dest="$BUILD_DIR/docsite"
  rm -rf "$dest"
  mkdir -p "$dest"
  (cd "$dest" && ANSIBLE_COLLECTIONS_PATH="$BUILD_DIR/galaxy/installed" \
    antsibull-docs collection --use-current --fail-on-error --dest-dir "$dest" devinfra.providers) || return 1
  python3 "$REPO_ROOT/scripts/check_release.py" extra-docs "$COLLECTION_TREE" "$dest"
}

# Count a step that is one test.
one() {
  local name=$1
  shift
  if check "$name" "$@"; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); FAILED_STEPS+=("$name"); fi
}

# Add the tests of a pytest junit report (units) to the counters.
count_junit() {
  local counts
  counts=$(python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
passed = failed = 0
for path in sys.argv[1:]:
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
        elif "skipped" not in tags:
            passed += 1
print(passed, failed)
PY
)
  PASSED=$((PASSED + ${counts% *}))
  FAILED=$((FAILED + ${counts#* }))
}

# The oldest installed target-only Python (older than the controller's): module code must run
# there too, so compile, import and the unit tests run on it as well as on the controller's.
# The ones between add little and cost about six minutes each (the CI budget); set
# DEVINFRA_ALL_PYTHONS=1 to run every installed one.
TARGET_PYTHONS=$(DEVINFRA_ALL_PYTHONS=${DEVINFRA_ALL_PYTHONS:-} python3 - <<'PY'
import os, shutil
from ansible_test._internal.constants import CONTROLLER_PYTHON_VERSIONS, SUPPORTED_PYTHON_VERSIONS
found = [v for v in SUPPORTED_PYTHON_VERSIONS if v not in CONTROLLER_PYTHON_VERSIONS and shutil.which(f"python{v}")]
print(" ".join(found if os.environ["DEVINFRA_ALL_PYTHONS"] else found[:1]))
PY
)

for step in $STEPS; do
  case $step in
    lint)
      one ruff-check ruff check .
      one ruff-format ruff format --check .
      one mypy env -C "$BUILD_DIR" mypy --config-file "$COLLECTION_TREE/pyproject.toml" \
        "$COLLECTION_TREE/plugins" "$COLLECTION_TREE/tests/unit"
      ;;
    sanity)
      for test in $(ansible-test sanity --list-tests); do
        one "sanity-$test" ansible-test sanity --test "$test" --python "$PY_VERSION" --requirements --color no
      done
      for v in $TARGET_PYTHONS; do
        one "sanity-compile-import-$v" ansible-test sanity --test compile --test import --python "$v" --requirements --color no
      done
      ;;
    units)
      # Each test case counts; a run that fails without a failed case (a crash, nothing
      # collected) counts as one failure.
      rm -rf tests/output/junit
      # The property-based tests' profile (tests/unit/hypothesis_profile.py): ci unless
      # DEVINFRA_HYPOTHESIS_PROFILE says full; ansible-test passes no such variable on.
      echo "${DEVINFRA_HYPOTHESIS_PROFILE:-ci}" >tests/unit/.hypothesis-profile
      units_failed_runs=0
      for v in "$PY_VERSION" $TARGET_PYTHONS; do
        venv_opt=$([ "$v" = "$PY_VERSION" ] || echo --venv)
        # shellcheck disable=SC2086
        check "units-$v" ansible-test units --python "$v" $venv_opt --requirements --color no \
          || { units_failed_runs=$((units_failed_runs + 1)); FAILED_STEPS+=("units-$v"); }
      done
      failed_before=$FAILED
      if ls tests/output/junit/*.xml >/dev/null 2>&1; then count_junit tests/output/junit/*.xml; fi
      if [ "$units_failed_runs" -gt 0 ] && [ "$FAILED" -eq "$failed_before" ]; then
        FAILED=$((FAILED + units_failed_runs))
      fi
      ;;
    integration)
      # DEVINFRA_TEST_TARGETS="a b" limits the run to those targets. Every target runs at -vvvv
      # with --diff, for the secrets audit after them: the whole output goes to the logs, the
      # terminal gets the targets, task names, recaps and failures.
      rm -rf tests/output/junit "$LOGS"/integration-*.log "$BUILD_DIR"/lane*
      targets=${DEVINFRA_TEST_TARGETS:-$(ansible-test integration --list-targets --allow-destructive 2>/dev/null | grep -v '^setup_')}
      if [ -z "${DEVINFRA_TEST_TARGETS:-}" ]; then
        # Every target directory runs: one ansible-test leaves out of its list would pass unseen.
        # shellcheck disable=SC2086  # one target per word
        one integration-all-targets-listed diff <(printf '%s\n' $targets | sort) <(find tests/integration/targets -mindepth 1 -maxdepth 1 -type d ! -name 'setup_*' -printf '%f\n' | sort)
      fi
      # --allow-destructive: the targets that change the host (aliases: destructive) run on this
      # test host; a target ansible-test skips all the same fails its step. Those whose aliases
      # say devinfra/exclusive run first, one at a time, with the host to themselves; then the
      # others run in lanes (see run_lanes).
      exclusive=() shared=()
      for target in $targets; do
        if has_alias "$target" devinfra/exclusive; then exclusive+=("$target"); else shared+=("$target"); fi
      done
      for target in "${exclusive[@]}"; do
        TERMINAL_LINES=$INTEGRATION_TERMINAL_LINES one "integration-$target" run_target "$target"
      done
      if [ ${#shared[@]} -gt 0 ]; then run_lanes "${shared[@]}"; fi
      canary=
      # shellcheck disable=SC2086  # one target per word
      if printf '%s\n' $targets | grep -qx storage_notification; then canary=yes; fi
      CANARY=$canary one integration-secrets-scan scan_for_test_secrets
      if [ -e tests/integration/integration.cfg ]; then
        whole=()
        [ -n "${DEVINFRA_TEST_TARGETS:-}" ] || whole=(--all-targets)  # the whole suite compares some task
        one integration-check-mode python3 tests/check_mode/report.py "$CHECK_MODE_REPORT" "${whole[@]}"
      fi
      ;;
    molecule)
      # The roles' scenarios, on the real test host, with the copy under test.
      one molecule-libvirt_host env -C extensions MOLECULE_PYTHON="$VENV/bin/python" \
        ANSIBLE_COLLECTIONS_PATH="$BUILD_DIR" molecule test -s libvirt_host
      one molecule-workspace_vm env -C extensions MOLECULE_PYTHON="$VENV/bin/python" \
        ANSIBLE_COLLECTIONS_PATH="$BUILD_DIR" DEVINFRA_TEST_GUEST_DIR="$DEVINFRA_TEST_GUEST_DIR" molecule test -s workspace_vm
      ;;
    docs)
      one licences python3 "$REPO_ROOT/scripts/check_release.py" licences
      one galaxy-build-install galaxy_build_install
      one shipped-references python3 "$REPO_ROOT/scripts/check_release.py" references "$(galaxy_tarball)"
      one antsibull-docs antsibull-docs lint-collection-docs --plugin-docs .
      one antsibull-docs-render render_collection_docs
      one changelog-lint antsibull-changelog lint
      one changelog-release python3 "$REPO_ROOT/scripts/check_release.py" changelog "$COLLECTION_TREE"
      # The copy under test, not whatever version is installed in ~/.ansible/collections: ansible-lint
      # adds that directory to the path it is given, so it runs with a home of its own.
      mkdir -p "$BUILD_DIR/ansible-lint-home"
      one ansible-lint env HOME="$BUILD_DIR/ansible-lint-home" ANSIBLE_COLLECTIONS_PATH="$BUILD_DIR" \
        ansible-lint --offline --profile production playbooks/ roles/ extensions/
      ;;
    *) die "unknown step: $step" ;;
  esac
done

record_time total "$RUN_STARTED"
# The table of where the time went, steps that grew by over a minute against testing.rst marked.
python3 "$REPO_ROOT/scripts/step_times.py" "$STEP_TIMES" "$REPO_ROOT/docs/docsite/rst/testing.rst" || true
[ ${#FAILED_STEPS[@]} -eq 0 ] || log "failed: ${FAILED_STEPS[*]}"
echo "tests: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
