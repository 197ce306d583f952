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

# Nothing of root's or nobody's was followed, and no secret reached any output.
victim_intact
if grep -l "DVT[S]ECRET" "$work"/*.log; then exit 1; fi  # [S]: this line is traced into the log
