# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import signal
import stat
import typing as t

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.backend import DEFAULT_STATE_FILE, open_backend
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.document import MAX_STATE_BYTES, STATE_FORMAT
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import StateFileError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.state import open_state, read_state

WRITERS = 12
WRITES_EACH = 15


def _writer(path: str, writer: int) -> None:
    for index in range(WRITES_EACH):
        with open_state(path, write=True) as state:
            state.put(f"thing.w{writer}-{index}", {"arguments": {"writer": writer}, "computed": {"id": f"{writer}-{index}"}})


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
        state.put("thing.main", {"arguments": {}, "computed": {"id": "1"}})
    os.chmod(path, 0o644)
    with open_state(path, write=True) as state:
        state.put("thing.other", {"arguments": {}, "computed": {"id": "2"}})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path + ".lock").st_mode) == 0o600


def test_document_format(tmp_path: t.Any) -> None:
    path = str(tmp_path / "state.json")
    with open_state(path, write=True) as state:
        state.put("thing.code", {"arguments": {"slug": "code"}, "computed": {"id": "1"}})
    document = json.loads((tmp_path / "state.json").read_text())
    assert document == {"format": STATE_FORMAT, "version": 1, "resources": {"thing.code": {"arguments": {"slug": "code"}, "computed": {"id": "1"}}}}
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
        state.put("thing.main", {"arguments": {}, "computed": {}})
    with pytest.raises(StateFileError, match="left untouched"):
        read_state(str(path))
    assert path.read_text() == content
    assert path.stat().st_mtime_ns == before


def _state_with_an_agent(tmp_path: t.Any) -> str:
    path = str(tmp_path / "state.json")
    with open_state(path, write=True) as state:
        state.put("thing.main", {"arguments": {}, "computed": {"id": "1"}})
    return path


def test_failure_inside_the_block_writes_nothing(tmp_path: t.Any) -> None:
    path = _state_with_an_agent(tmp_path)
    with pytest.raises(RuntimeError), open_state(path, write=True) as state:
        state.remove("thing.main")
        raise RuntimeError("half-way")
    assert read_state(path).get("thing.main") is not None


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
    assert read_state(path).get("thing.main") is not None


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
        state.put("thing.main", {"arguments": {}, "computed": {}})
    assert os.listdir(tmp_path) == []


def test_copied_file_works_at_its_new_path(tmp_path: t.Any) -> None:
    first = tmp_path / "a"
    second = tmp_path / "b"
    first.mkdir()
    second.mkdir()
    with open_state(str(first / "state.json"), write=True) as state:
        state.put("thing.main", {"arguments": {}, "computed": {"id": "1"}})
    shutil.copy(first / "state.json", second / "state.json")  # without its lock file
    assert read_state(str(second / "state.json")).get("thing.main") == {"arguments": {}, "computed": {"id": "1"}}
    with open_state(str(second / "state.json"), write=True) as state:
        state.put("thing.other", {"arguments": {}, "computed": {"id": "2"}})
    assert len(read_state(str(second / "state.json")).resources) == 2
    assert len(read_state(str(first / "state.json")).resources) == 1


def test_unchanged_content_is_not_rewritten(tmp_path: t.Any) -> None:
    path = tmp_path / "state.json"
    with open_state(str(path), write=True) as state:
        state.put("thing.main", {"arguments": {}, "computed": {"id": "1"}})
    inode = path.stat().st_ino
    with open_state(str(path), write=True):
        pass
    assert path.stat().st_ino == inode


def test_missing_directory(tmp_path: t.Any) -> None:
    with pytest.raises(StateFileError, match="does not exist"), open_state(str(tmp_path / "nope" / "state.json"), write=True):
        pass


def _location(state_file: str | None, environ: dict[str, str]) -> str:
    return open_backend(state_file, {}, environ=environ).location


def test_state_file_location(tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _location(None, {}) == str(tmp_path / DEFAULT_STATE_FILE)
    assert _location(None, {"DEVINFRA_WORKSPACE_STATE": ""}) == str(tmp_path / DEFAULT_STATE_FILE)
    assert _location(None, {"DEVINFRA_WORKSPACE_STATE": "/x/s.json"}) == "/x/s.json"
    assert _location("rel.json", {"DEVINFRA_WORKSPACE_STATE": "/x/s.json"}) == str(tmp_path / "rel.json")
    assert _location("~/s.json", {}) == os.path.expanduser("~/s.json")
    with pytest.raises(StateFileError, match="must not be empty"):
        _location("", {})
    with pytest.raises(StateFileError, match=re.escape("state_file: s3:// is not a supported state location (a local path, or gs://)")):
        _location("s3://bucket/state.json", {})


# --- a shared host: what another local user can leave where the state file goes ------------------

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="making a file of another user needs root")


def _victim(tmp_path: t.Any) -> t.Any:
    """A file of ours elsewhere that a link could make us read, write or chmod."""
    victim = tmp_path / "victim"
    victim.mkdir()
    target = victim / "secret"
    target.write_text("root's own data\n")
    target.chmod(0o640)
    return target


def _untouched(target: t.Any) -> None:
    assert target.read_text() == "root's own data\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def _refused_everywhere(path: str, message: str) -> None:
    with pytest.raises(StateFileError, match=message), open_state(path, write=True) as state:
        state.put("thing.new", {})
    with pytest.raises(StateFileError, match=message):
        read_state(path)
    with pytest.raises(StateFileError, match=message), open_state(path, write=False):
        pass


