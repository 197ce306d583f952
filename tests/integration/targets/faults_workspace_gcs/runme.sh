#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# The workspace state in gs:// (the project's Cloud Storage emulator), written by two
# playbooks x 20 forks at once: no entry is lost, every run agrees on one agent id and
# token, the second round changes nothing, check mode only reads, and neither the access
# token nor the encryption key shows in any output (-vvv). No lock: conditional writes.
# Then a hostile endpoint: a redirected upload carries nothing to the redirect's host, an
# oversized or too deeply nested state object is a clean error.
set -euo pipefail
trap 'echo "runme.sh failed at line $LINENO" >&2' ERR

WORK=$(mktemp -d "${OUTPUT_DIR:-/tmp}/faults-workspace-gcs.XXXXXX")
export WORK
emulator_pid=
elsewhere_pid=
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  if [ -n "$elsewhere_pid" ]; then kill "$elsewhere_pid" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The secrets start with DVTSECRET: scripts/test.sh searches every integration output for it.
token="DVTSECRET$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
key=$(head -c 32 /dev/urandom | base64)
# The emulator of the collection under test (the target runs from a copy without tests/gcs_emulator).
collections_root=$(ansible-galaxy collection list devinfra.providers --format json | python3 -c 'import json,sys; print(next(iter(json.load(sys.stdin))))')
python3 "$collections_root/devinfra/providers/tests/gcs_emulator/server.py" --port 0 --port-file "$WORK/port" --token "$token" --bucket dvt-states --lifetime 900 &
emulator_pid=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
endpoint="http://127.0.0.1:$(cat "$WORK/port")"

export GCP_AUTH_KIND=accesstoken GCP_ACCESS_TOKEN=$token STORAGE_EMULATOR_HOST=$endpoint
export DEVINFRA_WORKSPACE_STATE=gs://dvt-states/team/dev.json DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY=$key
export ANSIBLE_FORKS=20

inventory=$WORK/inventory
for writer in a b; do
  for i in $(seq -w 1 20); do echo "$writer$i ansible_connection=local ansible_python_interpreter=$(command -v python3)"; done
done >"$inventory"

stats() { python3 -c 'import json,sys,urllib.request; print(json.dumps(json.load(urllib.request.urlopen(sys.argv[1] + "/_emulator/stats"))["by_method"]))' "$endpoint"; }
reset_stats() { python3 -c 'import sys,urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/_emulator/stats/reset", method="POST"))' "$endpoint"; }
resources() {
  python3 - "$endpoint" "$token" "$key" <<'PY'
import base64, hashlib, json, sys, urllib.request
endpoint, token, key = sys.argv[1:]
raw = base64.b64decode(key)
request = urllib.request.Request(
    endpoint + "/storage/v1/b/dvt-states/o/team%2Fdev.json?alt=media",
    headers={
        "Authorization": "Bearer " + token,
        "x-goog-encryption-algorithm": "AES256",
        "x-goog-encryption-key": key,
        "x-goog-encryption-key-sha256": base64.b64encode(hashlib.sha256(raw).digest()).decode(),
    },
)
print(" ".join(sorted(json.load(urllib.request.urlopen(request))["resources"])))
PY
}
changed_hosts() { grep -cE '^[ab][0-9]+ +: ok=[0-9]+ +changed=[1-9]' "$1" || true; }
both() {  # both playbooks at once, at -vvv
  local round=$1
  shift
  ROUND=$round ansible-playbook -vvv -i "$inventory" -e writer=a forks.yml "$@" >"$WORK/a-$round.log" 2>&1 &
  local pid_a=$!
  ROUND=$round ansible-playbook -vvv -i "$inventory" -e writer=b forks.yml "$@" >"$WORK/b-$round.log" 2>&1 &
  local pid_b=$!
  wait "$pid_a"
  wait "$pid_b"
}

# 1. Forty forks in two playbooks at once: 40 resources and one agent, nothing lost.
both 1
[ "$(resources | wc -w)" -eq 41 ]
resources | tr ' ' '\n' | grep -qx 'workspace_agent.shared1'
[ "$(sort -u "$WORK"/agent-* | wc -l)" -eq 1 ]  # every run got the one agent's id and token
[ "$(changed_hosts "$WORK/a-1.log")" -eq 20 ] && [ "$(changed_hosts "$WORK/b-1.log")" -eq 20 ]

# 2. Again at once: nothing changes (the kept ids and tokens included), and a no-op costs reads only.
reset_stats
both 1
[ "$(changed_hosts "$WORK/a-1.log")" -eq 0 ] && [ "$(changed_hosts "$WORK/b-1.log")" -eq 0 ]
stats | grep -qv '"POST"'
[ "$(sort -u "$WORK"/agent-* | wc -l)" -eq 1 ]

# 3. Check mode with new resources predicted: reads only.
reset_stats
both 2 --check
stats | grep -qv '"POST"'
[ "$(resources | wc -w)" -eq 41 ]

# 4. A second agent created by both at once, for real: still one agent, one token.
rm -f "$WORK"/agent-*
both 3
[ "$(resources | wc -w)" -eq 42 ]
[ "$(sort -u "$WORK"/agent-* | wc -l)" -eq 1 ]

# 5. Without the key, a run fails with the reason and writes nothing.
if DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY='' ROUND=1 ansible-playbook -i "$inventory" -e writer=a forks.yml --limit a01 >"$WORK/nokey.log" 2>&1; then exit 1; fi
grep -q 'set state_encryption_key to that key' "$WORK/nokey.log"

# 6. A hostile endpoint. A redirect's target: another loopback address, which must receive nothing.
python3 "$collections_root/devinfra/providers/tests/gcs_emulator/server.py" --host 127.0.0.2 --port 0 --port-file "$WORK/elsewhere-port" --lifetime 900 &
elsewhere_pid=$!
for _ in $(seq 100); do [ -s "$WORK/elsewhere-port" ] && break; sleep 0.1; done
elsewhere="http://127.0.0.2:$(cat "$WORK/elsewhere-port")"
before=$(resources)
ansible-playbook -vvv -i localhost, -c local -e "elsewhere=$elsewhere" -e "ansible_python_interpreter=$(command -v python3)" hostile.yml >"$WORK/hostile.log" 2>&1 || {
  tail -n 60 "$WORK/hostile.log" >&2
  exit 1
}
# Nothing reached the redirect's target (no token, no key, no state), and the state is unchanged.
python3 -c 'import json,sys,urllib.request; sys.exit(json.load(urllib.request.urlopen(sys.argv[1] + "/_emulator/stats"))["requests"])' "$elsewhere"
[ "$(resources)" = "$before" ]

# 7. No secret in any output.
for secret in "$token" "$key"; do
  if grep -rqF -- "$secret" "$WORK"/*.log; then
    echo "a secret leaked into: $(grep -rlF -- "$secret" "$WORK"/*.log | xargs)" >&2
    exit 1
  fi
done
echo "faults_workspace_gcs: all checks passed"
