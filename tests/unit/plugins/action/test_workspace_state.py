# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""workspace_state: a workspace state moved between a file and the project's Cloud Storage emulator."""

from __future__ import annotations

import base64
import hashlib
import json
import pathlib
import typing as t

import pytest
import requests

from ansible_collections.devinfra.providers.plugins.action import workspace_agent, workspace_app, workspace_state
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.document import WorkspaceState
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.state_gcs import GcsStateBackend
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

Run = t.Callable[..., dict[str, t.Any]]
Local = tuple[pathlib.Path, dict[str, t.Any]]  # a state file made by the modules, and its agent
TOKEN = "migration-write-token"
KEY = base64.b64encode(b"k" * 32).decode()
NEW_KEY = base64.b64encode(b"n" * 32).decode()
BUCKET = "ws-migration"
OBJECT = "team/dev.json"
STATE = f"gs://{BUCKET}/{OBJECT}"


@pytest.fixture
def emulator() -> t.Iterator[Emulator]:
    with Emulator(State(tokens={TOKEN: "write"}, buckets={BUCKET: Bucket(BUCKET)})) as server:
        yield server


def _gcs(emulator: Emulator, **options: t.Any) -> dict[str, t.Any]:
    return {"auth_kind": "accesstoken", "access_token": TOKEN, "api_endpoint": emulator.url, **options}


@pytest.fixture
def local_state(run_action: Run, tmp_path: pathlib.Path) -> tuple[pathlib.Path, dict[str, t.Any]]:
    """A state file with an agent and an app, made by the modules; and the agent's result."""
    path = tmp_path / "workspace.json"
    agent = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": str(path)})
    app = run_action(workspace_app, {"agent_id": agent["agent"]["id"], "slug": "code", "url": "http://localhost:8080", "state_file": str(path)})
    assert agent["changed"] is True and app["changed"] is True
    return path, agent


def _methods(emulator: Emulator) -> list[str]:
    log = requests.get(f"{emulator.url}/_emulator/stats", timeout=10).json()["log"]
    requests.post(f"{emulator.url}/_emulator/stats/reset", timeout=10)
    return [entry["method"] for entry in log]


def _stored(emulator: Emulator, *, key: str | None = KEY) -> requests.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if key is not None:
        raw = base64.b64decode(key)
        headers.update(
            {
                "x-goog-encryption-algorithm": "AES256",
                "x-goog-encryption-key": key,
                "x-goog-encryption-key-sha256": base64.b64encode(hashlib.sha256(raw).digest()).decode(),
            }
        )
    return requests.get(f"{emulator.url}/storage/v1/b/{BUCKET}/o/{OBJECT.replace('/', '%2F')}", params={"alt": "media"}, headers=headers, timeout=10)


def _upload(emulator: Emulator, data: bytes) -> None:
    answer = requests.post(
        f"{emulator.url}/upload/storage/v1/b/{BUCKET}/o",
        params={"uploadType": "media", "name": OBJECT},
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        data=data,
        timeout=10,
    )
    assert answer.status_code == 200, answer.text


def _migrate(run_action: Run, src: str, dest: str, *, check_mode: bool = False, **options: t.Any) -> dict[str, t.Any]:
    return run_action(workspace_state, {"src": src, "dest": dest, **options}, check_mode=check_mode, diff=True)


def test_a_file_moves_into_a_bucket_once(run_action: Run, emulator: Emulator, local_state: Local) -> None:
    path, agent = local_state
    options = _gcs(emulator, state_encryption_key=KEY)

    predicted = _migrate(run_action, str(path), STATE, check_mode=True, **options)
    assert predicted["changed"] is True, predicted
    assert _methods(emulator) == ["GET"]  # check mode reads only: no POST
    assert _stored(emulator).status_code == 404

    moved = _migrate(run_action, str(path), STATE, **options)
    assert moved["changed"] is True, moved
    assert moved["src"] == str(path) and moved["dest"] == STATE
    assert moved["resources"] == 2
    assert moved["addresses"] == ["workspace_agent.main", "workspace_app.code"]
    assert moved["diff"] == {
        "before": {"exists": False, "addresses": []},
        "after": {"exists": True, "addresses": ["workspace_agent.main", "workspace_app.code"]},
    }
    assert _methods(emulator) == ["GET", "GET", "POST"]  # src, then dest's conditional write
    assert json.loads(_stored(emulator).content) == json.loads(path.read_bytes())
    assert _stored(emulator, key=None).status_code == 400  # only the key reads it

    again = _migrate(run_action, str(path), STATE, **options)
    assert again["changed"] is False
    assert again["diff"]["before"] == again["diff"]["after"]
    assert "POST" not in _methods(emulator)
    assert _migrate(run_action, str(path), STATE, check_mode=True, **options)["changed"] is False

    # The modules find their resources unchanged in the bucket: same id, same token.
    same = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": STATE, **options})
    assert same["changed"] is False
    assert same["agent"]["id"] == agent["agent"]["id"] and same["agent"]["token"] == agent["agent"]["token"]


