# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release checks scripts/test.sh runs (step docs):

check_release.py licences          every source file names its licence, and the text is there
check_release.py tarball FILE      what ansible-galaxy collection build put in FILE
check_release.py references FILE   no text in FILE points at what a user of the collection does not have
check_release.py extra-docs COLLECTION DIR
                                   every guide of the collection at COLLECTION is listed in its
                                   docs/docsite/extra-docs.yml, and antsibull-docs collection
                                   --dest-dir DIR rendered it
check_release.py rendered DIR      ansible-doc --json (on standard input) documented every plugin of
                                   the plugin directory DIR
check_release.py changelog COLLECTION
                                   changelogs/changelog.yaml has the release galaxy.yml names, it
                                   lists every plugin, module, role and playbook new in it (from
                                   version_added) and nothing else, and CHANGELOG.md is what
                                   antsibull-changelog generates from it
"""

from __future__ import annotations

import ast
import filecmp
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import typing as t

import yaml  # PyYAML comes with ansible-core, in the venv test.sh runs this script with

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPDX = "SPDX-License-Identifier: GPL-3.0-or-later"
LICENCE_TEXTS = ("LICENSES/GPL-3.0-or-later.txt", "COPYING")
SOURCE_SUFFIXES = (".py", ".sh", ".ps1")
# What the collection ships, and what stays in the repository (galaxy.yml build_ignore).
SHIPPED = ("plugins/", "roles/", "playbooks/", "docs/", "meta/", "tests/", "changelogs/", "README.md", "MANIFEST.json", "FILES.json", *LICENCE_TEXTS)
NOT_SHIPPED: tuple[str, ...] = ("bench/", "tools/", "scripts/", ".ci/", ".venv/", "tests/output/", ".gitignore", ".gitattributes", ".ansible/")
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


# Text a user of the built collection cannot follow: the interface document the collection was
# written from ("the seed", its field names and sections), the project's own specification and
# research notes, section signs of those notes, issue numbers of the project's tracker, and paths of
# the machine the collection was built on. Each pattern is (why, regex). cloud-init's NoCloud seed
# (the cidata ISO, "seed ISO", "cloud-init seed", "seed volume") is a product term and matches none.
_SEED = r"(?i)(?<![&*$.{/-])\bseed"
REFERENCES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (why, re.compile(pattern))
    for why, pattern in (
        # (not a YAML anchor or alias, a variable or a name suffix: &seed, *seed, {{ seed }}, web01-seed)
        ("the source interface document ('the seed')", _SEED + r"(?:'s)?[ -](?:fields?|functions?|names?|resources?|interfaces?|sections?|users?)\b"),
        ("the source interface document ('the seed')", _SEED + r"_fields?\b"),
        ("the source interface document ('the seed')", r"(?i)\bthe seed(?:'s)? (?:states?|names?|lists?|says|requires|defines|calls|asks)\b"),
        ("the source interface document ('the seed')", r"(?i)\bthe seed's\b(?! (?:ISO|image|volume|director|disk|label))"),
        ("the source interface document ('the seed')", r"(?i)^\s*(?:\*\s+)?-\s+seed\s*$|\|\s*seed\s*\|"),
        ("the source interface document ('the seed')", r"(?i)\b(?:in|of|from|by|not in) the seed\b(?!'s)(?! (?:ISO|image|volume|director|disk))"),
        ("the source interface document ('the seed')", r"\b(?:[Ii]nterface|[Ss]ection|[Rr]esource) \(?[ABC]\)?(?![\w(-])"),
        ("the project's specification", r"\bSPEC\b|(?i:\b(?:SPEC|STYLE)\.md\b)"),
        ("a section of an internal note", r"§"),
        ("the project's research notes", r"(?i)\bresearch(?:/|:|\s+notes?\b)"),
        ("an internal note", r"(?i)\b(?:libvirt-provider|coder-provider|gcs-and-ansible|style-anchors|libvirt-real-stack)\.md\b"),
        ("a path of the build machine", r"(?<![\w.-])/work/|(?<![\w.-])/tmp/(?:h\d+-|helpers\b|bash_jobs)|(?<![\w.-])/root/(?:dev-tree|scratch|\.cache/)"),
        ("the project's tracker ('the issue')", r"(?i)\b(?:the|this) (?:issue|brief|ticket) (?:asks|says|wants|requires)\b"),
    )
)
# Issue numbers: an issue named by its number alone is the project's own tracker, or an upstream one
# the reader has to guess; one whose URL (.../issues/N, .../pull/N) is on the same line is fine.
ISSUE_NUMBERS = re.compile(r"(?i)\b(?:issues?|bugs?|PRs?|pull requests?)\s*#?(\d+(?:(?:,\s*|,?\s+and\s+)#?\d+)*)|(?<![&\w])#(\d{2,})\b")
TEXT_SUFFIXES = (".py", ".yml", ".yaml", ".md", ".rst", ".txt", ".j2", ".sh", ".cfg", ".ini", ".toml", ".xml", ".json", ".ps1")


def scan_text(name: str, text: str) -> list[str]:
    problems = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        # A phrase may wrap: each line is read with the next one joined to it, and a match counts
        # on the line where it starts.
        joined = line + " " + lines[number].strip() if number < len(lines) else line
        found = {why: m.group(0) for why, pattern in REFERENCES for m in pattern.finditer(joined) if m.start() < len(line)}
        for m in ISSUE_NUMBERS.finditer(joined):
            numbers = re.findall(r"\d+", m.group(1) or m.group(2))
            if m.start() < len(line) and any(not re.search(rf"/(?:issues|pull)/{n}\b", joined) for n in numbers):
                found["an issue number without its URL"] = m.group(0)
        problems += [f"{name}:{number}: {why}: {text.strip()!r}" for why, text in found.items()]
    return problems


# The patterns are checked on every run: each line of MUST_FIND is found, nothing in MUST_PASS is
# (cloud-init's seed, linked upstream issues, the collection's own names).
MUST_FIND = (
    "      description: The same id, under the seed's name.",
    "| seed field | option | notes |",
    "   * - seed",
    "| only conflicts enforced | exactly one of them | the seed states the rule |",
    "Section A of the seed, field by field (camelCase seed name -> option).",
    "``bucket`` (SPEC §5): the same task against another bucket",
    "The lifecycle follows upstream (research/libvirt-provider.md 1.4)",
    "# the example of the research notes",
    "oracles written from upstream's rules (coder-provider.md, 4.4)",
    "Every field the seed (``/work/shared/seed/``, interface A) names",
    "The targets of issue #10, side by side",
    "run (upstream #1339).",
    "errors (its issues 1269, 1319,\n    1326)",
    "(the ``notificationConfigs`` resource, the seed's resource C);",
    "SEED_FIELDS: list[tuple[str, str]] = []",
    "included: /tmp/h3-build/ansible_collections/devinfra/providers/roles/x.yml",
)
MUST_PASS = (
    "short_description: Build a cloud-init NoCloud seed ISO on the managed host",
    "- name: The first-boot seed carries the agent's token and init script (cloud-init NoCloud, in the pool)",
    "- name: Remove the first-boot seed (its ISO and its volume)",
    '  devinfra.providers.libvirt_cloudinit_disk: &seed\n    name: "{{ prefix }}-seed"\n  register: seed',
    '    msg: "{{ seed.cloudinit_disk.path }}"\n      - seed is changed',
    "Datasource DataSourceNoCloud [seed=/dev/sr0][dsmode=net].",
    "``destroy`` removes the domain, the root and seed volumes, the seed ISO, the workspace",
    'gcs_emulator_prefix: "dvtcanary{{ 99999 | random(seed=None) }}"',
    "workspace_vm_seed_dir: /var/lib/devinfra.providers/cloudinit",
    "plain ISO9660 (upstream issue `1329 <https://github.com/dmacvicar/terraform-provider-libvirt/issues/1329>`__)",
    "guests do not read (L(upstream issue 1329,https://github.com/dmacvicar/terraform-provider-libvirt/issues/1329)).",
    '_ENCODINGS = ("%00", "&#46;", "&#x2e;")',
    "The interface's field names are camelCase; the resource C(notificationConfigs) of the API.",
    "the argument spec (3,700 options); an interface field -> option table",
)


def check_patterns() -> list[str]:
    problems = [f"the references check misses {line!r}" for line in MUST_FIND if not scan_text("sample", line)]
    problems += [f"the references check flags {found}" for line in MUST_PASS for found in scan_text("sample", line)]
    return problems


def references(file: str) -> list[str]:
    problems = check_patterns()
    if not pathlib.Path(file).is_file():
        return [*problems, f"{file} is missing: build the collection first"]
    with tarfile.open(file) as archive:
        for member in archive.getmembers():
            if not member.isfile() or member.name in ("MANIFEST.json", "FILES.json"):
                continue
            if not (member.name.endswith(TEXT_SUFFIXES) or "." not in member.name.rsplit("/", 1)[-1]):
                continue
            extracted = archive.extractfile(member)
            data = extracted.read() if extracted else b""
            if b"\0" not in data[:8192]:  # not binary
                problems += scan_text(member.name, data.decode("utf-8", errors="replace"))
    return problems


def extra_docs(collection: str, dest: str) -> list[str]:
    root = pathlib.Path(collection)
    index = (root / "docs/docsite/extra-docs.yml").read_text()
    listed = re.findall(r"^\s*-\s+(?:ref:\s*)?([\w./-]+)\s*$", index, flags=re.MULTILINE)
    pages = sorted(path.stem for path in (root / "docs/docsite/rst").glob("*.rst"))
    problems = [f"docs/docsite/rst/{page}.rst is not listed in docs/docsite/extra-docs.yml" for page in pages if page not in listed]
    problems += [f"docs/docsite/extra-docs.yml lists {page}, which has no docs/docsite/rst/{page}.rst" for page in listed if page not in pages]
    rendered = pathlib.Path(dest) / "collections/devinfra/providers/docsite"
    for page in pages:
        out = rendered / f"{page}.rst"
        label = f".. _ansible_collections.devinfra.providers.docsite.{page}:"
        if not out.is_file():
            problems.append(f"antsibull-docs did not render {page} ({out} is missing)")
        elif label not in out.read_text():
            problems.append(f"{out} does not start with its label {label}")
    index_page = pathlib.Path(dest) / "collections/devinfra/providers/index.rst"
    text = index_page.read_text() if index_page.is_file() else ""
    problems += [f"the collection's index does not link {page}" for page in listed if f"docsite/{page}" not in text]
    return problems


# Plugin directories that hold no plugin of their own in a changelog.
NOT_PLUGIN_TYPES = ("action", "module_utils", "plugin_utils", "doc_fragments")


def _documentation(path: pathlib.Path) -> dict[str, t.Any]:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id == "DOCUMENTATION" for target in node.targets):
            doc: dict[str, t.Any] = yaml.safe_load(ast.literal_eval(node.value)) or {}
            return doc
    return {}


def _new_objects(root: pathlib.Path) -> dict[tuple[str, str], str]:
    """(kind, name) -> version_added of every plugin, module and role; playbooks have none."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted((root / "plugins").glob("*/*.py")):
        kind = path.parent.name
        if kind in NOT_PLUGIN_TYPES or path.name == "__init__.py":
            continue
        kind = "module" if kind == "modules" else kind
        found[(kind, path.stem)] = str(_documentation(path).get("version_added", ""))
    for spec in sorted((root / "roles").glob("*/meta/argument_specs.yml")):
        main = (yaml.safe_load(spec.read_text()) or {}).get("argument_specs", {}).get("main", {})
        found[("role", spec.parent.parent.name)] = str(main.get("version_added", ""))
    for playbook in sorted((root / "playbooks").glob("*.yml")):
        found[("playbook", playbook.stem)] = ""
    return found


