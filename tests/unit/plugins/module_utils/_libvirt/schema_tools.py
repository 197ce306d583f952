# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The schema tools (tools/libvirt_schema) for the tests that check what they made."""

from __future__ import annotations

import importlib.util
import pathlib
import typing as t

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[5] / "tools" / "libvirt_schema"


def load_tool(name: str) -> t.Any:
    """tools/libvirt_schema/<name>.py as a module; the test skips where the tools are not (the tarball)."""
    if not TOOLS.is_dir():
        pytest.skip("tools/ (the schema generator) is not in the collection's tarball, only in its repository")
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
