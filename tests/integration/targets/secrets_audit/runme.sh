#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Secrets audit: the playbooks that handle secrets run at -vvvv with --diff, in check mode
# and for real, through their failure paths, with three more outputs besides the terminal:
# a callback that dumps every result it receives (callback_plugins/audit_dump.py), the junit
# callback and the log file; one more run with the minimal stdout callback. No secret value
# may appear in any of them. A canary printed on purpose must appear in all of them, so the
# search is shown to find what is there. Then the state file: mode 0600, secrets kept.
set -euo pipefail
trap 'echo "runme.sh failed at line $LINENO" >&2' ERR

AUDIT_DIR=$(mktemp -d "${OUTPUT_DIR:-/tmp}/secrets-audit.XXXXXX")
export AUDIT_DIR
out=$AUDIT_DIR/out
mkdir -p "$out/junit"
pids=()
pool=${DEVINFRA_TEST_POOL:-devinfra-test}
uri=${DEVINFRA_TEST_URI:-qemu:///system}
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for v in ${AUDIT_VOLUME:-}; do virsh -q -c "$uri" vol-delete --pool "$pool" "$v" >/dev/null 2>&1 || true; done
  rm -rf "$AUDIT_DIR"
}
trap cleanup EXIT

rand() { python3 -c 'import secrets, sys; print(sys.argv[1] + secrets.token_hex(12))' "$1"; }

# The secrets, random per run (DVTSECRET: scripts/test.sh also searches every integration output for it).
export AUDIT_CANARY; AUDIT_CANARY=$(rand CANARY-)
export CODER_AGENT_URL=https://coder.example.com
export CODER_WORKSPACE_OWNER=jane CODER_WORKSPACE_OWNER_NAME="Jane Doe" CODER_WORKSPACE_OWNER_EMAIL=jane@example.com
export CODER_WORKSPACE_OWNER_SESSION_TOKEN; CODER_WORKSPACE_OWNER_SESSION_TOKEN=$(rand DVTSECRET-session-)
export CODER_WORKSPACE_OWNER_OIDC_ACCESS_TOKEN; CODER_WORKSPACE_OWNER_OIDC_ACCESS_TOKEN=$(rand DVTSECRET-oidc-)
export CODER_WORKSPACE_OWNER_SSH_PRIVATE_KEY; CODER_WORKSPACE_OWNER_SSH_PRIVATE_KEY=$(rand DVTSECRET-sshkey-)
export CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github; CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github=$(rand DVTSECRET-github-)
export AUDIT_METADATA_SECRET; AUDIT_METADATA_SECRET=$(rand DVTSECRET-metadata-)
export AUDIT_GCS_TOKEN; AUDIT_GCS_TOKEN=$(rand DVTSECRET-gcs-)
export AUDIT_GCS_READ_TOKEN; AUDIT_GCS_READ_TOKEN=$(rand DVTSECRET-gcsread-)
export GCP_ACCESS_TOKEN=$AUDIT_GCS_TOKEN  # the storage modules' fallback for access_token
oauth_token=$(rand DVTSECRET-oauth-)  # what the emulator's token endpoint issues for a service account key
export AUDIT_URL_PASSWORD; AUDIT_URL_PASSWORD=$(rand DVTSECRET-urlpw-)
export AUDIT_FIRSTBOOT_SECRET; AUDIT_FIRSTBOOT_SECRET=$(rand DVTSECRET-firstboot-)
firstboot_rotated=$(rand DVTSECRET-firstboot-rotated-)
claim_token=$(python3 -c "import uuid; print(uuid.uuid4())") # coderd's agent tokens are UUIDs; searched for in every output below by value
# shellcheck disable=SC2016
export CODER_AGENT_SCRIPT_linux_amd64='#!/bin/sh
exec /tmp/coder agent --url ${ACCESS_URL} --auth ${AUTH_TYPE}'

