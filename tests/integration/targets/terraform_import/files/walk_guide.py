# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Walk a guide's steps as printed, in a directory, and compare what they print with the page.

    python3 walk_guide.py PAGE MARKER WORKDIR MAP_JSON [RECORD]

The steps are the code blocks between the page's comments ``.. MARKER start`` and ``.. MARKER end``,
in order, each with the guide's names replaced by this run's (MAP_JSON: {"guide text": "run text"}):

- a block with a ``:caption:`` names a file of WORKDIR: written from the block when it is not there
  yet (a file the reader writes), else compared with it (a file the reader was given or a step wrote;
  a block shortened with ``...`` is never written);
- a ``console`` block: each ``$`` line (with its ``\\`` continuations) is a command, run with bash in
  WORKDIR (after the block's and earlier blocks' ``export`` lines); ``echo $?`` answers the previous
  command's exit status. The lines below a command are what it printed; none: it printed nothing.

Compared: the shown lines, in order, are lines of what was printed (or of the file), blank lines and
``...`` aside, trailing spaces and the ``****`` of a banner ignored. Prints a JSON report: each command
with its exit status and each difference (and the start of what a command printed when it differs); RECORD, when given, receives every command's whole output,
with this run's names turned back into the guide's (what the page shows is taken from it).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import typing as t

BLOCK = re.compile(r"^\.\. code-block:: (\S+)\n((?:   :\S+:.*\n)*)\n((?:(?:   .*)?\n)*)", re.M)


def _normal(line: str) -> str:
    return re.sub(r" \*{3,}$", "", line.rstrip())


def _missing(shown: list[str], printed: str) -> list[str]:
    """The shown lines that are not, in order, lines of what was printed."""
    lines = [_normal(line) for line in printed.splitlines()]
    at, missing = 0, []
    for wanted in map(_normal, shown):
        if not wanted or wanted.strip() == "...":
            continue
        try:
            at = lines.index(wanted, at) + 1
        except ValueError:
            missing.append(wanted)
    return missing


def _commands(body: list[str]) -> list[tuple[str, list[str]]]:
    """(command, the lines shown below it) of a console block."""
    steps: list[tuple[str, list[str]]] = []
    continued = False
    for line in body:
        if continued:
            steps[-1] = (steps[-1][0] + "\n" + line, steps[-1][1])
        elif line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        continued = bool(steps) and line.endswith("\\") and not steps[-1][1]
    return steps


def _swap(text: str, mapping: dict[str, str]) -> str:
    for old in sorted(mapping, key=len, reverse=True):
        text = text.replace(old, mapping[old])
    return text


def main(page: str, marker: str, workdir: str, mapping: dict[str, str], record: str | None) -> dict[str, t.Any]:
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    start, end = text.index(f"\n.. {marker} start\n"), text.index(f"\n.. {marker} end\n")
    back = {new: old for old, new in mapping.items()}
    report: dict[str, t.Any] = {"commands": [], "differences": []}
    recorded: list[str] = []
    status, exports = 0, ""
    for match in BLOCK.finditer(text[start:end]):
        language, options, raw = match.groups()
        body = [line[3:] for line in _swap(raw, mapping).rstrip("\n").split("\n")]
        caption = re.search(r":caption: (\S+)", options)
        if caption:
            path = f"{workdir}/{caption.group(1)}"
            try:
                with open(path, encoding="utf-8") as handle:
                    missing = _missing(body, handle.read())
            except FileNotFoundError:
                if any(line.strip() == "..." for line in body):
                    missing = ["(the file is not there)"]  # a shortened file is one a step writes
                else:
                    with open(path, "w", encoding="utf-8") as handle:
                        handle.write("\n".join(body) + "\n")
                    missing = []
            report["differences"] += [f"{caption.group(1)}: {line}" for line in missing]
            continue
        if language != "console":
            continue
        for command, shown in _commands(body):
            if command == "echo $?":
                printed = f"{status}\n"
            else:
                started = time.monotonic()
                ran = subprocess.run(["bash", "-c", exports + command], cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False, timeout=600)
                printed, status = ran.stdout.decode("utf-8", "replace"), ran.returncode
                report["commands"].append({"command": command, "rc": status, "seconds": round(time.monotonic() - started, 1)})
                if command.startswith("export ") and status == 0:
                    exports += command + "\n"
            recorded.append(f"$ {_swap(command, back)}\n{_swap(printed, back)}")
            missing = _missing(shown, printed) if any(line.strip() for line in shown) else printed.splitlines()
            report["differences"] += [f"{command}: {line}" for line in missing]
            if missing:
                report.setdefault("printed", {})[command] = printed.splitlines()[:60]
    if record:
        with open(record, "w", encoding="utf-8") as handle:
            handle.write("\n".join(recorded))
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)))
