# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import importlib
import os
import types
import typing as t
from unittest.mock import MagicMock

import pytest
from ansible.template import Templar


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable of the controller that a workspace module or its state backend reads."""
    for name in list(os.environ):
        if name.startswith(("CODER_", "DEVINFRA_", "GCP_", "GOOGLE_")) or name == "STORAGE_EMULATOR_HOST":
            monkeypatch.delenv(name)


@pytest.fixture
def run_action() -> t.Callable[..., dict[str, t.Any]]:
    """Run a workspace action plugin (the module, or its name) as a task would, and return its result."""

    def run(
        plugin: types.ModuleType | str,
        args: dict[str, t.Any],
        *,
        check_mode: bool = False,
        diff: bool = False,
        environment: t.Any = None,
        task_vars: dict[str, t.Any] | None = None,
        no_log: bool = False,
    ) -> dict[str, t.Any]:
        if isinstance(plugin, str):
            plugin = importlib.import_module(f"ansible_collections.devinfra.providers.plugins.action.{plugin}")
        name = plugin.__name__.rsplit(".", 1)[-1]
        task = MagicMock(args=args, action=f"devinfra.providers.{name}", async_val=0, check_mode=check_mode, environment=environment)
        play_context = MagicMock(check_mode=check_mode, diff=diff, no_log=no_log)
        templar = Templar(loader=None, variables=task_vars or {})
        action = plugin.ActionModule(task, MagicMock(), play_context, loader=None, templar=templar, shared_loader_obj=None)
        result: dict[str, t.Any] = action.run(task_vars=task_vars or {})
        return result

    return run
