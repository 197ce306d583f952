#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a template-style playbook as a provisioner would: in check mode, for real, again
# (nothing changes), in check mode again; every run at -vvvv with --diff. Then checks
# the result, and that no secret appears in any output (this script's included: no xtrace).
set -euo pipefail
trap 'echo "runme.sh failed at line $LINENO" >&2' ERR

WORKSPACE_TEST_DIR=$(mktemp -d "${OUTPUT_DIR:-/tmp}/workspace-template.XXXXXX")
export WORKSPACE_TEST_DIR
trap 'rm -rf "$WORKSPACE_TEST_DIR"' EXIT

# What coderd's provisioner sets (provisioner/terraform/provision.go).
export CODER_AGENT_URL=https://coder.example.com:8443/path
export CODER_WORKSPACE_TRANSITION=start
export CODER_WORKSPACE_ID=7f3a1d52-1c9e-4b9a-9c55-0f6f0d1e9a11
export CODER_WORKSPACE_NAME=dev
export CODER_WORKSPACE_OWNER=jane
export CODER_WORKSPACE_OWNER_NAME="Jane Doe"
export CODER_WORKSPACE_OWNER_EMAIL=jane@example.com
export CODER_WORKSPACE_OWNER_GROUPS='["developers"]'
export CODER_WORKSPACE_OWNER_RBAC_ROLES='[{"name":"member","org_id":"o1"}]'
export CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY="ssh-ed25519 AAAApublic jane"
# The secrets start with DVTSECRET: scripts/test.sh searches every integration output for it.
ssh_private_key=DVTSECRET-ssh-private-key-4f1c2a
session_token=DVTSECRET-session-token-8d2e7b
oidc_token=DVTSECRET-oidc-token-1a9c3f
github_token=DVTSECRET-github-token-6b0d4e
export CODER_WORKSPACE_OWNER_SSH_PRIVATE_KEY=$ssh_private_key
export CODER_WORKSPACE_OWNER_SESSION_TOKEN=$session_token
export CODER_WORKSPACE_OWNER_OIDC_ACCESS_TOKEN=$oidc_token
export CODER_EXTERNAL_AUTH_ACCESS_TOKEN_github=$github_token
# The placeholders are literal: the provider substitutes them.
# shellcheck disable=SC2016
export CODER_AGENT_SCRIPT_linux_amd64='#!/bin/sh
curl -fsSL ${ACCESS_URL}bin/coder-linux-amd64 -o /tmp/coder && CODER_AGENT_AUTH=${AUTH_TYPE} exec /tmp/coder agent'
# The user's answers: region "us" (sha256 of the parameter name in the variable name).
region_hash=$(printf %s region | sha256sum | cut -d' ' -f1)
export "CODER_PARAMETER_${region_hash}=us"

state="$WORKSPACE_TEST_DIR/workspace-state.json"
run() {
  local name=$1
  shift
  ansible-playbook -vvvv --diff template.yml "$@" 2>&1 | tee "$WORKSPACE_TEST_DIR/$name.log"
  return "${PIPESTATUS[0]}"
}
changed() {
  sed -nE 's/^localhost +: ok=[0-9]+ +changed=([0-9]+).*/\1/p' "$WORKSPACE_TEST_DIR/$1.log" | tail -1
}

# The plan callback: the check run's plan is what the real run then does.
plan() {
  local name=$1
  shift
  ANSIBLE_CALLBACKS_ENABLED=devinfra.providers.plan DEVINFRA_PLAN_FILE="$WORKSPACE_TEST_DIR/$name.plan.json" run "$name" "$@"
}
# Compared by address, operation and changed paths: a child of a new agent is addressed by the
# agent's name in the check run too (the agent's hidden result publishes its planned id).
plan_ops() {
  python3 -c 'import json,sys; print([(c["host"], c["address"], c["operation"], c["changed_paths"]) for c in json.load(open(sys.argv[1]))["resource_changes"]])' "$WORKSPACE_TEST_DIR/$1.plan.json"
}
# The gate CI runs on a plan: its exit status.
gate() {
  ANSIBLE_CALLBACKS_ENABLED=devinfra.providers.plan DEVINFRA_PLAN_FILE="$WORKSPACE_TEST_DIR/$1.plan.json" \
    ansible-playbook devinfra.providers.plan_gate 2>&1 | tee "$WORKSPACE_TEST_DIR/$1.gate.log"
  return "${PIPESTATUS[0]}"
}