# Service account keys (real RSA keys): one for the emulator's token endpoint, one whose
# token endpoint does not answer. Their key ids and three lines of each key's body are secrets.
make_key() {
  python3 - "$1" "$2" <<'PY'
import json, secrets, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
document = {
    "type": "service_account", "project_id": "audit-project", "private_key_id": "keyid-" + secrets.token_hex(16),
    "private_key": pem, "client_email": "audit@audit-project.iam.gserviceaccount.com", "client_id": "1",
    "token_uri": sys.argv[2],
}
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump(document, handle)
print(document["private_key_id"])
print("\n".join(pem.splitlines()[2:5]))
PY
  chmod 0600 "$1"
}

# The storage emulator of this collection.
server=
for base in ${ANSIBLE_COLLECTIONS_PATH//:/ } $(ansible-config dump 2>/dev/null | sed -nE "s/^COLLECTIONS_PATHS.*= \[(.*)\]/\1/p" | tr -d "',"); do
  [ -f "$base/ansible_collections/devinfra/providers/tests/gcs_emulator/server.py" ] && server=$base/ansible_collections/devinfra/providers/tests/gcs_emulator/server.py && break
done
[ -n "$server" ]
python3 "$server" --port 0 --port-file "$AUDIT_DIR/gcs.port" --token "$AUDIT_GCS_TOKEN" --read-token "$AUDIT_GCS_READ_TOKEN" --oauth-token "$oauth_token" \
  --bucket audit-bucket --topic projects/audit-project/topics/uploads --topic projects/audit-project/topics/other --lifetime 900 >/dev/null 2>&1 &
pids+=($!)
# A loopback HTTP server for the volume's content (it ignores the basic auth it is sent).
mkdir "$AUDIT_DIR/serve"
head -c 65536 /dev/urandom >"$AUDIT_DIR/serve/image.img"
python3 -u -m http.server --bind 127.0.0.1 --directory "$AUDIT_DIR/serve" 0 >"$AUDIT_DIR/http.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  [ -s "$AUDIT_DIR/gcs.port" ] && grep -q ' port ' "$AUDIT_DIR/http.log" && break
  sleep 0.1
done
export AUDIT_GCS_URL; AUDIT_GCS_URL=http://127.0.0.1:$(cat "$AUDIT_DIR/gcs.port")
mapfile -t key_secrets < <(make_key "$AUDIT_DIR/service-account.json" "$AUDIT_GCS_URL/token"; make_key "$AUDIT_DIR/service-account-dead.json" http://127.0.0.1:9/token)
export AUDIT_HTTP_PORT; AUDIT_HTTP_PORT=$(sed -nE 's/.* port ([0-9]+) .*/\1/p' "$AUDIT_DIR/http.log" | head -1)
export AUDIT_LIBVIRT_URI=$uri AUDIT_POOL=$pool
export AUDIT_VOLUME; AUDIT_VOLUME=h1f-audit-$(rand "").img
AUDIT_VOLUME=${AUDIT_VOLUME:0:30}.img

# One run: terminal output, the log file, the dump callback and junit, all kept in $out.
run() {
  local name=$1
  shift
  local rc=0
  ANSIBLE_CALLBACK_PLUGINS="$PWD/callback_plugins" ANSIBLE_CALLBACKS_ENABLED=audit_dump,ansible.builtin.junit \
    AUDIT_DUMP_FILE="$out/$name.jsonl" JUNIT_OUTPUT_DIR="$out/junit" ANSIBLE_LOG_PATH="$out/$name.ansible.log" \
    ansible-playbook -vvvv --diff "$@" >"$out/$name.out" 2>&1 || rc=$?
  echo "$name: rc=$rc"
  # A failed run shows where, without the secrets: grep -v drops lines holding one.
  [ "$rc" -eq 0 ] || grep -E 'fatal|ERROR|FAILED' "$out/$name.out" | grep -vF -e "$AUDIT_GCS_TOKEN" -e "$AUDIT_URL_PASSWORD" | tail -20 >&2
  return "$rc"
}
changed() { sed -nE 's/^localhost +: ok=[0-9]+ +changed=([0-9]+).*/\1/p' "$out/$1.out" | tail -1; }

for pb in workspace storage libvirt; do
  run "$pb-check1" "$pb.yml" --check
  run "$pb-apply1" "$pb.yml"
  run "$pb-apply2" "$pb.yml"
  run "$pb-check2" "$pb.yml" --check
  ANSIBLE_STDOUT_CALLBACK=ansible.builtin.minimal run "$pb-minimal" "$pb.yml" --check
  [ "$(changed "$pb-apply1")" -gt 0 ]
  [ "$(changed "$pb-apply2")" -eq 0 ]
done
# The first-boot contents with another password: changed, and the diff (at -vvvv, --diff) shows
# neither password (the old one is read back from the files it replaces, no no_log masks it).
AUDIT_FIRSTBOOT_SECRET=$firstboot_rotated run libvirt-rotated libvirt.yml
[ "$(changed libvirt-rotated)" -eq 3 ]
grep -q 'user_data_sha256' "$out/libvirt-rotated.out"
# The invocation (libvirt.yml asks for it) is there, in the terminal at -vvvv and in the dump, masked.
grep -q 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER' "$out/libvirt-rotated.out"
grep -q '"user_data": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"' "$out/libvirt-rotated.jsonl"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resources"]["workspace_agent.main"]["computed"]["token"])' "$AUDIT_DIR/workspace-state.json")
# coderd claiming a prebuilt workspace passes the running agent's token: it becomes the token.
env "CODER_RUNNING_WORKSPACE_AGENT_TOKEN_$(printf '' | sha256sum | cut -d' ' -f1)=$claim_token" bash -c "$(declare -f run); out='$out'; run workspace-claim workspace.yml"
grep -qF "$claim_token" "$AUDIT_DIR/workspace-state.json"

# The outputs exist and hold the results, the canary is in each kind.
ls "$out"/junit/*.xml >/dev/null
for f in "$out"/workspace-apply1.out "$out"/workspace-apply1.jsonl "$out"/workspace-apply1.ansible.log "$out"/workspace-minimal.out "$(find "$out/junit" -name "workspace-*.xml" | head -1)"; do
  grep -qF "$AUDIT_CANARY" "$f" || { echo "the canary is missing from $f: the search would miss a leak there" >&2; exit 1; }
done
grep -q '"event": "failed"' "$out/storage-apply1.jsonl"
grep -q '"event": "diff"' "$out/workspace-apply1.jsonl"
grep -qF "agent id " "$out/workspace-apply1.jsonl"
grep -q 'Cannot obtain an access token' "$out/storage-apply1.out"
grep -q 'service account key: created' "$out/storage-apply1.out"  # the key was exchanged for a token

# No secret anywhere.
secrets=("$token" "$claim_token" "$CODER_WORKSPACE_OWNER_SESSION_TOKEN" "$CODER_WORKSPACE_OWNER_OIDC_ACCESS_TOKEN"
  "$CODER_WORKSPACE_OWNER_SSH_PRIVATE_KEY" "$CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github" "$AUDIT_METADATA_SECRET"
  "$AUDIT_GCS_TOKEN" "$AUDIT_GCS_READ_TOKEN" "$oauth_token" "$AUDIT_URL_PASSWORD" "$AUDIT_FIRSTBOOT_SECRET" "$firstboot_rotated" "${key_secrets[@]}")
[ "${#secrets[@]}" -eq 21 ]
leaks=0
for secret in "${secrets[@]}"; do
  [ "${#secret}" -ge 20 ]
  if grep -rlF -- "$secret" "$out"; then
    echo "LEAK: a secret (${secret:0:8}...) is in the files above" >&2
    leaks=$((leaks + 1))
  fi
done
[ "$leaks" -eq 0 ]

# The state file: 0600 (and its lock), holding what later runs need (documented).
[ "$(stat -c %a "$AUDIT_DIR/workspace-state.json")" = 600 ]
[ "$(stat -c %a "$AUDIT_DIR/workspace-state.json.lock")" = 600 ]
grep -qF "$CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github" "$AUDIT_DIR/workspace-state.json"
grep -qF "$AUDIT_METADATA_SECRET" "$AUDIT_DIR/workspace-state.json"
grep -qF "$claim_token" "$AUDIT_DIR/user-data"  # the seed follows the token
echo "secrets audit: ${#secrets[@]} secrets, $(find "$out" -type f | wc -l) output files, no leak"
