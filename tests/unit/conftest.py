# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import typing as t

import pytest
from ansible.module_utils.testing import patch_module_args


@pytest.fixture
def run_module(capsys: pytest.CaptureFixture[str]) -> t.Callable[..., dict[str, t.Any]]:
    """Run a module's main() with the given arguments and return its JSON result."""

    def run(main: t.Callable[[], None], args: dict[str, t.Any], *, check_mode: bool = False, diff: bool = False) -> dict[str, t.Any]:
        capsys.readouterr()
        with patch_module_args({**args, "_ansible_check_mode": check_mode, "_ansible_diff": diff}), pytest.raises(SystemExit):
            main()
        result: dict[str, t.Any] = json.loads(capsys.readouterr().out)
        return result

    return run
