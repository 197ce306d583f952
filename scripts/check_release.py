# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release checks scripts/test.sh runs (step docs):

check_release.py licences          every source file names its licence, and the text is there
check_release.py tarball FILE      what ansible-galaxy collection build put in FILE
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPDX = "SPDX-License-Identifier: GPL-3.0-or-later"
LICENCE_TEXTS = ("LICENSES/GPL-3.0-or-later.txt", "COPYING")
SOURCE_SUFFIXES = (".py", ".sh", ".ps1")
# What the collection ships, and what stays in the repository (galaxy.yml build_ignore).
SHIPPED = ("plugins/", "roles/", "playbooks/", "docs/", "meta/", "tests/", "changelogs/", "README.md", "MANIFEST.json", "FILES.json", *LICENCE_TEXTS)
NOT_SHIPPED = ("bench/", "tools/", "scripts/", ".ci/", ".venv/", "tests/output/", ".gitignore")
NOT_SHIPPED += (".mypy_cache/", ".ruff_cache/", ".pytest_cache/", ".hypothesis/")  # tool caches of a working tree


def licences() -> list[str]:
    problems = [f"{text} is missing" for text in LICENCE_TEXTS if not (ROOT / text).is_file()]
    if (ROOT / LICENCE_TEXTS[0]).is_file() and "GNU GENERAL PUBLIC LICENSE" not in (ROOT / LICENCE_TEXTS[0]).read_text()[:200]:
        problems.append(f"{LICENCE_TEXTS[0]} is not the GPL's text")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        return [*problems, f"{ROOT} is not a git checkout: run this from the repository"]
    files = [name for name in listed.stdout.split("\0") if name]
    for name in files:
        path = ROOT / name
        if not name.endswith(SOURCE_SUFFIXES) and name != ".ci/run":
            continue
        text = path.read_text(errors="replace")
        if not text.strip() and path.name == "__init__.py":
            continue  # ansible-test's empty-init: package markers stay empty
        if SPDX not in text[:1000]:
            problems.append(f"{name}: no '{SPDX}' line at the top")
    return problems


def tarball(file: str) -> list[str]:
    with tarfile.open(file) as archive:
        names = archive.getnames()
    problems = [f"{file} lacks {want}" for want in SHIPPED if not any(n == want.rstrip("/") or n.startswith(want) for n in names)]
    problems += [f"{file} holds {name}" for name in names if name.startswith(NOT_SHIPPED)]
    return problems


def main() -> int:
    if sys.argv[1:] == ["licences"]:
        problems = licences()
    elif len(sys.argv) == 3 and sys.argv[1] == "tarball":
        problems = tarball(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    print(f"{sys.argv[1]}: {'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