def test_a_bucket_moves_back_into_a_new_file(run_action: Run, emulator: Emulator, local_state: Local, tmp_path: pathlib.Path) -> None:
    path, _agent = local_state
    options = _gcs(emulator)
    assert _migrate(run_action, str(path), STATE, **options)["changed"] is True
    back = tmp_path / "back" / "workspace.json"
    back.parent.mkdir()

    predicted = _migrate(run_action, STATE, str(back), check_mode=True, **options)
    assert predicted["changed"] is True and not back.exists()

    moved = _migrate(run_action, STATE, str(back), **options)
    assert moved["changed"] is True and moved["dest"] == str(back) and moved["resources"] == 2
    assert back.read_bytes() == path.read_bytes()
    assert back.stat().st_mode & 0o777 == 0o600
    assert _migrate(run_action, STATE, str(back), **options)["changed"] is False


def test_a_different_dest_fails_unless_forced(run_action: Run, emulator: Emulator, local_state: Local, tmp_path: pathlib.Path) -> None:
    path, _agent = local_state
    options = _gcs(emulator)
    other = tmp_path / "other.json"
    run_action(workspace_agent, {"name": "main", "arch": "arm64", "os": "linux", "state_file": str(other)})
    run_action(workspace_agent, {"name": "spare", "arch": "amd64", "os": "linux", "state_file": str(other)})
    assert _migrate(run_action, str(other), STATE, **options)["changed"] is True
    written = _stored(emulator, key=None).content
    other_agent = json.loads(written)["resources"]["workspace_agent.main"]["computed"]
    _methods(emulator)

    refused = _migrate(run_action, str(path), STATE, **options)
    assert refused["failed"] is True
    assert refused["msg"] == (
        f"dest {STATE} holds a different workspace state: 3 resources differ from src {path} "
        "(workspace_agent.main, workspace_agent.spare, workspace_app.code); nothing was written. "
        "Set force=true to replace it with the state of src"
    )
    assert other_agent["token"] not in refused["msg"] and other_agent["id"] not in refused["msg"]
    assert "POST" not in _methods(emulator)
    assert _stored(emulator, key=None).content == written

    predicted = _migrate(run_action, str(path), STATE, check_mode=True, force=True, **options)
    assert predicted["changed"] is True
    assert predicted["diff"]["before"]["addresses"] == ["workspace_agent.main", "workspace_agent.spare"]
    assert "POST" not in _methods(emulator)

    forced = _migrate(run_action, str(path), STATE, force=True, **options)
    assert forced["changed"] is True
    assert json.loads(_stored(emulator, key=None).content) == json.loads(path.read_bytes())
    assert _migrate(run_action, str(path), STATE, force=True, **options)["changed"] is False


def test_the_key_of_the_object_is_replaced_in_place(run_action: Run, emulator: Emulator, local_state: Local) -> None:
    path, agent = local_state
    assert _migrate(run_action, str(path), STATE, **_gcs(emulator, state_encryption_key=KEY))["changed"] is True
    rotation = _gcs(emulator, src_encryption_key=KEY, state_encryption_key=NEW_KEY)
    _methods(emulator)

    predicted = _migrate(run_action, STATE, STATE, check_mode=True, **rotation)
    assert predicted["changed"] is True and predicted["resources"] == 2
    assert _methods(emulator) == ["GET"]
    assert _stored(emulator, key=KEY).status_code == 200
    _methods(emulator)

    rotated = _migrate(run_action, STATE, STATE, **rotation)
    assert rotated["changed"] is True, rotated
    assert rotated["src"] == rotated["dest"] == STATE
    assert _methods(emulator) == ["GET", "POST"]
    assert _stored(emulator, key=KEY).status_code == 400  # the old key reads nothing any more
    assert json.loads(_stored(emulator, key=NEW_KEY).content) == json.loads(path.read_bytes())

    # The same task again finds the object under the new key; so does the new key as both.
    again = _migrate(run_action, STATE, STATE, **rotation)
    assert again["changed"] is False, again
    assert "POST" not in _methods(emulator)
    settled = _migrate(run_action, STATE, STATE, **_gcs(emulator, state_encryption_key=NEW_KEY))
    assert settled["changed"] is False and settled["resources"] == 2
    same = run_action(workspace_agent, {"name": "main", "arch": "amd64", "os": "linux", "state_file": STATE, **_gcs(emulator, state_encryption_key=NEW_KEY)})
    assert same["changed"] is False and same["agent"]["token"] == agent["agent"]["token"]

    for shown in (predicted, rotated, again, settled):
        text = json.dumps(shown)
        assert KEY not in text and NEW_KEY not in text and TOKEN not in text


