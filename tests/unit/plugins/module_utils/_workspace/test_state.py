# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import stat
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.state import (
    DEFAULT_STATE_FILE,
    STATE_FORMAT,
    StateFileError,
    open_state,
    read_state,
    resolve_state_file,
)

WRITERS = 12
WRITES_EACH = 15


def _writer(path: str, writer: int) -> None:
    for index in range(WRITES_EACH):
        with open_state(path, write=True) as state:
            state.put(f"workspace_env.w{writer}-{index}", {"arguments": {"writer": writer}, "computed": {"id": f"{writer}-{index}"}})


def test_concurrent_writers_lose_nothing(tmp_path: t.Any) -> None:
    """Many processes (as Ansible's forks are) writing one file at once: every entry survives."""
    path = str(tmp_path / "state.json")
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_writer, args=(path, writer)) for writer in range(WRITERS)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    state = read_state(path)
    assert len(state.resources) == WRITERS * WRITES_EACH
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    # No temporary file is left behind.
    assert sorted(os.listdir(tmp_path)) == ["state.json", "state.json.lock"]


def test_mode_0600_after_every_write(tmp_path: t.Any) -> None:
    path = str(tmp_path / "state.json")
    with open_state(path, write=True) as state:
        state.put("workspace_agent.main", {"arguments": {}, "computed": {"id": "1"}})
    os.chmod(path, 0o644)
    with open_state(path, write=True) as state:
        state.put("workspace_agent.other", {"arguments": {}, "computed": {"id": "2"}})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path + ".lock").st_mode) == 0o600


def test_document_format(tmp_path: t.Any) -> None:
    path = str(tmp_path / "state.json")
    with open_state(path, write=True) as state:
        state.put("workspace_app.code", {"arguments": {"slug": "code"}, "computed": {"id": "1"}})
    document = json.loads((tmp_path / "state.json").read_text())
    assert document == {"format": STATE_FORMAT, "version": 1, "resources": {"workspace_app.code": {"arguments": {"slug": "code"}, "computed": {"id": "1"}}}}
    assert str(tmp_path) not in (tmp_path / "state.json").read_text()  # relocatable


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('{"format": "terraform", "version": 4}', 'is not a workspace state file (no "format": "devinfra.providers.workspace")'),
        ("[1, 2]", "is not a workspace state file"),
        (f'{{"format": "{STATE_FORMAT}", "version": 7, "resources": {{}}}}', "has state version 7"),
        (f'{{"format": "{STATE_FORMAT}", "version": 1, "resources": {{"x": 1}}}}', "is corrupt"),
    ],
)
def test_corrupt_or_foreign_file_is_an_error_and_untouched(tmp_path: t.Any, content: str, message: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(content)
    before = path.stat().st_mtime_ns
    with pytest.raises(StateFileError, match=re.escape(message)), open_state(str(path), write=True) as state:
        state.put("workspace_agent.main", {"arguments": {}, "computed": {}})
    with pytest.raises(StateFileError, match="left untouched"):
        read_state(str(path))
    assert path.read_text() == content
    assert path.stat().st_mtime_ns == before


def _state_with_an_agent(tmp_path: t.Any) -> str:
    path = str(tmp_path / "state.json")
    with open_state(path, write=True) as state:
        state.put("workspace_agent.main", {"arguments": {}, "computed": {"id": "1"}})
    return path


def test_failure_inside_the_block_writes_nothing(tmp_path: t.Any) -> None:
    path = _state_with_an_agent(tmp_path)
    with pytest.raises(RuntimeError), open_state(path, write=True) as state:
        state.remove("workspace_agent.main")
        raise RuntimeError("half-way")
    assert read_state(path).get("workspace_agent.main") is not None


def test_a_killed_writers_temporary_file_goes_with_the_next_writer(tmp_path: t.Any) -> None:
    # A writer killed between mkstemp and the rename leaves its temporary file; the next
    # writer holds the exclusive lock, so that file is stale and goes. Other files stay.
    path = _state_with_an_agent(tmp_path)
    stale = tmp_path / ".state.json.k1ll3d_x.tmp"
    stale.write_text('{"half": ')
    others = [tmp_path / ".state.json.bak.abcdefgh.tmp", tmp_path / ".other.json.abcdefgh.tmp", tmp_path / "notes.tmp"]
    for other in others:
        other.write_text("keep")
    with open_state(path, write=True):
        pass  # nothing changes: the stale file goes all the same
    assert not stale.exists()
    assert all(other.read_text() == "keep" for other in others)
    assert read_state(path).get("workspace_agent.main") is not None


def test_readers_leave_temporary_files_alone(tmp_path: t.Any) -> None:
    path = _state_with_an_agent(tmp_path)
    pending = tmp_path / ".state.json.abcdefgh.tmp"
    pending.write_text("{}")
    read_state(path)
    with open_state(path, write=False):
        pass
    assert pending.exists()


def test_check_mode_reads_without_creating(tmp_path: t.Any) -> None:
    path = str(tmp_path / "state.json")
    with open_state(path, write=False) as state:
        state.put("workspace_agent.main", {"arguments": {}, "computed": {}})
    assert os.listdir(tmp_path) == []


def test_copied_file_works_at_its_new_path(tmp_path: t.Any) -> None:
    first = tmp_path / "a"
    second = tmp_path / "b"
    first.mkdir()
    second.mkdir()
    with open_state(str(first / "state.json"), write=True) as state:
        state.put("workspace_agent.main", {"arguments": {}, "computed": {"id": "1"}})
    shutil.copy(first / "state.json", second / "state.json")  # without its lock file
    assert read_state(str(second / "state.json")).get("workspace_agent.main") == {"arguments": {}, "computed": {"id": "1"}}
    with open_state(str(second / "state.json"), write=True) as state:
        state.put("workspace_agent.other", {"arguments": {}, "computed": {"id": "2"}})
    assert len(read_state(str(second / "state.json")).resources) == 2
    assert len(read_state(str(first / "state.json")).resources) == 1


def test_unchanged_content_is_not_rewritten(tmp_path: t.Any) -> None:
    path = tmp_path / "state.json"
    with open_state(str(path), write=True) as state:
        state.put("workspace_agent.main", {"arguments": {}, "computed": {"id": "1"}})
    inode = path.stat().st_ino
    with open_state(str(path), write=True):
        pass
    assert path.stat().st_ino == inode


def test_missing_directory(tmp_path: t.Any) -> None:
    with pytest.raises(StateFileError, match="does not exist"), open_state(str(tmp_path / "nope" / "state.json"), write=True):
        pass


def test_resolve_state_file(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_state_file(None, environ={}) == str(tmp_path / DEFAULT_STATE_FILE)
    assert resolve_state_file(None, environ={"DEVINFRA_WORKSPACE_STATE": ""}) == str(tmp_path / DEFAULT_STATE_FILE)
    assert resolve_state_file(None, environ={"DEVINFRA_WORKSPACE_STATE": "/x/s.json"}) == "/x/s.json"
    assert resolve_state_file("rel.json", environ={"DEVINFRA_WORKSPACE_STATE": "/x/s.json"}) == str(tmp_path / "rel.json")
    with pytest.raises(StateFileError, match="must not be empty"):
        resolve_state_file("", environ={})
