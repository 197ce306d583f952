# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The end of an integration run with the check-mode harness (tests/check_mode/action/normal.py):
every task where the check run did not predict the real run, by target; fails when there is one,
or, for the whole suite (``--all-targets``), when no task was compared at all (the harness was not
active)."""

from __future__ import annotations

import collections
import json
import sys


def main(path: str, all_targets: bool) -> int:
    try:
        with open(path, encoding="utf-8") as handle:
            entries = [json.loads(line) for line in handle if line.strip()]
    except FileNotFoundError:
        entries = []
    if not entries:
        print(f"no task was compared in check mode ({path} is empty or missing)")
        return 1 if all_targets else 0
    mismatches = [entry for entry in entries if entry.get("why")]
    modules = collections.Counter(entry["module"] for entry in entries)
    print(f"{len(entries)} tasks ran in check mode first ({len(modules)} modules); {len(mismatches)} differ from the real run")
    for entry in sorted(mismatches, key=lambda e: (e["target"], e["path"])):
        print(f"- {entry['target']}: {entry['task']} ({entry['path']}, {entry['module']}): {entry['why']}")
        print(f"    check: {json.dumps(entry['check'], sort_keys=True)}")
        print(f"    real:  {json.dumps(entry['real'], sort_keys=True)}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "--all-targets" in sys.argv[2:]))