def test_a_write_between_the_read_and_the_new_key_is_kept(run_action: Run, emulator: Emulator, local_state: Local, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _agent = local_state
    assert _migrate(run_action, str(path), STATE, **_gcs(emulator, state_encryption_key=KEY))["changed"] is True
    upload = GcsStateBackend._upload
    raced: list[int] = []

    def racing(backend: GcsStateBackend, state: WorkspaceState, generation: int) -> bool:
        if not raced:
            raced.append(generation)  # another run, still on the old key, adds an agent first
            spare = run_action(
                workspace_agent, {"name": "spare", "arch": "amd64", "os": "linux", "state_file": STATE, **_gcs(emulator, state_encryption_key=KEY)}
            )
            assert spare["changed"] is True, spare
        return upload(backend, state, generation)

    monkeypatch.setattr(GcsStateBackend, "_upload", racing)
    _methods(emulator)
    rotated = _migrate(run_action, STATE, STATE, **_gcs(emulator, src_encryption_key=KEY, state_encryption_key=NEW_KEY))
    assert rotated["changed"] is True, rotated
    assert rotated["addresses"] == ["workspace_agent.main", "workspace_agent.spare", "workspace_app.code"]
    # read, (the other run's read and write), the refused upload, read again, the upload
    assert _methods(emulator) == ["GET", "GET", "POST", "POST", "GET", "POST"]
    stored = json.loads(_stored(emulator, key=NEW_KEY).content)
    assert sorted(stored["resources"]) == rotated["addresses"]


def test_an_object_without_a_key_is_encrypted_in_place(run_action: Run, emulator: Emulator, local_state: Local) -> None:
    path, _agent = local_state
    assert _migrate(run_action, str(path), STATE, **_gcs(emulator))["changed"] is True
    encrypt = _gcs(emulator, src_encryption_key="", state_encryption_key=KEY)
    assert _migrate(run_action, STATE, STATE, **encrypt)["changed"] is True
    assert _stored(emulator, key=None).status_code == 400
    assert json.loads(_stored(emulator, key=KEY).content) == json.loads(path.read_bytes())
    assert _migrate(run_action, STATE, STATE, **encrypt)["changed"] is False


def test_a_wrong_src_key_fails_naming_its_option(run_action: Run, emulator: Emulator, local_state: Local, tmp_path: pathlib.Path) -> None:
    path, _agent = local_state
    assert _migrate(run_action, str(path), STATE, **_gcs(emulator, state_encryption_key=KEY))["changed"] is True
    failed = _migrate(run_action, STATE, str(tmp_path / "copy.json"), **_gcs(emulator, src_encryption_key=NEW_KEY, state_encryption_key=KEY))
    assert failed["failed"] is True
    assert "src_encryption_key is not the key" in failed["msg"], failed["msg"]
    assert KEY not in failed["msg"] and NEW_KEY not in failed["msg"]
    assert not (tmp_path / "copy.json").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "is not valid JSON"),
        (b'{"format": "something else"}', "is not a workspace state file"),
        (b'{"format": "devinfra.providers.workspace", "version": 1, "resources": []}', "is corrupt"),
    ],
)
def test_a_corrupt_src_fails_with_the_backends_message(run_action: Run, emulator: Emulator, tmp_path: pathlib.Path, content: bytes, message: str) -> None:
    src = tmp_path / "corrupt.json"
    src.write_bytes(content)
    src.chmod(0o600)
    failed = _migrate(run_action, str(src), STATE, **_gcs(emulator))
    assert failed["failed"] is True and message in failed["msg"] and str(src) in failed["msg"]

    _upload(emulator, content)
    _methods(emulator)
    back = tmp_path / "back.json"
    failed = _migrate(run_action, STATE, str(back), **_gcs(emulator))
    assert failed["failed"] is True and message in failed["msg"] and STATE in failed["msg"]
    assert not back.exists()


