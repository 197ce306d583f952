# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A loopback HTTP server for the faults_libvirt target: serves the files of a directory with
their full Content-Length, and on request misbehaves:

  GET /<file>?cut=N      sends the headers and N bytes of the body, then closes the connection
  GET /<file>?rate=BPS   sends the body at BPS bytes per second (a slow download to interrupt)

Run: python fault_http.py --dir DIR --port-file FILE --pid-file FILE --lifetime SECONDS
"""

from __future__ import annotations

import argparse
import http.server
import os
import socket
import sys
import threading
import time
from urllib.parse import parse_qs, unquote, urlsplit

CHUNK = 64 * 1024


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    directory = "."

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        pass

    def do_GET(self):  # pylint: disable=invalid-name
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        path = os.path.join(self.directory, os.path.basename(unquote(url.path)))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        cut = int(query["cut"][0]) if "cut" in query else None
        rate = float(query["rate"][0]) if "rate" in query else None
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        sent = 0
        limit = size if cut is None else min(cut, size)
        with open(path, "rb") as handle:
            while sent < limit:
                data = handle.read(min(CHUNK, limit - sent))
                if not data:
                    break
                try:
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:
                    return  # the client went away
                sent += len(data)
                if rate:
                    time.sleep(len(data) / rate)
        if cut is not None:
            # Close mid-body: the client has the headers and part of what they announced.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--pid-file", required=True)
    parser.add_argument("--lifetime", type=float, default=900.0, help="stop after this many seconds, so a dead test run leaves nothing")
    args = parser.parse_args()
    Handler.directory = args.dir
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.pid_file, "w", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")
    with open(args.port_file + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(f"{server.server_address[1]}\n")
    os.replace(args.port_file + ".tmp", args.port_file)
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    server.serve_forever(poll_interval=0.1)
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