plan check1 --check
[ "$(changed check1)" -gt 0 ]
# The token's copy (another collection's task) is the one change the plan cannot explain.
grep -qxF '    ? ansible.builtin.copy  changed (no plan detail)' "$WORKSPACE_TEST_DIR/check1.log"
grep -qE '^Plan: [1-9][0-9]* to add, 0 to change, 0 to destroy, 1 unexplained\.$' "$WORKSPACE_TEST_DIR/check1.log"
[ ! -e "$state" ]  # check mode writes nothing
# Its result is hidden (token), its plan is not; it is addressed as Terraform did.
grep -qxF '    + coder_agent.main  (workspace_agent.main)' "$WORKSPACE_TEST_DIR/check1.log"
if grep -q '^Not previewed:' "$WORKSPACE_TEST_DIR/check1.log"; then exit 1; fi  # the set_fact skipped in check mode changes nothing
gate_status=0
gate check1 || gate_status=$?
[ "$gate_status" -eq 2 ]
grep -qF 'The plan is not \"No changes.\"' "$WORKSPACE_TEST_DIR/check1.gate.log"

plan apply1
[ "$(changed apply1)" -gt 0 ]
[ "$(plan_ops check1)" = "$(plan_ops apply1)" ]  # the plan lists exactly what the run changed
[ "$(stat -c %a "$state")" = 600 ]
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resources"]["workspace_agent.main"]["computed"]["token"])' "$state")
[ "${#token}" -eq 36 ]

run apply2
[ "$(changed apply2)" -eq 0 ]

plan check2 --check
[ "$(changed check2)" -eq 0 ]
grep -qxF 'No changes. Your infrastructure matches the configuration.' "$WORKSPACE_TEST_DIR/check2.log"
gate check2

ansible-playbook -vvvv verify.yml 2>&1 | tee "$WORKSPACE_TEST_DIR/verify.log"

# Forged plan entries stand in for no hidden change.
echo '{"summary": {"add": 0, "change": 0, "destroy": 0, "unexplained": 0}}' > "$WORKSPACE_TEST_DIR/forge.plan.json"  # a stale plan
ANSIBLE_CALLBACKS_ENABLED=devinfra.providers.plan DEVINFRA_PLAN_FILE="$WORKSPACE_TEST_DIR/forge.plan.json" \
  ansible-playbook --check forge.yml 2>&1 | tee "$WORKSPACE_TEST_DIR/forge.log"
grep -qxF '    + workspace_agent.forged' "$WORKSPACE_TEST_DIR/forge.log"
grep -qxF 'Plan: 1 to add, 0 to change, 0 to destroy, 1 unexplained.' "$WORKSPACE_TEST_DIR/forge.log"
grep -qF "task 'An entry shown after it \u001b[2K\u000dPlan: 0 to add" "$WORKSPACE_TEST_DIR/forge.log"  # named, printable
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["summary"] == {"add": 1, "change": 0, "destroy": 0, "unexplained": 1, "unpreviewed": 0}' "$WORKSPACE_TEST_DIR/forge.plan.json"

# A changed ForceNew argument replaces the agent: a new id, reported as changed.
old_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resources"]["workspace_agent.main"]["computed"]["id"])' "$state")
ansible-playbook -vvvv --diff replace.yml 2>&1 | tee "$WORKSPACE_TEST_DIR/replace.log"
new_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resources"]["workspace_agent.main"]["computed"]["id"])' "$state")
[ "$old_id" != "$new_id" ]
new_token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resources"]["workspace_agent.main"]["computed"]["token"])' "$state")
[ "$new_token" != "$token" ]  # a replaced agent is a new agent, with a new token

# Twenty forks writing one state file at once lose nothing.
for i in $(seq -w 1 20); do echo "fork$i ansible_connection=local ansible_python_interpreter=$(command -v python3)"; done > "$WORKSPACE_TEST_DIR/inventory"
echo "localhost ansible_connection=local" >> "$WORKSPACE_TEST_DIR/inventory"
ANSIBLE_FORKS=20 ansible-playbook -i "$WORKSPACE_TEST_DIR/inventory" forks.yml --limit 'fork*,localhost' 2>&1 | tee "$WORKSPACE_TEST_DIR/forks.log"
[ "$(stat -c %a "$WORKSPACE_TEST_DIR/forks-state.json")" = 600 ]

# No secret in any output, at -vvvv, with --diff.
for secret in "$token" "$new_token" "$ssh_private_key" "$session_token" "$oidc_token" "$github_token"; do
  if grep -rqF -- "$secret" "$WORKSPACE_TEST_DIR"/*.log; then
    echo "secret leaked into: $(grep -rlF -- "$secret" "$WORKSPACE_TEST_DIR"/*.log | xargs)" >&2
    exit 1
  fi
done
# ...while the state file keeps what later runs need.
grep -qF "$new_token" "$state"
grep -qF "$token" "$WORKSPACE_TEST_DIR/user-data"
grep -qF "$github_token" "$state"
