# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The volumes a content upload puts next to volume ``X`` while it runs, named after the run:

- ``X.incomplete-<run>``: an empty marker that says ``X`` is being filled (it stays when the
  run dies before it can clean up, so the next run knows ``X`` is incomplete);
- ``X.replacement-<run>``: the new content of a replacement, copied into ``X`` once complete.

``<run>`` is ``<host>-<pid>-<start>``: a key of the kernel boot and pid namespace the module
runs in, its process id and the process's start time. A run on the same host and namespace
can tell whether the owner is still running (``/proc/<pid>/stat``); a run elsewhere cannot,
and leaves the volume alone. A user's volume never matches these names by accident, and a
marker that holds data is never taken for one of ours."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import typing as t

__all__ = ["INCOMPLETE", "MARKER_MAX_BYTES", "STAGING", "Leftover", "leftovers", "owner_state", "run_id", "volume_name"]

INCOMPLETE = "incomplete"
STAGING = "replacement"
# The largest marker taken for ours: empty, or the smallest volume a pool gives (an LVM extent).
MARKER_MAX_BYTES = 4 << 20

_RUN = re.compile(r"(?P<host>[0-9a-f]{12})-(?P<pid>[0-9]{1,10})-(?P<start>[0-9]{1,20})")


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat);
    None when there is no such process, or only what is left of it (a zombie)."""
    stat = _read(f"/proc/{pid}/stat")
    fields = stat.rpartition(")")[2].split()  # the command name may hold spaces and parentheses
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return fields[19]


def _host_key() -> str | None:
    """The boot and pid namespace this process runs in; None where /proc cannot say."""
    boot = _read("/proc/sys/kernel/random/boot_id")
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    if not boot:
        return None
    return hashlib.sha256(f"{boot}\0{namespace}".encode()).hexdigest()[:12]


def run_id() -> str | None:
    """This run's ``<host>-<pid>-<start>``, or None where the process cannot be told apart."""
    host, start = _host_key(), _process_start(os.getpid())
    return f"{host}-{os.getpid()}-{start}" if host and start else None


def volume_name(volume: str, purpose: str, run: str) -> str:
    return f"{volume}.{purpose}-{run}"


def owner_state(run: str) -> str:
    """``running``, ``gone`` (the process ended: its leftovers can go) or ``unknown`` (another
    host or namespace: nothing here can tell)."""
    match = _RUN.fullmatch(run)
    mine = _host_key()
    if match is None or mine is None or match["host"] != mine:
        return "unknown"
    return "running" if _process_start(int(match["pid"])) == match["start"] else "gone"


@dataclasses.dataclass(frozen=True)
class Leftover:
    name: str  # the volume's name
    purpose: str  # INCOMPLETE or STAGING
    run: str


def leftovers(volume: str, names: t.Iterable[str]) -> list[Leftover]:
    """The markers and staging volumes of ``volume`` among the pool's volume ``names``."""
    pattern = re.compile(rf"{re.escape(volume)}\.(?P<purpose>{INCOMPLETE}|{STAGING})-(?P<run>{_RUN.pattern})")
    found = []
    for name in sorted(names):
        match = pattern.fullmatch(name)
        if match:
            found.append(Leftover(name, match["purpose"], match["run"]))
    return found
