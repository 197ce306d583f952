#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Faults of the workspace state file: two playbooks writing it at once, a playbook killed
# mid-run, a corrupt file, a full disk. Each: a clear error, nothing half-written, nothing
# lost, the next run converges. See docs/docsite/rst/faults_and_secrets.rst.
set -euxo pipefail

work=$(mktemp -d "${OUTPUT_DIR:-/tmp}/faults-workspace.XXXXXX")
cleanup() {
  if mountpoint -q "$work/full"; then umount "$work/full"; fi
  rm -rf "$work"
}
trap cleanup EXIT

export STATE_FILE=$work/state.json
count_resources() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["resources"]))' "$1"; }
changed() { sed -nE 's/^localhost +: ok=[0-9]+ +changed=([0-9]+).*/\1/p' "$1" | tail -1; }
no_leftovers() { [ -z "$(find "$(dirname "$1")" -name ".$(basename "$1").*.tmp")" ]; }

# 1. Two playbooks at once, 40 writes each, on one file: none of the 80 entries is lost.
WRITER=a COUNT=40 ansible-playbook writer.yml >"$work/a.log" 2>&1 &
pid_a=$!
WRITER=b COUNT=40 ansible-playbook writer.yml >"$work/b.log" 2>&1 &
pid_b=$!
wait "$pid_a"
wait "$pid_b"
[ "$(count_resources "$STATE_FILE")" -eq 80 ]
[ "$(stat -c %a "$STATE_FILE")" = 600 ]
no_leftovers "$STATE_FILE"
[ "$(changed "$work/a.log")" -eq 1 ] && [ "$(changed "$work/b.log")" -eq 1 ]
# ...and again at once: nothing changes.
WRITER=a COUNT=40 ansible-playbook writer.yml >"$work/a2.log" 2>&1 &
pid_a=$!
WRITER=b COUNT=40 ansible-playbook writer.yml >"$work/b2.log" 2>&1 &
pid_b=$!
wait "$pid_a"
wait "$pid_b"
[ "$(changed "$work/a2.log")" -eq 0 ] && [ "$(changed "$work/b2.log")" -eq 0 ]
[ "$(count_resources "$STATE_FILE")" -eq 80 ]

# 2. A playbook killed mid-run: the file is whole (the old or a new version, never half).
# Its processes carry a mark of their own, so that its forks (which outlive it, reparented,
# when it is killed) go with it and nothing else is touched.
mark="devinfra-fault-$$-$RANDOM"
DEVINFRA_FAULT_MARK=$mark WRITER=k COUNT=400 ansible-playbook writer.yml >"$work/k.log" 2>&1 &
pid_k=$!
for _ in $(seq 300); do
  grep -q '"k-5"' "$STATE_FILE" && break
  sleep 0.1
done
marked() {
  local pid
  for pid in $(pgrep -f 'writer.yml' || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "DEVINFRA_FAULT_MARK=$mark"; then
      echo "$pid"
    fi
  done
}
for _ in 1 2 3; do  # again for a fork made while the last round went
  for pid in $(marked); do kill -KILL "$pid" 2>/dev/null || true; done
  sleep 0.2
done
wait "$pid_k" || true
[ -z "$(marked)" ]  # nothing of the killed playbook is left running
written=$(count_resources "$STATE_FILE")  # parses: not corrupt
[ "$written" -gt 85 ] && [ "$written" -lt 480 ]
WRITER=k COUNT=400 ansible-playbook writer.yml >"$work/k2.log" 2>&1
[ "$(count_resources "$STATE_FILE")" -eq 480 ]
WRITER=k COUNT=400 ansible-playbook writer.yml >"$work/k3.log" 2>&1
[ "$(changed "$work/k3.log")" -eq 0 ]
no_leftovers "$STATE_FILE"

# 3. A corrupt file: a clear error, and the file is left as it was.
cp "$STATE_FILE" "$work/good.json"
head -c 1000 "$work/good.json" >"$STATE_FILE"
cp "$STATE_FILE" "$work/corrupt.json"
if WRITER=c COUNT=1 ansible-playbook writer.yml >"$work/c.log" 2>&1; then exit 1; fi
grep -q "is not valid JSON .*it was left untouched" "$work/c.log"
cmp "$STATE_FILE" "$work/corrupt.json"
cp "$work/good.json" "$STATE_FILE"  # restored by the user, the next run converges
WRITER=c COUNT=1 ansible-playbook writer.yml >"$work/c2.log" 2>&1
[ "$(changed "$work/c2.log")" -eq 1 ] && [ "$(count_resources "$STATE_FILE")" -eq 481 ]

# 4. A full disk: a clear error; the file as it was, no temporary file left.
mkdir "$work/full"
mount -t tmpfs -o size=64k "faults-workspace" "$work/full"
WRITER=f COUNT=2 STATE_FILE=$work/full/state.json ansible-playbook writer.yml >"$work/f.log" 2>&1
cp "$work/full/state.json" "$work/full-before.json"
if WRITER=f COUNT=3 VALUE_SIZE=90000 STATE_FILE=$work/full/state.json ansible-playbook writer.yml >"$work/f2.log" 2>&1; then exit 1; fi
grep -q "cannot write the state file $work/full/state.json: .*No space left on device" "$work/f2.log"
cmp "$work/full/state.json" "$work/full-before.json"
no_leftovers "$work/full/state.json"
mount -o remount,size=1m "$work/full"
WRITER=f COUNT=3 VALUE_SIZE=90000 STATE_FILE=$work/full/state.json ansible-playbook writer.yml >"$work/f3.log" 2>&1
[ "$(changed "$work/f3.log")" -eq 1 ] && [ "$(count_resources "$work/full/state.json")" -eq 3 ]
WRITER=f COUNT=3 VALUE_SIZE=90000 STATE_FILE=$work/full/state.json ansible-playbook writer.yml >"$work/f4.log" 2>&1
[ "$(changed "$work/f4.log")" -eq 0 ]
