# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A local stand-in for a Coder deployment, as a workspace's agent meets it.

It serves ``/bin/coder-linux-amd64`` (what an agent's init script downloads; here a shell
script that plays the agent) and answers the agent's first call,
``/api/v2/workspaceagents/me/manifest``, recording the ``Coder-Session-Token`` it is called
with as the first 16 hex digits of its sha256 (never the token), one JSON line per request:

    deployment.py ADDRESS PORT LOG
"""

import hashlib
import http.server
import json
import sys

# The agent stand-in. It says on the serial console (the scenario's drop-in sends the unit's
# output there) who runs it with what, then calls the deployment with its token as the real
# agent does, then stays up as an agent would.
AGENT = b"""#!/bin/sh
[ "$1" = agent ] || { echo "usage: $0 agent" >&2; exit 2; }
echo "DVT-AGENT url=${CODER_AGENT_URL} auth=${CODER_AGENT_AUTH} token=$(printf %s "$CODER_AGENT_TOKEN" | sha256sum | cut -c1-16)" \\
  "user=$(id -un) cwd=${DVT_INIT_CWD} passwd=$(getent passwd "$(id -un)" | cut -d: -f6,7)" \\
  "env=$(stat -c %U:%a /etc/coder-agent.env) keys=$(cut -d' ' -f2 "$HOME/.ssh/authorized_keys" | paste -sd,)"
until curl -fsS -o /dev/null -H "Coder-Session-Token: ${CODER_AGENT_TOKEN}" "${CODER_AGENT_URL}api/v2/workspaceagents/me/manifest"; do
  sleep 2
done
echo "DVT-AGENT connected"
exec sleep infinity
"""


class Handler(http.server.BaseHTTPRequestHandler):
    log_path = ""

    def do_GET(self):
        token = self.headers.get("Coder-Session-Token")
        record = {"path": self.path, "token": hashlib.sha256(token.encode()).hexdigest()[:16] if token else None}
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        if self.path == "/bin/coder-linux-amd64":
            self._answer(200, "application/octet-stream", AGENT)
        elif self.path == "/api/v2/workspaceagents/me/manifest" and token:
            self._answer(200, "application/json", b"{}")
        elif self.path == "/api/v2/workspaceagents/me/manifest":
            self._answer(401, "application/json", b'{"message": "Workspace agent token required."}')
        else:
            self._answer(404, "application/json", b'{"message": "Route not found."}')

    def _answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    address, port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    Handler.log_path = log_path
    http.server.ThreadingHTTPServer((address, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
