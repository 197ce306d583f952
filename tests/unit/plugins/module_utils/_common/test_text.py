# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The one-line rule is one rule: the libvirt, workspace and storage families refuse and accept
exactly the same characters (they disagreed on C1 controls, U+2028 and the bidirectional
controls), and server text reaches a message escaped."""

from __future__ import annotations

import pathlib
import re

import pytest
import yaml  # type: ignore[import-untyped]

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import one_line_problem, printable
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.text import check_one_line
from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.validation import check_line
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.fields import check_text

REFUSED = [
    *(chr(code) for code in range(0x20)),
    "\x7f",
    *(chr(code) for code in range(0x80, 0xA0)),
    "\u2028",
    "\u2029",
    *(chr(code) for code in range(0x202A, 0x202F)),
    *(chr(code) for code in range(0x2066, 0x206A)),
    "\ufffe",
    "\uffff",
]
ACCEPTED = ["a", " ", "é", "ß", "中", "\u05d0", "\u0627", "\u00a0", "\u200b", "\U0001f600", "~", "\u00ff", "\u2030", "\u206a"]


def family_refusals(value: str) -> list[bool]:
    """Whether each family's one-line check refuses ``value``."""
    outcomes = []
    for check, error in (
        (lambda: check_one_line("name", value), LibvirtValidationError),
        (lambda: check_text("name", value), WorkspaceValidationError),
        (lambda: check_line("topic", value), StorageValidationError),
    ):
        try:
            check()
        except error:
            outcomes.append(True)
        else:
            outcomes.append(False)
    return outcomes


@pytest.mark.parametrize("char", REFUSED, ids=lambda char: f"U+{ord(char):04X}")
def test_every_family_refuses_the_same_characters(char: str) -> None:
    value = f"ws{char}x"
    assert one_line_problem(value) is not None
    assert family_refusals(value) == [True, True, True]


@pytest.mark.parametrize("char", ACCEPTED, ids=lambda char: f"U+{ord(char):04X}")
def test_every_family_accepts_the_same_characters(char: str) -> None:
    value = f"ws{char}x"
    assert one_line_problem(value) is None
    assert family_refusals(value) == [False, False, False]


def test_the_problem_names_the_character_and_its_position_never_the_value() -> None:
    assert one_line_problem("secret\u202egnp.exe") == "the bidirectional control U+202E at position 6"
    assert one_line_problem("a\nb") == "the control character U+000A at position 1"
    assert "secret" not in str(one_line_problem("secret\n"))


def test_server_text_is_escaped_and_shortened() -> None:
    shown = printable("\x1b[2J\x9b31mred\u202e\nline two" + "x" * 500, limit=40)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u202e]", shown)
    assert shown.startswith("\\u001b[2J\\u009b31mred\\u202e\\u000aline two")
    assert shown.endswith("(521 characters)")


def test_no_module_keeps_a_rule_of_its_own() -> None:
    """A control-character class written anywhere else is a second rule that will drift."""
    root = pathlib.Path(__file__).parents[5] / "plugins"
    own_rule = re.compile(r"x00-\\x1f|x7f-\\x9f|u2028|0x7F <= ord")
    assert (root / "module_utils" / "_common" / "text.py").is_file(), root
    keepers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "text.py" or path.parent.name != "_common"
        if own_rule.search(path.read_text(encoding="utf-8"))
    )
    assert keepers == []


def test_the_roles_rule_is_the_same_rule() -> None:
    """The workspace_vm role and the workspace_fleet playbook check names with Jinja's search
    test, so they keep the rule as a regular expression of their own (roles/workspace_vm/vars):
    it refuses and accepts exactly what the collection's rule does."""
    vars_file = pathlib.Path(__file__).parents[5] / "roles" / "workspace_vm" / "vars" / "main.yml"
    pattern = re.compile(yaml.safe_load(vars_file.read_text(encoding="utf-8"))["__workspace_vm_not_one_line"])
    assert [f"U+{ord(char):04X}" for char in REFUSED if not pattern.search(f"ws{char}x")] == []
    assert [f"U+{ord(char):04X}" for char in ACCEPTED if pattern.search(f"ws{char}x")] == []
