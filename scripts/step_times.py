# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print where a test.sh run's time went, or the order its integration lanes take targets in.

    step_times.py STEP_TIMES TESTING_RST [QEMU_LOG_DIR]
    step_times.py --longest-first TESTING_RST TARGET...

STEP_TIMES holds one "name<TAB>started<TAB>seconds" line per step (test.sh writes it, the
last line is the total). Each step's row gives its wall time, the guests started during it
and the seconds of it during which at least one guest's QEMU process ran (read from libvirt's per-domain
logs, whose "starting up" and "shutting down" lines carry timestamps: under TCG a test
guest's run is mostly its boot). A step that took more than a minute longer than in the
reference table of TESTING_RST (between the comments "step times: begin" and "step times:
end") is marked "GREW", one the reference does not list "new".
"""

from __future__ import annotations

import datetime
import glob
import os
import re
import sys

GROWTH_LIMIT = 60
NEW_TARGET_SECONDS = 120
QEMU_EVENT = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\+0000: (starting up|shutting down)")


def read_steps(path: str) -> list[tuple[str, int, int]]:
    steps = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            name, started, seconds = line.rstrip("\n").split("\t")
            steps.append((name, int(started), int(seconds)))
    return steps


def read_reference(path: str) -> dict[str, int]:
    """The reference table: "name seconds ..." lines between the two marker comments."""
    reference: dict[str, int] = {}
    inside = False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if "step times: begin" in line:
                inside = True
            elif "step times: end" in line:
                break
            elif inside:
                fields = line.split()
                if len(fields) >= 2 and fields[1].isdigit():
                    reference[fields[0]] = int(fields[1])
    return reference


def guest_runs(log_dir: str, run_end: float) -> list[tuple[float, float]]:
    """(start, end) epoch seconds of every QEMU process libvirt's logs record."""
    runs = []
    for path in glob.glob(os.path.join(log_dir, "*.log")):
        started = None
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    match = QEMU_EVENT.match(line)
                    if not match:
                        continue
                    when = datetime.datetime.strptime(match.group(1)[:19], "%Y-%m-%d %H:%M:%S")
                    epoch = when.replace(tzinfo=datetime.timezone.utc).timestamp()
                    if match.group(2) == "starting up":
                        if started is not None:
                            runs.append((started, epoch))
                        started = epoch
                    elif started is not None:
                        runs.append((started, epoch))
                        started = None
        except OSError:
            continue
        if started is not None:
            runs.append((started, run_end))
    return runs


def covered_seconds(runs: list[tuple[float, float]], start: float, end: float) -> float:
    """Seconds of [start, end] during which at least one guest ran (runs overlap)."""
    covered = 0.0
    reached = start
    for run_start, run_end in sorted(runs):
        begins, ends = max(run_start, reached), min(run_end, end)
        if ends > begins:
            covered += ends - begins
            reached = ends
    return covered


def longest_first(reference: dict[str, int], targets: list[str]) -> list[str]:
    return sorted(targets, key=lambda target: -reference.get(f"integration-{target}", NEW_TARGET_SECONDS))


def main(argv: list[str]) -> int:
    if argv[1] == "--longest-first":
        print("\n".join(longest_first(read_reference(argv[2]), argv[3:])))
        return 0
    steps = read_steps(argv[1])
    reference = read_reference(argv[2])
    log_dir = argv[3] if len(argv) > 3 else "/var/log/libvirt/qemu"
    total = next((s for s in steps if s[0] == "total"), None)
    run_end = total[1] + total[2] if total else max(s[1] + s[2] for s in steps)
    runs = guest_runs(log_dir, run_end)
    print(f"{'step':<48} {'seconds':>7} {'m:ss':>6} {'guests':>6} {'guest-s':>7}  vs testing.rst")
    all_guest_seconds = 0.0
    for name, started, seconds in steps:
        end = started + seconds
        if name == "total":
            starts = sum(1 for run_start, _run_end in runs if total and total[1] <= run_start <= end)
            guest_seconds = all_guest_seconds
        else:
            starts = sum(1 for run_start, _run_end in runs if started <= run_start <= end)
            guest_seconds = covered_seconds(runs, started, end)
            all_guest_seconds += guest_seconds
        before = reference.get(name)
        if before is None:
            mark = "new"
        elif seconds - before > GROWTH_LIMIT:
            mark = f"GREW by {seconds - before} s (was {before} s)"
        else:
            mark = f"{seconds - before:+d} s"
        print(f"{name:<48} {seconds:>7} {seconds // 60:>3}:{seconds % 60:02d} {starts:>6} {guest_seconds:>7.0f}  {mark}")
    if total and total[2]:
        print(f"guests ran during {all_guest_seconds:.0f} s in all, {100 * all_guest_seconds / total[2]:.0f}% of the run's {total[2]} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