@pytest.mark.parametrize(("link", "what"), [("state.json", "the state file"), ("state.json.lock", "the state file's lock")])
def test_a_symbolic_link_is_never_followed(tmp_path: t.Any, link: str, what: str) -> None:
    path = _state_with_an_agent(tmp_path)
    target = _victim(tmp_path)
    os.unlink(tmp_path / link)
    os.symlink(target, tmp_path / link)
    _refused_everywhere(path, re.escape(f"refusing {what} {tmp_path / link}: it is a symbolic link"))
    _untouched(target)
    assert os.path.islink(tmp_path / link)


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602], ids=oct)
def test_a_state_file_others_can_write_is_refused(tmp_path: t.Any, mode: int) -> None:
    path = _state_with_an_agent(tmp_path)
    os.chmod(path, mode)
    before = (tmp_path / "state.json").read_bytes()
    _refused_everywhere(path, re.escape(f"refusing the state file {path}: it is writable by group or others (mode {mode:04o})"))
    assert (tmp_path / "state.json").read_bytes() == before
    assert stat.S_IMODE(os.stat(path).st_mode) == mode


def test_a_lock_others_can_write_is_refused(tmp_path: t.Any) -> None:
    path = _state_with_an_agent(tmp_path)
    os.chmod(path + ".lock", 0o666)
    _refused_everywhere(path, re.escape(f"refusing the state file's lock {path}.lock: it is writable by group or others (mode 0666)"))


@as_root
@pytest.mark.parametrize("name", ["state.json", "state.json.lock"])
def test_files_of_another_user_in_a_sticky_directory_are_refused(tmp_path: t.Any, name: str) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp
    path = _state_with_an_agent(shared)
    hostile = shared / name
    hostile.write_text(hostile.read_text())
    os.chown(hostile, NOBODY, NOBODY)
    before = hostile.read_bytes()
    what = "the state file's lock" if name.endswith(".lock") else "the state file"
    _refused_everywhere(path, re.escape(f"refusing {what} {hostile}: it is owned by ") + r".*uid 65534.*not by .*who runs this")
    assert hostile.read_bytes() == before
    assert hostile.stat().st_uid == NOBODY


def test_a_directory_others_can_write_must_be_sticky(tmp_path: t.Any) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    path = _state_with_an_agent(shared)
    shared.chmod(0o777)
    _refused_everywhere(path, re.escape(f"refusing the directory of the state file {shared}: it is writable by group or others (mode 0777) and not sticky"))
    shared.chmod(0o1777)
    with open_state(path, write=True) as state:
        state.put("thing.other", {})
    assert len(read_state(path).resources) == 2


def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: t.Any) -> None:
    path = str(tmp_path / "state.json")
    os.mkfifo(path, 0o600)  # opening a FIFO to read would wait for a writer forever

    def hung(_signum: int, _frame: t.Any) -> None:
        raise TimeoutError("opening the state file blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        _refused_everywhere(path, re.escape(f"refusing the state file {path}: it is not a regular file"))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    os.unlink(path)
    os.mkdir(path, 0o700)
    _refused_everywhere(path, "it is not a regular file")


def test_a_hard_linked_state_file_is_refused(tmp_path: t.Any) -> None:
    # Tightening or reading it would act on the other name too (a file of ours elsewhere).
    path = _state_with_an_agent(tmp_path)
    os.link(path, tmp_path / "elsewhere")
    _refused_everywhere(path, "it has 2 hard links")


def test_stale_temporary_names_that_are_not_our_files_stay(tmp_path: t.Any) -> None:
    path = _state_with_an_agent(tmp_path)
    target = _victim(tmp_path)
    link = tmp_path / ".state.json.l1nk1234.tmp"
    link.symlink_to(target)
    directory = tmp_path / ".state.json.d1r12345.tmp"
    directory.mkdir()
    hard = tmp_path / ".state.json.h4rd1234.tmp"
    os.link(target, hard)
    theirs = tmp_path / ".state.json.th31rs12.tmp"
    theirs.write_text("theirs")
    if os.geteuid() == 0:
        os.chown(theirs, NOBODY, NOBODY)
    with open_state(path, write=True):
        pass
    assert link.is_symlink() and directory.is_dir() and hard.exists()
    assert theirs.exists() == (os.geteuid() == 0)  # without root it is ours, and stale
    _untouched(target)


def test_a_readable_state_file_is_tightened_by_a_run_that_changes_nothing(tmp_path: t.Any) -> None:
    path = _state_with_an_agent(tmp_path)
    os.chmod(path, 0o644)
    os.chmod(path + ".lock", 0o644)
    inode = os.stat(path).st_ino
    check = read_state(path)  # check mode and lookups: reported, never changed
    assert check.warnings == [
        f"the state file {path} can be read by group or others (mode 0644) and holds agent tokens; the next run that is not in check mode sets it to 0600"
    ]
    with open_state(path, write=False) as state:
        assert state.warnings == check.warnings
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    with open_state(path, write=True) as state:
        assert state.warnings == []
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path + ".lock").st_mode) == 0o600
    assert os.stat(path).st_ino == inode  # not rewritten: nothing changed


def test_an_oversized_or_deeply_nested_state_is_refused(tmp_path: t.Any) -> None:
    """A state is data from whoever can write it: never read whole, never a RecursionError."""
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    nested.chmod(0o600)
    with pytest.raises(StateFileError, match=r"is not a workspace state file \(its JSON is nested too deeply\); it was left untouched"):
        read_state(str(nested))
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(MAX_STATE_BYTES + 1)  # sparse: no disk is used
    huge.chmod(0o600)
    with pytest.raises(StateFileError, match=r"is larger than a workspace state can be"):
        read_state(str(huge))
    with pytest.raises(StateFileError, match=r"is larger than a workspace state can be"), open_state(str(huge), write=True):
        pass
    assert huge.stat().st_size == MAX_STATE_BYTES + 1