@pytest.mark.parametrize("content", [None, b"", b'{"format": "devinfra.providers.workspace", "version": 1, "resources": {}}'])
def test_a_src_without_resources_fails(run_action: Run, emulator: Emulator, tmp_path: pathlib.Path, content: bytes | None) -> None:
    src = tmp_path / "empty.json"
    if content is not None:
        src.write_bytes(content)
        src.chmod(0o600)
    failed = _migrate(run_action, str(src), STATE, **_gcs(emulator))
    assert failed["msg"] == f"src {src} holds no workspace state (it does not exist or holds no resources); nothing was written"
    assert "POST" not in _methods(emulator)

    if content is not None:
        _upload(emulator, content)
    failed = _migrate(run_action, STATE, str(tmp_path / "back.json"), **_gcs(emulator))
    assert failed["msg"] == f"src {STATE} holds no workspace state (it does not exist or holds no resources); nothing was written"


def test_an_empty_dest_file_is_written(run_action: Run, local_state: Local, tmp_path: pathlib.Path) -> None:
    path, _agent = local_state
    dest = tmp_path / "touched.json"
    dest.touch(mode=0o600)
    moved = _migrate(run_action, str(path), str(dest))
    assert moved["changed"] is True and dest.read_bytes() == path.read_bytes()
    assert _migrate(run_action, str(path), str(dest))["changed"] is False
    assert _migrate(run_action, str(path), str(path))["changed"] is False  # the same file is its own copy


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"src": "gs://ws-migration", "dest": "x.json"}, "src: 'gs://ws-migration': it names no object"),
        ({"src": "x.json", "dest": "gs://Bad_Bucket/x.json"}, "dest: 'gs://Bad_Bucket/x.json' does not name a bucket"),
        ({"src": "", "dest": "x.json"}, "src: must not be empty"),
        ({"src": "s3://b/x.json", "dest": "x.json"}, "src: s3:// is not a supported state location"),
        ({"src": "gs://ws-migration/x", "dest": "x.json", "src_encryption_key": "short"}, "src_encryption_key: must be an AES-256 key"),
        ({"src": "x.json", "dest": "gs://ws-migration/x", "state_encryption_key": "short"}, "state_encryption_key: must be an AES-256 key"),
        ({"src": "x.json"}, "missing required arguments: dest"),
        ({"src": "x.json", "dest": "y.json", "state_file": "z.json"}, "Unsupported parameters for (devinfra.providers.workspace_state) module: state_file"),
    ],
)
def test_bad_options_name_the_option(run_action: Run, emulator: Emulator, args: dict[str, t.Any], message: str) -> None:
    failed = run_action(workspace_state, {**_gcs(emulator), **args})
    assert failed["failed"] is True
    assert message in failed["msg"], failed["msg"]
    assert "short" not in failed["msg"]


def test_no_secret_in_results_errors_or_diffs(run_action: Run, emulator: Emulator, local_state: Local, tmp_path: pathlib.Path) -> None:
    path, agent = local_state
    options = _gcs(emulator, state_encryption_key=KEY)
    results = [
        _migrate(run_action, str(path), STATE, check_mode=True, **options),
        _migrate(run_action, str(path), STATE, **options),
        _migrate(run_action, str(path), STATE, **options),
        _migrate(run_action, STATE, str(tmp_path / "back.json"), **options),
    ]
    other = tmp_path / "other.json"
    run_action(workspace_agent, {"name": "main", "arch": "arm64", "os": "linux", "state_file": str(other)})
    results.append(_migrate(run_action, str(other), STATE, **options))  # refused: a different state
    results.append(_migrate(run_action, STATE, str(tmp_path / "x.json"), **_gcs(emulator, src_encryption_key=NEW_KEY)))  # a wrong key
    assert results[-2]["failed"] is True and results[-1]["failed"] is True
    secrets = {TOKEN, KEY, NEW_KEY, agent["agent"]["token"], json.loads(other.read_bytes())["resources"]["workspace_agent.main"]["computed"]["token"]}
    for result in results:
        text = json.dumps(result)
        assert not [secret for secret in secrets if secret in text], result
        assert "_ansible_no_log" not in result  # nothing to hide: the result is shown as it is
