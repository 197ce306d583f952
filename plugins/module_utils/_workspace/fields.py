# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The rules every text option of the workspace plugins follows, in one place.

Names, slugs, display names, URLs, icons, keys and cron specs end up on one line of a
cloud-init document, an env file or a shell command. A line break or another control
character there starts a line of the attacker's choosing, so single-line options keep the
collection's one-line rule (``_common.text``). Options documented as multi-line (scripts, commands, tooltips, values) take any
character but NUL, which no environment variable or C string can hold. Messages give the
character and its position, never the value: values may be secrets."""

from __future__ import annotations

import decimal
import math
import re
import typing as t

from .._common.text import NOT_ONE_LINE, one_line_problem
from .errors import WorkspaceValidationError
from .gourl import go_quote

__all__ = ["check_text", "check_text_options", "is_uuid", "single_block", "terraform_string", "unwrap_single_blocks"]


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_uuid(value: str) -> bool:
    """True for a UUID in its 8-4-4-4-12 form (what the modules make and coderd gives)."""
    return _UUID.fullmatch(value) is not None


def check_text(option: str, value: str, *, multi_line: bool = False) -> None:
    """Refuse control characters in a single-line option, NUL in a multi-line one."""
    if multi_line:
        position = value.find("\x00")
        if position >= 0:
            raise WorkspaceValidationError(f"{option}: must not contain a NUL character (U+0000 at position {position})")
        return
    problem = one_line_problem(value)
    if problem:
        raise WorkspaceValidationError(f"{option}: must be one line without control characters ({problem})")


def check_text_options(spec: dict[str, dict[str, t.Any]], params: dict[str, t.Any], *, multi_line: frozenset[str], prefix: str = "") -> None:
    """``check_text`` on every text option of ``params`` and of their sub-options. ``multi_line``
    names the options (``metadata.script``, ``env.*`` for a dict's values) that may span lines."""
    for name, option in spec.items():
        value = params.get(name)
        if value is None:
            continue
        path = f"{prefix}{name}"
        kind = option.get("type", "str")
        if isinstance(value, str) and kind in ("str", "path", "raw"):
            check_text(path, value, multi_line=_unindexed(path) in multi_line)
        elif kind == "dict" and isinstance(value, dict):
            if "options" in option:
                check_text_options(option["options"], value, multi_line=multi_line, prefix=f"{path}.")
                continue
            for key, item in value.items():
                # A key is a name (an env variable's, say): quoted, Go's way, so the message stays one line.
                if NOT_ONE_LINE.search(str(key)):
                    check_text(f"{path}: the key {go_quote(str(key))}", str(key))
                if isinstance(item, str):
                    check_text(f"{path}.{key}", item, multi_line=f"{_unindexed(path)}.*" in multi_line)
        elif kind == "list" and isinstance(value, list) and "options" in option:
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    check_text_options(option["options"], item, multi_line=multi_line, prefix=f"{path}[{index}].")


def _unindexed(path: str) -> str:
    return re.sub(r"\[\d+\]", "", path)


def terraform_string(option: str, value: t.Any) -> str | None:
    """A string option's value as Terraform converts it: a string as it is, a number in
    decimal notation (``1.0`` is ``1``), a bool as ``true``/``false``. A list or a dictionary
    would be stored as Python's repr of it, so it is refused instead."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else format(decimal.Decimal(repr(value)), "f")
    kind = "a dictionary" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__
    raise WorkspaceValidationError(f"{option}: must be a string (numbers and booleans are converted as Terraform converts them), got {kind}")


def single_block(option: str, value: t.Any) -> t.Any:
    """A nested block of at most one item (``MaxItems: 1`` upstream) as a dictionary. HCL,
    ``terraform show -json`` and the state give such a block as a list of one object, so a list
    of at most one item is taken too; two or more fail as Terraform fails them."""
    if not isinstance(value, list):
        return value
    if len(value) > 1:
        leaf = option.rsplit(".", 1)[-1]
        raise WorkspaceValidationError(f'{option}: No more than 1 "{leaf}" blocks are allowed')
    return value[0] if value else None


def unwrap_single_blocks(params: t.Mapping[str, t.Any], paths: t.Iterable[str]) -> dict[str, t.Any]:
    """``params`` with every single-item block at ``paths`` (``a`` or ``a.b``, a block in a
    block) made a dictionary by single_block(); nothing else changes."""
    result = dict(params)
    for path in sorted(paths, key=lambda p: p.count(".")):  # outer blocks first
        parent: t.Any = result
        *outer, leaf = path.split(".")
        for name in outer:
            parent = parent.get(name) if isinstance(parent, dict) else None
        if isinstance(parent, dict) and leaf in parent:
            parent[leaf] = single_block(path, parent[leaf])
            if isinstance(parent[leaf], dict):
                parent[leaf] = dict(parent[leaf])  # a copy: inner blocks are changed in it, never the caller's
    return result
