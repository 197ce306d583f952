# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The gs:// state backend against the project's Cloud Storage emulator (over HTTP)."""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import time
import typing as t

import pytest
import requests
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import NOT_ONE_LINE
from ansible_collections.devinfra.providers.plugins.module_utils._workspace import state_gcs
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.backend import open_backend
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.document import WorkspaceState
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.engine import apply_resource
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import StateFileError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import AGENT
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.state_gcs import MAX_ATTEMPTS, GcsStateBackend
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

TOKEN = "state-write-token"
READ_TOKEN = "state-read-token"
KEY = base64.b64encode(bytes(range(32))).decode()
OTHER_KEY = base64.b64encode(bytes(range(1, 33))).decode()
LOCATION = "gs://states/workspaces/dev.json"


@pytest.fixture(autouse=True)
def _no_gcp_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("GCP_", "DEVINFRA_", "GOOGLE_")) or name == "STORAGE_EMULATOR_HOST":
            monkeypatch.delenv(name)


@pytest.fixture
def emulator() -> t.Iterator[Emulator]:
    with Emulator(State(tokens={TOKEN: "write", READ_TOKEN: "read"}, buckets={"states": Bucket("states")})) as server:
        yield server


def backend(emulator: Emulator, location: str = LOCATION, **options: t.Any) -> GcsStateBackend:
    environ = {"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN, "STORAGE_EMULATOR_HOST": emulator.url}
    opened = open_backend(location, options, environ=environ)
    assert isinstance(opened, GcsStateBackend)
    opened.sleep = lambda _seconds: None
    return opened


def requests_log(emulator: Emulator) -> list[tuple[str, str]]:
    stats = requests.get(f"{emulator.url}/_emulator/stats", timeout=10).json()
    return [(entry["method"], entry["path"]) for entry in stats["log"]]


def reset_log(emulator: Emulator) -> None:
    requests.post(f"{emulator.url}/_emulator/stats/reset", timeout=10)


def entry(value: str) -> dict[str, t.Any]:
    return {"arguments": {"value": value}, "computed": {"id": value}}


def put(address: str, value: str) -> t.Callable[[WorkspaceState], str]:
    def change(state: WorkspaceState) -> str:
        state.put(address, entry(value))
        return value

    return change


def raw_object(emulator: Emulator, *, key: str | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if key is not None:
        headers.update(state_gcs._encryption_headers(key))
    return requests.get(f"{emulator.url}/storage/v1/b/states/o/workspaces%2Fdev.json", params={"alt": "media"}, headers=headers, timeout=10)


# --- the location and the options, checked before anything is sent ---------------------------


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("gs://", "state_file: 'gs://' does not name a bucket"),
        ("gs://Bad_Bucket/x.json", "does not name a bucket: 'Bad_Bucket' is not a valid bucket name"),
        ("gs://states", "it names no object"),
        ("gs://states/", "it names no object"),
        ("gs://states/dir/", "it is not a valid object name"),
        ("gs://states/..", "it is not a valid object name"),
        ("gs://states/a\nb", "its object name contains the control character U+000A at position 1"),
        ("gs://states/" + "x" * 1025, "longer than 1024 bytes"),
    ],
)
def test_bad_locations_name_the_option(location: str, message: str) -> None:
    with pytest.raises(StateFileError, match=re.escape(message)) as caught:
        open_backend(location, {}, environ={"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN})
    assert str(caught.value).startswith("state_file: ")


@pytest.mark.parametrize("key", ["not base64!", base64.b64encode(b"short").decode(), base64.b64encode(bytes(33)).decode()])
def test_a_bad_encryption_key_is_refused_without_being_shown(key: str) -> None:
    with pytest.raises(StateFileError, match="^state_encryption_key: must be an AES-256 key") as caught:
        open_backend(LOCATION, {"state_encryption_key": key}, environ={"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN})
    assert key not in str(caught.value)


def test_options_win_over_the_environment(emulator: Emulator) -> None:
    opened = open_backend(
        LOCATION,
        {"auth_kind": "accesstoken", "access_token": TOKEN, "api_endpoint": emulator.url},
        environ={"GCP_AUTH_KIND": "serviceaccount", "STORAGE_EMULATOR_HOST": "http://127.0.0.1:9"},
    )
    assert opened.read().resources == {}


def test_an_unknown_token_fails_without_showing_it(emulator: Emulator) -> None:
    opened = open_backend(
        LOCATION, {}, environ={"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": "wrong-token-value", "STORAGE_EMULATOR_HOST": emulator.url}
    )
    with pytest.raises(StateFileError, match=r"read the state gs://states/workspaces/dev.json: HTTP 401") as caught:
        opened.read()
    assert "wrong-token-value" not in str(caught.value)


# --- reads and writes ---------------------------------------------------------------------------


def test_a_missing_object_is_an_empty_state_and_a_missing_bucket_an_error(emulator: Emulator) -> None:
    assert backend(emulator).read().resources == {}
    with pytest.raises(StateFileError, match="HTTP 404: The specified bucket does not exist"):
        backend(emulator, "gs://no-such-bucket/state.json").read()


def test_write_read_and_a_noop_costs_one_get(emulator: Emulator) -> None:
    store = backend(emulator)
    assert store.transact(put("thing.a", "1"), write=True) == "1"
    assert store.read().get("thing.a") == entry("1")
    document = raw_object(emulator).json()
    assert document["format"] == "devinfra.providers.workspace"
    assert document["resources"] == {"thing.a": entry("1")}
    reset_log(emulator)
    assert store.transact(put("thing.a", "1"), write=True) == "1"
    assert requests_log(emulator) == [("GET", "/storage/v1/b/states/o/workspaces%2Fdev.json")]


def test_check_mode_only_reads(emulator: Emulator) -> None:
    store = backend(emulator)
    store.transact(put("thing.a", "1"), write=False)
    assert [method for method, _path in requests_log(emulator)] == ["GET"]
    assert raw_object(emulator).status_code == 404


def test_the_first_write_creates_only_when_nothing_exists(emulator: Emulator) -> None:
    store = backend(emulator)
    store.transact(put("thing.a", "1"), write=True)
    log = requests.get(f"{emulator.url}/_emulator/stats", timeout=10).json()["log"]
    upload = next(entry for entry in log if entry["method"] == "POST")
    assert "ifGenerationMatch=0" in upload["query"]


def test_a_concurrent_write_is_replanned_on_the_fresh_state(emulator: Emulator) -> None:
    store, other = backend(emulator), backend(emulator)
    calls: list[int] = []

    def change(state: WorkspaceState) -> int:
        calls.append(len(state.resources))
        if len(calls) == 1:
            other.transact(put("thing.other", "o"), write=True)  # lands between our read and our write
        state.put("thing.mine", entry("m"))
        return len(calls)

    assert store.transact(change, write=True) == 2
    assert calls == [0, 1]
    assert set(store.read().resources) == {"thing.other", "thing.mine"}


def test_a_retried_upload_that_had_landed_is_not_planned_again(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    store = backend(emulator)
    real_upload = store._upload
    calls: list[str] = []

    def lost_answer(state: WorkspaceState, generation: int) -> bool:
        assert real_upload(state, generation)
        return False  # what a retry of the same upload answers once the first had landed: 412

    monkeypatch.setattr(store, "_upload", lost_answer)

    def change(state: WorkspaceState) -> str:
        calls.append("planned")
        state.put("thing.a", entry(f"run-{len(calls)}"))
        return f"run-{len(calls)}"

    assert store.transact(change, write=True) == "run-1"
    assert calls == ["planned"]
    assert store.read().get("thing.a") == entry("run-1")


def test_many_writers_lose_nothing(emulator: Emulator) -> None:
    writers, each = 8, 6
    errors: list[BaseException] = []

    def write(writer: int) -> None:
        store = backend(emulator)
        # The backend's own backoff between rounds (jittered, growing; about 2 s for the whole
        # test): without it, eight threads on a loaded machine starved one past MAX_ATTEMPTS.
        store.sleep = time.sleep
        try:
            for index in range(each):
                store.transact(put(f"thing.w{writer}-{index}", f"{writer}-{index}"), write=True)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(writer,)) for writer in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(backend(emulator).read().resources) == writers * each


def test_giving_up_after_the_bounded_attempts(emulator: Emulator) -> None:
    fault = {
        "method": "POST",
        "path": "/upload/",
        "count": MAX_ATTEMPTS,
        "status": 412,
        "reason": "conditionNotMet",
        "message": "At least one of the pre-conditions you specified did not hold.",
    }
    requests.post(f"{emulator.url}/_emulator/faults", json=fault, timeout=10)
    with pytest.raises(StateFileError, match=f"another run changed it before each of {MAX_ATTEMPTS} attempts .*nothing of this task was written"):
        backend(emulator).transact(put("thing.a", "1"), write=True)
    assert raw_object(emulator).status_code == 404


def test_a_corrupt_object_is_an_error_and_left_untouched(emulator: Emulator) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    url = f"{emulator.url}/upload/storage/v1/b/states/o"
    created = requests.post(url, params={"uploadType": "media", "name": "workspaces/dev.json"}, data=b'{"token": "secret-abc", ', headers=headers, timeout=10)
    assert created.status_code == 200
    with pytest.raises(StateFileError, match=r"^gs://states/workspaces/dev.json is not valid JSON .*it was left untouched$") as caught:
        backend(emulator).transact(put("thing.a", "1"), write=True)
    assert "secret-abc" not in str(caught.value)
    assert raw_object(emulator).content == b'{"token": "secret-abc", '


@pytest.mark.parametrize("field", ["token", "id"])
def test_a_crafted_state_object_is_refused_when_it_is_read(emulator: Emulator, field: str) -> None:
    """Whoever can write the bucket object: a newline and LD_PRELOAD= in the stored agent token
    or id (the role writes them into the guest's agent environment file and meta-data) is
    refused when the state is read, naming the entry and the field, never the value; the
    module's task fails the same way and the object is left as it is."""
    arguments = {"name": "main", "arch": "amd64", "os": "linux", "state_file": LOCATION}
    validated = ArgumentSpecValidator(AGENT.full_argument_spec()).validate(arguments)
    assert not validated.error_messages
    environ = {"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN, "STORAGE_EMULATOR_HOST": emulator.url}
    assert apply_resource(AGENT, validated.validated_parameters, check_mode=False, want_diff=False, environ=environ).changed
    document = json.loads(raw_object(emulator).content)
    document["resources"]["workspace_agent.main"]["computed"][field] += "\nLD_PRELOAD=/tmp/evil.so\nCODER_AGENT_URL=http://evil.example"
    crafted = json.dumps(document).encode()
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    url = f"{emulator.url}/upload/storage/v1/b/states/o"
    assert requests.post(url, params={"uploadType": "media", "name": "workspaces/dev.json"}, data=crafted, headers=headers, timeout=10).ok
    expected = f"{LOCATION} is corrupt: the entry workspace_agent.main: computed.{field} must be a UUID"
    for attempt in (
        lambda: backend(emulator).read(),
        lambda: apply_resource(AGENT, validated.validated_parameters, check_mode=True, want_diff=True, environ=environ),
        lambda: apply_resource(AGENT, validated.validated_parameters, check_mode=False, want_diff=True, environ=environ),
    ):
        with pytest.raises(StateFileError) as caught:
            attempt()
        assert str(caught.value).startswith(expected), str(caught.value)
        assert "LD_PRELOAD" not in str(caught.value) and "evil" not in str(caught.value)
    assert raw_object(emulator).content == crafted


def test_a_read_only_token_can_read_but_not_write(emulator: Emulator) -> None:
    backend(emulator).transact(put("thing.a", "1"), write=True)
    reader = open_backend(LOCATION, {}, environ={"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": READ_TOKEN, "STORAGE_EMULATOR_HOST": emulator.url})
    assert reader.read().get("thing.a") == entry("1")
    with pytest.raises(StateFileError, match=r"write the state gs://states/workspaces/dev.json: HTTP 403"):
        reader.transact(put("thing.b", "2"), write=True)


# --- the customer-supplied encryption key ------------------------------------------------------


def test_an_encrypted_state_needs_its_key(emulator: Emulator) -> None:
    backend(emulator, state_encryption_key=KEY).transact(put("thing.a", "1"), write=True)
    assert backend(emulator, state_encryption_key=KEY).read().get("thing.a") == entry("1")
    metadata = requests.get(f"{emulator.url}/storage/v1/b/states/o/workspaces%2Fdev.json", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).json()
    assert metadata["customerEncryption"]["encryptionAlgorithm"] == "AES256"
    assert raw_object(emulator).status_code == 400

    with pytest.raises(StateFileError, match="set state_encryption_key to that key") as without:
        backend(emulator).read()
    with pytest.raises(StateFileError, match="state_encryption_key is not the key") as wrong:
        backend(emulator, state_encryption_key=OTHER_KEY).read()
    for caught in (without, wrong):
        assert KEY not in str(caught.value) and OTHER_KEY not in str(caught.value)
    state = requests.get(f"{emulator.url}/_emulator/state", timeout=10).text
    assert KEY not in state and "thing.a" not in state


def test_the_key_headers() -> None:
    headers = state_gcs._encryption_headers(f" {KEY}\n")
    assert headers["x-goog-encryption-algorithm"] == "AES256"
    assert headers["x-goog-encryption-key"] == KEY
    assert headers["x-goog-encryption-key-sha256"] == "Yw3NKWbEM2aRElRIu7JbT/QSpJxzLbLIq8G4WBvXEN0="
    assert state_gcs._encryption_headers(None) == {} == state_gcs._encryption_headers("")


def test_the_state_is_the_file_format(emulator: Emulator, tmp_path: t.Any) -> None:
    """The object holds what the file holds: a state file copied into the bucket is read as it is."""
    path = tmp_path / "state.json"
    open_backend(str(path), {}, environ={}).transact(put("thing.a", "1"), write=True)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    url = f"{emulator.url}/upload/storage/v1/b/states/o"
    assert requests.post(url, params={"uploadType": "media", "name": "workspaces/dev.json"}, data=path.read_bytes(), headers=headers, timeout=10).ok
    assert backend(emulator).read().get("thing.a") == entry("1")
    assert json.loads(raw_object(emulator).content) == json.loads(path.read_text())


def test_a_service_account_key_given_as_a_dictionary() -> None:
    """service_account_contents as a dictionary (a lookup option, or a module's raw option): the
    key's JWT is exchanged at the emulator's token endpoint for a token that may write."""
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    with Emulator(State(oauth_token="issued-token", buckets={"states": Bucket("states")})) as server:
        key = {
            "type": "service_account",
            "project_id": "p",
            "private_key_id": "k1",
            "private_key": pem,
            "client_email": "states@p.iam.gserviceaccount.com",
            "client_id": "1",
            "token_uri": f"{server.url}/token",
        }
        options = {"auth_kind": "serviceaccount", "service_account_contents": key, "api_endpoint": server.url}
        opened = open_backend(LOCATION, options, environ={})
        opened.transact(put("thing.a", "1"), write=True)
        assert opened.read().get("thing.a") == entry("1")


# --- a hostile endpoint: redirects, huge, nested and escaped answers, plain HTTP ----------------


@pytest.fixture
def elsewhere() -> t.Iterator[Emulator]:
    """Where a redirect points: another address, which must receive nothing."""
    with Emulator(State(), host="127.0.0.2") as server:
        yield server


def fault(emulator: Emulator, **values: t.Any) -> None:
    requests.post(f"{emulator.url}/_emulator/faults", json=values, timeout=10).raise_for_status()


def received(emulator: Emulator) -> list[dict[str, t.Any]]:
    return t.cast("list[dict[str, t.Any]]", requests.get(f"{emulator.url}/_emulator/stats", timeout=10).json()["log"])


@pytest.mark.parametrize("status", [301, 302, 307, 308])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_redirect_carries_nothing_elsewhere(emulator: Emulator, elsewhere: Emulator, method: str, status: int) -> None:
    """Neither the key, the token nor the state (with its agent tokens) leaves for the Location."""
    backend(emulator, state_encryption_key=KEY).transact(put("thing.a", "DVTSECRET-agent-token"), write=True)
    reset_log(emulator)
    path = "/upload/" if method == "POST" else "/o/"
    fault(emulator, method=method, path=path, status=status, headers={"Location": f"{elsewhere.url}/upload/storage/v1/b/states/o?name=x&token=DVTSECRET-loc"})
    with pytest.raises(StateFileError) as caught:
        backend(emulator, state_encryption_key=KEY).transact(put("thing.b", "2"), write=True)
    message = str(caught.value)
    operation = "write" if method == "POST" else "read"
    assert message.startswith(
        f"{operation} the state {LOCATION}: HTTP {status}: the endpoint redirected to 127.0.0.2; "
        "redirects are never followed (they would carry the credentials elsewhere)"
    )
    assert "DVTSECRET" not in message and KEY not in message and TOKEN not in message
    assert received(elsewhere) == []
    assert [entry["method"] for entry in received(emulator)] == (["GET", "POST"] if method == "POST" else ["GET"])
    assert "thing.b" not in backend(emulator, state_encryption_key=KEY).read().resources  # nothing written


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "until-close"])
def test_an_oversized_state_object_is_not_read(emulator: Emulator, length: bool) -> None:
    fault(emulator, method="GET", path="/o/", status=200, size=200_000_000, length=length, headers={"x-goog-generation": "7"})
    started = time.monotonic()
    with pytest.raises(StateFileError) as caught:
        backend(emulator).transact(put("thing.a", "1"), write=True)
    assert str(caught.value).startswith(f"read the state {LOCATION}: the state object is larger than 16 MiB (HTTP answer from http://127.0.0.1:")
    assert str(caught.value).endswith("); it was not read further")
    assert time.monotonic() - started < 10
    assert [entry["method"] for entry in received(emulator)] == ["GET"]  # nothing written over it


def test_a_deeply_nested_state_object_is_a_clean_error(emulator: Emulator) -> None:
    fault(emulator, method="GET", path="/o/", status=200, nested=100_000, headers={"x-goog-generation": "7"})
    with pytest.raises(StateFileError, match=r"^gs://states/workspaces/dev.json is not a workspace state file \(its JSON is nested too deeply\)"):
        backend(emulator).read()


@pytest.mark.parametrize("status", [400, 403, 500])
def test_a_deeply_nested_error_body_is_a_clean_error(emulator: Emulator, status: int) -> None:
    # 30000 deep: within the 64 KiB read of an error body, so it is parsed (and found too deep).
    fault(emulator, method="GET", path="/o/", status=status, nested=30_000, count=4)
    with pytest.raises(StateFileError) as caught:
        backend(emulator).read()
    assert str(caught.value).startswith(f"read the state {LOCATION}: HTTP {status}: " + "[" * 300 + "... (60000 characters)")


def test_server_text_in_a_state_error_is_escaped(emulator: Emulator) -> None:
    # A media download's refusal is text, as the real service sends it.
    fault(emulator, method="GET", path="/o/", status=403, body="No.\x1b[2J\x9b31m\nFAKE: all fine\u202e\u2028", headers={"Content-Type": "text/plain"})
    with pytest.raises(StateFileError) as caught:
        backend(emulator).read()
    message = str(caught.value)
    assert message.startswith(f"read the state {LOCATION}: HTTP 403: No.\\u001b[2J\\u009b31m FAKE: all fine\\u202e ")
    assert not NOT_ONE_LINE.search(message), repr(message)


@pytest.mark.parametrize(
    ("endpoint", "warns"),
    [
        ("http://127.0.0.1:4443", False),
        ("localhost:4443", False),
        ("https://storage.example.com", False),
        ("http://10.0.0.5:4443", True),
        ("storage.example.com", True),
    ],
)
def test_a_plaintext_endpoint_off_this_host_warns(endpoint: str, warns: bool) -> None:
    environ = {"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN, "STORAGE_EMULATOR_HOST": endpoint}
    opened = open_backend(LOCATION, {"state_encryption_key": KEY}, environ=environ)
    assert isinstance(opened, GcsStateBackend)
    if not warns:
        assert opened.warnings == []
        return
    (warning,) = opened.warnings
    assert warning.startswith("api_endpoint (or STORAGE_EMULATOR_HOST) is the plain HTTP URL http://")
    assert "the bearer token, state_encryption_key and the workspace state with its agent tokens travel in clear" in warning


def test_the_plaintext_warning_reaches_the_task_once(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the engine as a task runs it, with a write that meets a concurrent one (412) and
    reads the state again: one warning."""
    monkeypatch.setattr(state_gcs, "plaintext_warning", lambda *_args, **_kwargs: "PLAIN")
    fault(
        emulator, method="POST", path="/upload/", status=412, reason="conditionNotMet", message="At least one of the pre-conditions you specified did not hold."
    )
    arguments = {"name": "main", "arch": "amd64", "os": "linux", "state_file": LOCATION, "state_encryption_key": KEY}
    validated = ArgumentSpecValidator(AGENT.full_argument_spec()).validate(arguments)
    assert not validated.error_messages
    environ = {"GCP_AUTH_KIND": "accesstoken", "GCP_ACCESS_TOKEN": TOKEN, "STORAGE_EMULATOR_HOST": emulator.url}
    outcome = apply_resource(AGENT, validated.validated_parameters, check_mode=False, want_diff=False, environ=environ)
    assert outcome.changed
    assert [entry["method"] for entry in received(emulator)] == ["GET", "POST", "GET", "POST"]
    assert outcome.warnings.count("PLAIN") == 1
    checked = apply_resource(AGENT, validated.validated_parameters, check_mode=True, want_diff=False, environ=environ)
    assert checked.warnings.count("PLAIN") == 1