def _listed(release: dict[str, t.Any]) -> set[tuple[str, str]]:
    listed = {("module", item["name"]) for item in release.get("modules", [])}
    listed |= {(kind, item["name"]) for kind, items in release.get("plugins", {}).items() for item in items}
    listed |= {(kind, item["name"]) for kind, items in release.get("objects", {}).items() for item in items}
    return listed


def changelog(collection: str) -> list[str]:
    root = pathlib.Path(collection)
    version = str(yaml.safe_load((root / "galaxy.yml").read_text())["version"])
    changes = root / "changelogs/changelog.yaml"
    if not changes.is_file():
        return [f"{changes} is missing: run antsibull-changelog release"]
    releases: dict[str, t.Any] = (yaml.safe_load(changes.read_text()) or {}).get("releases", {})
    if version not in releases:
        return [f"changelogs/changelog.yaml has no release {version} (galaxy.yml's version)"]
    listed_anywhere = set().union(*(_listed(release) for release in releases.values()))
    listed_now = _listed(releases[version])
    objects = _new_objects(root)
    problems = []
    for (kind, name), added in objects.items():
        if kind != "playbook" and added not in releases:
            problems.append(f"{kind} {name}: version_added {added or '(none)'} is not a release of changelogs/changelog.yaml")
        elif added == version and (kind, name) not in listed_now:
            problems.append(f"{kind} {name} is new in {version} but changelogs/changelog.yaml does not list it there")
        elif kind == "playbook" and (kind, name) not in listed_anywhere:
            problems.append(f"playbook {name} is in no release of changelogs/changelog.yaml (add object.playbook)")
    problems += [f"changelogs/changelog.yaml lists {kind} {name}, which the collection does not have" for kind, name in sorted(listed_now - set(objects))]
    with tempfile.TemporaryDirectory() as scratch:
        copy = pathlib.Path(scratch)
        shutil.copy(root / "galaxy.yml", copy)
        shutil.copytree(root / "changelogs", copy / "changelogs")
        beside = pathlib.Path(sys.executable).parent / "antsibull-changelog"  # the venv's, when not on PATH
        tool = str(beside) if beside.is_file() else "antsibull-changelog"
        generated = subprocess.run([tool, "generate"], cwd=copy, capture_output=True, text=True, check=False)
        if generated.returncode != 0:
            problems.append(f"antsibull-changelog generate failed: {generated.stderr.strip()[-500:]}")
        elif not (root / "CHANGELOG.md").is_file() or not filecmp.cmp(copy / "CHANGELOG.md", root / "CHANGELOG.md", shallow=False):
            problems.append("CHANGELOG.md is not what antsibull-changelog generate makes of changelogs/changelog.yaml")
    return problems


def rendered(directory: str) -> list[str]:
    try:
        docs = json.load(sys.stdin)
    except ValueError:
        return [f"ansible-doc rendered nothing for {directory} (its error is above)"]
    names = sorted(f"devinfra.providers.{path.stem}" for path in pathlib.Path(directory).glob("*.py") if path.name != "__init__.py")
    return [f"ansible-doc rendered no documentation for {name}" for name in names if not (docs.get(name) or {}).get("doc")]


def main() -> int:
    if sys.argv[1:] == ["licences"]:
        problems = licences()
    elif len(sys.argv) == 3 and sys.argv[1] == "tarball":
        problems = tarball(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "references":
        problems = references(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "extra-docs":
        problems = extra_docs(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "rendered":
        problems = rendered(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "changelog":
        problems = changelog(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    print(f"{sys.argv[1]}: {'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
