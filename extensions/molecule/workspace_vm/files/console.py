# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Open a domain's console as `virsh console` does (virDomainOpenConsole on its first console),
press Enter and print what comes back until EXPECTED shows or 60 seconds pass.

    console.py URI DOMAIN EXPECTED

Exit status 0 when EXPECTED was read, 1 otherwise (what was read is printed either way).
"""

from __future__ import annotations

import sys
import time

import libvirt


def main(uri: str, name: str, expected: str) -> int:
    # As virsh does: the console's stream is served by an event loop (without one the client
    # reads what arrives only when it next sends). A timer wakes the loop twice a second.
    libvirt.virEventRegisterDefaultImpl()
    libvirt.virEventAddTimeout(500, lambda *_: None, None)
    conn = libvirt.open(uri)
    received = b""
    try:
        stream = conn.newStream(libvirt.VIR_STREAM_NONBLOCK)
        conn.lookupByName(name).openConsole(None, stream, 0)
        deadline = time.monotonic() + 60
        next_enter = 0.0
        while expected.encode() not in received and time.monotonic() < deadline:
            # Enter again every 10 s: the getty may still be starting when the first one is sent.
            if time.monotonic() >= next_enter:
                stream.send(b"\r")
                next_enter = time.monotonic() + 10
            libvirt.virEventRunDefaultImpl()
            while (data := stream.recv(4096)) not in (-2, b""):
                received += data
        stream.abort()
    finally:
        conn.close()
    sys.stdout.write(received.decode(errors="replace"))
    return 0 if expected.encode() in received else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
