# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The emulator answers as the real notificationConfigs API does (status codes, body shapes,
key names), so the module tests that run against it mean something."""

from __future__ import annotations

import http.client
import json
import pathlib
import subprocess
import sys
import time
import typing as t

import pytest
import requests

from ansible_collections.devinfra.providers.tests.gcs_emulator import server
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, State

TOKEN = "emulator-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TOPIC = "projects/demo-project/topics/uploads"


@pytest.fixture
def emu() -> t.Iterator[Emulator]:
    state = State(tokens={TOKEN: "write", "reader": "read"}, topics={TOPIC: True, "projects/demo-project/topics/locked": False})
    state.buckets["media"] = Bucket("media")
    state.buckets["paid"] = Bucket("paid", requester_pays=True)
    with Emulator(state) as emulator:
        yield emulator


def api(emu: Emulator, method: str, path: str, **kwargs: t.Any) -> requests.Response:
    kwargs.setdefault("headers", AUTH)
    return requests.request(method, f"{emu.url}/storage/v1/{path}", timeout=5, **kwargs)


def insert(emu: Emulator, body: dict[str, t.Any], bucket: str = "media") -> requests.Response:
    return api(emu, "POST", f"b/{bucket}/notificationConfigs", json=body)


def assert_error(response: requests.Response, status: int, reason: str, message: str) -> None:
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == status
    assert message in body["error"]["message"]
    assert body["error"]["errors"][0]["domain"] == "global"
    assert body["error"]["errors"][0]["reason"] == reason
    assert body["error"]["errors"][0]["message"] == body["error"]["message"]


def test_lifecycle(emu: Emulator) -> None:
    empty = api(emu, "GET", "b/media/notificationConfigs")
    assert (empty.status_code, empty.json()) == (200, {"kind": "storage#notifications"})  # no "items" when empty
    created = insert(emu, {"topic": TOPIC, "payload_format": "NONE", "event_types": ["OBJECT_FINALIZE"], "custom_attributes": {"a": "1"}})
    assert created.status_code == 200
    resource = created.json()
    assert resource["id"].isdigit()
    assert resource["topic"] == "//pubsub.googleapis.com/" + TOPIC
    assert set(resource) == {"kind", "id", "topic", "payload_format", "event_types", "custom_attributes", "etag", "selfLink"}
    assert resource["kind"] == "storage#notification"
    assert resource["selfLink"] == f"{emu.url}/storage/v1/b/media/notificationConfigs/{resource['id']}"
    assert api(emu, "GET", f"b/media/notificationConfigs/{resource['id']}").json() == resource
    assert api(emu, "GET", "b/media/notificationConfigs").json() == {"kind": "storage#notifications", "items": [resource]}
    default = insert(emu, {"topic": "//pubsub.googleapis.com/" + TOPIC}).json()
    assert default["payload_format"] == "JSON_API_V1"
    assert "event_types" not in default
    assert default["id"] != resource["id"]
    assert emu.state.buckets["media"].metageneration == 3
    deleted = api(emu, "DELETE", f"b/media/notificationConfigs/{resource['id']}")
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert emu.state.buckets["media"].metageneration == 4
    assert_error(api(emu, "DELETE", f"b/media/notificationConfigs/{resource['id']}"), 404, "notFound", "Not Found")
    assert_error(api(emu, "GET", f"b/media/notificationConfigs/{resource['id']}"), 404, "notFound", "Not Found")


@pytest.mark.parametrize(
    ("headers", "status", "reason", "message"),
    [
        ({}, 401, "required", "Anonymous caller does not have storage.buckets.get access"),
        ({"Authorization": "Bearer nope"}, 401, "authError", "Invalid Credentials"),
        ({"Authorization": f"Basic {TOKEN}"}, 401, "authError", "Invalid Credentials"),
    ],
)
def test_bearer_token_check(emu: Emulator, headers: dict[str, str], status: int, reason: str, message: str) -> None:
    response = api(emu, "GET", "b/media/notificationConfigs", headers=headers)
    assert_error(response, status, reason, message)
    assert response.json()["error"]["errors"][0]["location"] == "Authorization"
    assert "WWW-Authenticate" in response.headers


def test_read_only_token(emu: Emulator) -> None:
    reader = {"Authorization": "Bearer reader"}
    assert api(emu, "GET", "b/media/notificationConfigs", headers=reader).status_code == 200
    response = api(emu, "POST", "b/media/notificationConfigs", headers=reader, json={"topic": TOPIC})
    assert_error(response, 403, "forbidden", "does not have storage.buckets.update access to the Google Cloud Storage bucket.")


@pytest.mark.parametrize(
    ("body", "status", "reason", "message"),
    [
        ({}, 400, "required", "topic"),
        ({"topic": "uploads"}, 400, "invalid", "Invalid Cloud Pub/Sub topic name"),
        ({"topic": TOPIC, "payload_format": "XML"}, 400, "invalid", "payload_format"),
        ({"topic": TOPIC, "event_types": ["OBJECT_CREATE"]}, 400, "invalid", "event_types"),
        ({"topic": TOPIC, "custom_attributes": {"n": 1}}, 400, "invalid", "custom_attributes"),
        (
            {"topic": "projects/demo-project/topics/locked"},
            403,
            "forbidden",
            "The service account 'service-123456789012@gs-project-accounts.iam.gserviceaccount.com' does not have permission to publish "
            "messages to to the Cloud Pub/Sub topic '//pubsub.googleapis.com/projects/demo-project/topics/locked', or that topic does not exist.",
        ),
        ({"topic": "projects/demo-project/topics/absent"}, 403, "forbidden", "or that topic does not exist"),
    ],
)
def test_insert_errors(emu: Emulator, body: dict[str, t.Any], status: int, reason: str, message: str) -> None:
    assert_error(insert(emu, body), status, reason, message)
    assert emu.state.buckets["media"].configs == {}


def test_parse_error(emu: Emulator) -> None:
    assert_error(
        api(emu, "POST", "b/media/notificationConfigs", data="{", headers={**AUTH, "Content-Type": "application/json"}), 400, "parseError", "Parse Error"
    )


def test_unknown_bucket_route_and_method(emu: Emulator) -> None:
    assert_error(api(emu, "GET", "b/nope/notificationConfigs"), 404, "notFound", "The specified bucket does not exist.")
    assert_error(api(emu, "GET", "b/media/objects"), 404, "notFound", "Not Found")
    assert_error(api(emu, "PATCH", "b/media/notificationConfigs/1", json={}), 405, "methodNotAllowed", "PATCH")


def raw_get(emu: Emulator, path: str) -> tuple[int, dict[str, t.Any]]:
    """A GET with the path as written: requests would normalise "..", http.client does not."""
    host, port = emu.server.address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        connection.request("GET", path, headers=AUTH)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


@pytest.mark.parametrize("bucket", ["..", ".", "%2e%2e", "%2E.", "Media", "ab", "a..b", "-ab", "192.168.5.4", "goog-x", "a%0ab", "a%00b", "x" * 64])
def test_invalid_bucket_names_are_refused(emu: Emulator, bucket: str) -> None:
    status, body = raw_get(emu, f"/storage/v1/b/{bucket}/notificationConfigs")
    assert (status, body["error"]["errors"][0]["reason"]) == (400, "invalid")
    assert body["error"]["message"].startswith("Invalid bucket name: ")
    assert emu.state.log[-1]["status"] == 400


def test_a_traversal_never_reaches_another_bucket(emu: Emulator) -> None:
    assert raw_get(emu, "/storage/v1/b/../b/media/notificationConfigs")[0] == 404  # no such route
    assert raw_get(emu, "/storage/v1/b/media/notificationConfigs/..")[0] == 404  # no such config


@pytest.mark.parametrize(
    "body",
    [
        {"topic": TOPIC, "custom_attributes": {"k\x00\t": "v\n\x1b[31m\x85\u2028", "<b>": "{{ x }}"}},
        {"topic": TOPIC, "object_name_prefix": "in\tcoming/\x00\x1b\x7f\x85\u202e/"},
        {"topic": TOPIC, "object_name_prefix": "é" * 512},
    ],
)
def test_data_with_control_characters_round_trips(emu: Emulator, body: dict[str, t.Any]) -> None:
    created = insert(emu, body).json()
    fetched = api(emu, "GET", f"b/media/notificationConfigs/{created['id']}").json()
    for key, value in body.items():
        if key != "topic":
            assert created[key] == fetched[key] == value


@pytest.mark.parametrize("prefix", ["a\nb", "\r", "x" * 1025, "é" * 513])
def test_object_name_prefix_follows_the_object_name_rules(emu: Emulator, prefix: str) -> None:
    assert_error(insert(emu, {"topic": TOPIC, "object_name_prefix": prefix}), 400, "invalid", "object_name_prefix")


def test_requester_pays(emu: Emulator) -> None:
    assert_error(insert(emu, {"topic": TOPIC}, "paid"), 400, "required", "Bucket is a requester pays bucket but no user project provided.")
    assert api(emu, "GET", "b/paid/notificationConfigs", params={"userProject": "billing"}).status_code == 200
    emu.state.billing_projects = {"billing"}
    assert_error(api(emu, "GET", "b/paid/notificationConfigs", params={"userProject": "other"}), 400, "invalid", "User project specified")


def test_per_bucket_limits(emu: Emulator) -> None:
    for _index in range(server.MAX_CONFIGS_PER_EVENT_TYPE):
        assert insert(emu, {"topic": TOPIC, "event_types": ["OBJECT_DELETE"]}).status_code == 200
    assert_error(insert(emu, {"topic": TOPIC, "event_types": ["OBJECT_DELETE"]}), 400, "invalid", "event type OBJECT_DELETE")
    assert_error(insert(emu, {"topic": TOPIC}), 400, "invalid", "event type OBJECT_DELETE")  # no event types = all of them
    assert insert(emu, {"topic": TOPIC, "event_types": ["OBJECT_ARCHIVE"]}).status_code == 200  # other event types still fit
    configs = emu.state.buckets["media"].configs
    while len(configs) < server.MAX_CONFIGS_PER_BUCKET:
        configs[str(1000 + len(configs))] = {"id": str(1000 + len(configs)), "event_types": ["OBJECT_METADATA_UPDATE"]}
    assert_error(insert(emu, {"topic": TOPIC, "event_types": ["OBJECT_ARCHIVE"]}), 400, "invalid", "at most 100 notification configurations")


def test_faults_and_stats(emu: Emulator) -> None:
    control = f"{emu.url}/_emulator"
    fault = {"method": "GET", "status": 429, "reason": "rateLimitExceeded", "message": "slow down", "retry_after": "0"}
    requests.post(f"{control}/faults", json=fault, timeout=5)
    requests.post(f"{control}/faults", json={"method": "GET", "reset": True}, timeout=5)
    limited = api(emu, "GET", "b/media/notificationConfigs")
    assert_error(limited, 429, "rateLimitExceeded", "slow down")
    assert limited.headers["Retry-After"] == "0"
    with pytest.raises(requests.ConnectionError):
        api(emu, "GET", "b/media/notificationConfigs")
    requests.post(f"{control}/faults", json={"method": "GET", "delay": 0.5}, timeout=5)
    with pytest.raises(requests.ReadTimeout):
        requests.get(f"{emu.url}/storage/v1/b/media/notificationConfigs", headers=AUTH, timeout=0.1)
    time.sleep(0.6)  # the late answer is logged once it is sent
    assert api(emu, "GET", "b/media/notificationConfigs").status_code == 200
    stats = requests.get(f"{control}/stats", timeout=5).json()
    assert stats["requests"] == 4
    assert stats["by_method"] == {"GET": 4}
    assert [entry["status"] for entry in stats["log"]] == [429, "reset", 200, 200]
    assert requests.post(f"{control}/stats/reset", timeout=5).json()["requests"] == 0
    requests.post(f"{control}/faults", json={"method": "POST", "status": 500, "count": 5}, timeout=5)
    assert requests.delete(f"{control}/faults", timeout=5).json() == {"faults": []}
    requests.post(f"{control}/buckets", json={"name": "new", "requester_pays": True}, timeout=5)
    requests.post(f"{control}/topics", json={"topic": "projects/demo-project/topics/new"}, timeout=5)
    requests.post(f"{control}/tokens", json={"token": "t2"}, timeout=5)
    created = insert(emu, {"topic": "projects/demo-project/topics/new"}, "new")
    assert created.status_code == 400  # requester pays
    created = api(
        emu,
        "POST",
        "b/new/notificationConfigs",
        params={"userProject": "p"},
        json={"topic": "projects/demo-project/topics/new"},
        headers={"Authorization": "Bearer t2"},
    )
    assert created.status_code == 200
    state = requests.get(f"{control}/state", timeout=5).json()
    assert state["buckets"]["new"]["configs"] == [created.json()]
    assert requests.get(f"{control}/nope", timeout=5).status_code == 404
    assert requests.post(f"{control}/faults", json={"status": 500, "colour": "red"}, timeout=5).status_code == 400


def test_token_endpoint() -> None:
    """Service account keys whose token_uri points at the emulator get its OAuth token, which then works."""
    grant = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": "header.claims.signature"}
    with Emulator(State(buckets={"media": Bucket("media")})) as plain:
        assert requests.post(f"{plain.url}/token", data=grant, timeout=5).status_code == 404
    with Emulator(State(oauth_token="issued-token", buckets={"media": Bucket("media")})) as emu:
        assert requests.post(f"{emu.url}/token", data={**grant, "assertion": "not-a-jwt"}, timeout=5).json()["error"] == "invalid_grant"
        assert api(emu, "GET", "b/media/notificationConfigs", headers={"Authorization": "Bearer issued-token"}).status_code == 401
        issued = requests.post(f"{emu.url}/token", data=grant, timeout=5)
        assert issued.json() == {"access_token": "issued-token", "expires_in": 3600, "token_type": "Bearer"}
        assert api(emu, "GET", "b/media/notificationConfigs", headers={"Authorization": "Bearer issued-token"}).status_code == 200
        assert requests.get(f"{emu.url}/_emulator/stats", timeout=5).json()["requests"] == 2  # /token is not an API request


def test_loopback_only() -> None:
    with pytest.raises(ValueError, match="loopback addresses only"):
        Emulator(host="0.0.0.0")


def test_command_line(tmp_path: pathlib.Path) -> None:
    port_file = tmp_path / "port"
    args = ["--port", "0", "--port-file", str(port_file), "--token", TOKEN, "--bucket", "media", "--topic", TOPIC]
    process = subprocess.Popen([sys.executable, server.__file__, *args])
    try:
        deadline = time.monotonic() + 20
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port_file.read_text().strip()}"
        created = requests.post(f"{url}/storage/v1/b/media/notificationConfigs", json={"topic": TOPIC}, headers=AUTH, timeout=5)
        assert created.status_code == 200
        assert requests.post(f"{url}/_emulator/shutdown", timeout=5).json() == {"stopping": True}
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
