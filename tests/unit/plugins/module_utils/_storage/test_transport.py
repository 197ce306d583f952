# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Transport and error mapping, with ``responses`` standing in for the network, and the
project's emulator as a hostile endpoint (redirects, huge, slow and nested answers)."""

from __future__ import annotations

import json
import re
import threading
import time
import typing as t

import google.oauth2.credentials
import pytest
import requests
import responses

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import NOT_ONE_LINE
from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import (
    StorageApiError,
    StorageAuthError,
    StorageNotFoundError,
    StorageTransportError,
    StorageValidationError,
    api_error,
    parse_error_body,
    safe_host,
)
from ansible_collections.devinfra.providers.plugins.module_utils._storage.transport import RetryPolicy, Transport, base_url, plaintext_warning
from ansible_collections.devinfra.providers.tests.gcs_emulator.server import Bucket, Emulator, Fault, State

LIST_URL = "http://127.0.0.1:9/storage/v1/b/media/notificationConfigs"


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        (None, "https://storage.googleapis.com/storage/v1/"),
        ("", "https://storage.googleapis.com/storage/v1/"),
        ("http://127.0.0.1:9023", "http://127.0.0.1:9023/storage/v1/"),
        ("http://127.0.0.1:9023/", "http://127.0.0.1:9023/storage/v1/"),
        ("localhost:4443", "http://localhost:4443/storage/v1/"),  # STORAGE_EMULATOR_HOST without scheme
        ("https://storage.mtls.googleapis.com/storage/v1", "https://storage.mtls.googleapis.com/storage/v1/"),
    ],
)
def test_base_url(endpoint: str | None, expected: str) -> None:
    assert base_url(endpoint) == expected


def test_base_url_rejects_other_schemes() -> None:
    with pytest.raises(StorageValidationError, match="api_endpoint"):
        base_url("ftp://host")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            '{"error": {"code": 403, "message": "denied", "errors": [{"message": "denied", "domain": "global", "reason": "forbidden"}]}}',
            ("forbidden", "denied"),
        ),
        ('{"error": {"code": 500, "message": "boom"}}', (None, "boom")),
        ('{"error": {"code": 500, "errors": [{"message": "inner", "reason": "backendError"}]}}', ("backendError", "inner")),
        ("<html><body>Bad   Gateway</body></html>", (None, "<html><body>Bad Gateway</body></html>")),
        ("", (None, "")),
    ],
)
def test_parse_error_body(body: str, expected: tuple[str | None, str]) -> None:
    assert parse_error_body(body) == expected


@pytest.mark.parametrize(
    ("status", "message", "hint", "error_class"),
    [
        (401, "Invalid Credentials", "Check auth_kind", StorageApiError),
        (403, "... does not have permission to publish messages to to the Cloud Pub/Sub topic ...", "roles/pubsub.publisher", StorageApiError),
        (403, "Request had insufficient authentication scopes.", "set scopes", StorageApiError),
        (400, "Bucket is a requester pays bucket but no user project provided.", "Set user_project", StorageApiError),
        (400, "User project specified in the request is invalid.", "Set user_project", StorageApiError),
        (404, "The specified bucket does not exist.", "Check bucket", StorageNotFoundError),
        (400, "Invalid argument.", "Check topic, payload_format", StorageApiError),
        (418, "teapot", "", StorageApiError),
    ],
)
def test_api_error_hints(status: int, message: str, hint: str, error_class: type[StorageApiError]) -> None:
    error = api_error(operation="Doing it", status=status, body=json.dumps({"error": {"code": status, "message": message, "errors": [{"reason": "r"}]}}))
    assert isinstance(error, error_class)
    assert isinstance(error, StorageNotFoundError) is (status == 404)
    assert str(error).startswith(f"Doing it: HTTP {status} (r): {message}")
    assert hint in str(error)
    assert (error.status, error.reason, error.api_message) == (status, "r", message)


def make_transport(retries: int = 2) -> Transport:
    return Transport(
        credentials=google.oauth2.credentials.Credentials("tok-123"),  # type: ignore[no-untyped-call]
        api_endpoint="http://127.0.0.1:9",
        timeout=5,
        retry=RetryPolicy(retries=retries),
        user_agent="unit",
        sleep=lambda _s: None,
    )


@responses.activate
def test_bearer_token_and_user_agent_are_sent_to_a_custom_endpoint() -> None:
    responses.get(LIST_URL, json={"kind": "storage#notifications"})
    assert make_transport().request("GET", ("b", "media", "notificationConfigs"), operation="op") == {"kind": "storage#notifications"}
    (call,) = responses.calls
    assert call.request.headers["Authorization"] == "Bearer tok-123"
    assert call.request.headers["User-Agent"] == "unit"


@responses.activate
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_idempotent_methods_are_retried(method: str) -> None:
    url = LIST_URL + "/1"
    responses.add(method, url, body=requests.ConnectionError("refused"))
    responses.add(method, url, status=503, json={"error": {"code": 503, "message": "Backend Error"}})
    responses.add(method, url, status=204 if method == "DELETE" else 200, body="" if method == "DELETE" else "{}")
    transport = make_transport()
    answer = transport.request(method, ("b", "media", "notificationConfigs", "1"), operation="op")
    assert answer == (None if method == "DELETE" else {})
    assert transport.requests_sent == len(responses.calls) == 3


@responses.activate
@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_give_up_after_retries(status: int) -> None:
    responses.get(LIST_URL, status=status, json={"error": {"code": status, "message": "busy"}})
    with pytest.raises(StorageApiError, match=rf"op: HTTP {status}: busy.*\(after 3 attempts\)"):
        make_transport(retries=2).request("GET", ("b", "media", "notificationConfigs"), operation="op")
    assert len(responses.calls) == 3


@responses.activate
@pytest.mark.parametrize("failure", [503, requests.ConnectionError("reset"), requests.ReadTimeout("slow")])
def test_post_is_never_retried(failure: int | Exception) -> None:
    if isinstance(failure, int):
        responses.post(LIST_URL, status=failure, json={"error": {"code": failure, "message": "x"}})
        expected: type[Exception] = StorageApiError
    else:
        responses.post(LIST_URL, body=failure)
        expected = StorageTransportError
    with pytest.raises(expected):
        make_transport().request("POST", ("b", "media", "notificationConfigs"), body={"topic": "x"}, operation="op")
    assert len(responses.calls) == 1


@responses.activate
@pytest.mark.parametrize(("status", "body"), [(200, "not json"), (200, "[1, 2]")])
def test_answers_that_are_not_objects(status: int, body: str) -> None:
    responses.get(LIST_URL, status=status, body=body)
    with pytest.raises(StorageTransportError, match="op: HTTP 200 with a"):
        make_transport().request("GET", ("b", "media", "notificationConfigs"), operation="op")


def test_retry_policy_delays() -> None:
    policy = RetryPolicy(initial=1.0, multiplier=2.0, maximum=5.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 5.0), (10, 5.0)]:
        assert ceiling / 2 <= policy.delay(attempt) <= ceiling
    assert policy.delay(0, "0") == 0.0
    assert policy.delay(0, "120") == 5.0
    assert 0.5 <= policy.delay(0, "Wed, 21 Oct 2015 07:28:00 GMT") <= 1.0


@pytest.mark.parametrize(("option", "value"), [("timeout", 0.0), ("retries", -1)])
def test_transport_validation(option: str, value: t.Any) -> None:
    kwargs: dict[str, t.Any] = {"timeout": 1.0, "retry": RetryPolicy()}
    if option == "timeout":
        kwargs["timeout"] = value
    else:
        kwargs["retry"] = RetryPolicy(retries=value)
    with pytest.raises(StorageValidationError, match=option):
        Transport(credentials=None, api_endpoint=None, user_agent="u", **kwargs)


def service_account_credentials(token_uri: str = "http://127.0.0.1:9/token") -> t.Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from ansible_collections.devinfra.providers.plugins.module_utils._storage.auth import AuthSettings, credentials

    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key = {"type": "service_account", "private_key": pem.decode(), "client_email": "sa@p.iam.gserviceaccount.com", "token_uri": token_uri}
    creds, _project = credentials(AuthSettings("serviceaccount", service_account_contents=json.dumps(key)))
    return creds


@responses.activate
def test_expired_credentials_are_refreshed_before_the_request() -> None:
    responses.post("http://127.0.0.1:9/token", json={"access_token": "fresh-token", "expires_in": 3600, "token_type": "Bearer"})
    responses.get(LIST_URL, json={})
    transport = Transport(credentials=service_account_credentials(), api_endpoint="http://127.0.0.1:9", timeout=5, retry=RetryPolicy(), user_agent="unit")
    transport.request("GET", ("b", "media", "notificationConfigs"), operation="op")
    # google-auth may look up the account's trust boundary in between; it tolerates failure.
    token_call, api_call = responses.calls[0], responses.calls[-1]
    assert "grant_type=urn" in str(token_call.request.body)
    assert api_call.request.url == LIST_URL
    assert api_call.request.headers["Authorization"] == "Bearer fresh-token"


@responses.activate
def test_refresh_failure_is_an_auth_error() -> None:
    responses.post("http://127.0.0.1:9/token", status=400, json={"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
    transport = Transport(credentials=service_account_credentials(), api_endpoint="http://127.0.0.1:9", timeout=5, retry=RetryPolicy(), user_agent="unit")
    with pytest.raises(StorageAuthError, match="Cannot obtain an access token: .*invalid_grant"):
        transport.request("GET", ("b", "media", "notificationConfigs"), operation="op")
    urls = [call.request.url for call in responses.calls]
    assert "http://127.0.0.1:9/token" in urls
    assert LIST_URL not in urls


# -- a hostile endpoint: a real HTTP server (the project's emulator, with a fault of its answers) --

SECRET_TOKEN = "DVTSECRET-bearer-7f3e"
CSEK = {"x-goog-encryption-algorithm": "AES256", "x-goog-encryption-key": "DVTSECRET-csek-key-b64", "x-goog-encryption-key-sha256": "h"}


@pytest.fixture
def hostile() -> t.Iterator[Emulator]:
    with Emulator(State(tokens={SECRET_TOKEN: "write"}, buckets={"media": Bucket("media")})) as server:
        yield server


@pytest.fixture
def elsewhere() -> t.Iterator[Emulator]:
    """Where a redirect points: another address, which must receive nothing."""
    with Emulator(State(), host="127.0.0.2") as server:
        yield server


def hostile_transport(server: Emulator, *, timeout: float = 10, retries: int = 0, creds: t.Any = None) -> Transport:
    return Transport(
        credentials=creds if creds is not None else google.oauth2.credentials.Credentials(SECRET_TOKEN),  # type: ignore[no-untyped-call]
        api_endpoint=server.url,
        timeout=timeout,
        retry=RetryPolicy(retries=retries),
        user_agent="unit",
        sleep=lambda _s: None,
    )


def received(server: Emulator) -> list[dict[str, t.Any]]:
    return t.cast("list[dict[str, t.Any]]", requests.get(f"{server.url}/_emulator/stats", timeout=10).json()["log"])


def finished_within(seconds: float, call: t.Callable[[], object]) -> BaseException | None:
    """``call``'s exception, or a failure when it is still running after ``seconds`` (the old
    behaviour of a slow server: hours)."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # handed to the test
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting for the server after {seconds} s"
    return outcome[0]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_redirect_is_never_followed(hostile: Emulator, elsewhere: Emulator, status: int, method: str) -> None:
    # The Location's query holds a token of its own: the message names the host only.
    location = f"{elsewhere.url}/upload/storage/v1/b/media/o?uploadType=media&name=s&access_token=DVTSECRET-in-location"
    hostile.state.faults.append(Fault(method=method, status=status, headers={"Location": location}))
    body = b'{"resources": {"workspace_agent.main": {"token": "DVTSECRET-agent-token"}}}'
    with pytest.raises(StorageApiError) as caught:
        hostile_transport(hostile, retries=2).send(
            method, hostile.url + "/upload/storage/v1/b/media/o", operation="write the state", headers=dict(CSEK), data=body if method == "POST" else None
        )
    message = str(caught.value)
    assert message.startswith(f"write the state: HTTP {status}: the endpoint redirected to 127.0.0.2; redirects are never followed")
    assert "DVTSECRET" not in message and "/upload/" not in message
    assert caught.value.status == status
    assert received(elsewhere) == []  # no Authorization, no encryption key, no body: nothing
    assert len(received(hostile)) == 1  # not retried either


def failed_requests(hostile: Emulator, count: int) -> list[str]:
    """The messages of ``count`` requests to ``hostile``, each refused with an API error."""
    transport = hostile_transport(hostile)
    messages = []
    for _attempt in range(count):
        with pytest.raises(StorageApiError) as caught:
            transport.request("GET", ("b", "media", "notificationConfigs"), operation="op")
        messages.append(str(caught.value))
    return messages


def test_a_redirect_to_a_relative_or_hostile_location(hostile: Emulator) -> None:
    hostile.state.faults.append(Fault(status=302, headers={"Location": "/storage/v1/elsewhere?token=DVTSECRET-x"}))
    hostile.state.faults.append(Fault(status=307, headers={"Location": "http://evil\x1bc\x9b2J.example/"}))
    hostile.state.faults.append(Fault(status=302))
    messages = failed_requests(hostile, 3)
    assert f"redirected to another path of {hostile.url};" in messages[0]
    assert "redirected to evil\\u001bc\\u009b2j.example;" in messages[1]
    assert "redirected to nowhere (no Location);" in messages[2]
    assert not any("DVTSECRET" in message or "\x1b" in message for message in messages)


def test_a_token_refresh_follows_no_redirect(hostile: Emulator, elsewhere: Emulator) -> None:
    # google-auth sends the signed assertion through the transport's session.
    hostile.state.faults.append(Fault(method="POST", path="/oauth/token", status=307, headers={"Location": f"{elsewhere.url}/oauth/token"}))
    creds = service_account_credentials(token_uri=f"{hostile.url}/oauth/token")
    with pytest.raises(StorageAuthError, match="Cannot obtain an access token"):
        hostile_transport(hostile, creds=creds).request("GET", ("b", "media", "notificationConfigs"), operation="op")
    assert received(elsewhere) == []
    assert [entry["path"] for entry in received(hostile)] == ["/oauth/token"]


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "until-close"])
def test_a_huge_answer_is_not_read(hostile: Emulator, length: bool) -> None:
    # 200 MB, generated as it is sent; with or without a Content-Length announcing it.
    hostile.state.faults.append(Fault(status=200, size=200_000_000, length=length))
    started = time.monotonic()
    with pytest.raises(
        StorageTransportError, match=r"^op: the answer is larger than 4 MiB \(HTTP answer from http://127\.0\.0\.1:\d+/storage/v1/\); it was not read further$"
    ):
        hostile_transport(hostile).request("GET", ("b", "media", "notificationConfigs"), operation="op")
    assert time.monotonic() - started < 10


def test_a_huge_error_body_is_read_up_to_its_bound(hostile: Emulator) -> None:
    hostile.state.faults.append(Fault(status=500, size=200_000_000, length=False))
    started = time.monotonic()
    with pytest.raises(StorageApiError, match=r"^op: HTTP 500: x{300}\.\.\. \(65536 characters\)"):
        hostile_transport(hostile).request("GET", ("b", "media", "notificationConfigs"), operation="op")
    assert time.monotonic() - started < 10


def test_a_slow_drip_is_cut_at_the_total_timeout(hostile: Emulator) -> None:
    # One byte a second: each read is well within the 2 s timeout, the whole answer would take minutes.
    hostile.state.faults.append(Fault(status=200, body='{"kind": "storage#notifications", "items": []}' + " " * 200, drip=1.0))
    started = time.monotonic()
    error = finished_within(15, lambda: hostile_transport(hostile, timeout=2).request("GET", ("b", "media", "notificationConfigs"), operation="op"))
    assert isinstance(error, StorageTransportError)
    assert re.fullmatch(r"op: timed out \(http://127\.0\.0\.1:\d+/storage/v1/, no complete answer within timeout=2 s\) after 1 attempt", str(error)), error
    assert time.monotonic() - started < 6


def test_a_slow_drip_of_the_body_after_quick_headers(hostile: Emulator) -> None:
    # The headers come at once; the body without a Content-Length, a byte a second.
    hostile.state.faults.append(Fault(status=200, body=" " * 300, drip=1.0, drip_head=False, length=False, count=2))
    transport = hostile_transport(hostile, timeout=2, retries=1)
    started = time.monotonic()
    error = finished_within(20, lambda: transport.request("GET", ("b", "media", "notificationConfigs"), operation="op"))
    assert isinstance(error, StorageTransportError)
    assert "no complete answer within timeout=2 s) after 2 attempts" in str(error)
    assert time.monotonic() - started < 10


HOSTILE_TEXT = "denied \x1b[2J\x9b31m line one\nline two\r\u202egnp.exe\u2028end"


def test_server_text_is_escaped_in_messages(hostile: Emulator) -> None:
    error_body = json.dumps({"error": {"code": 403, "message": HOSTILE_TEXT, "errors": [{"reason": "forbidden\x1b[0m", "message": HOSTILE_TEXT}]}})
    hostile.state.faults.append(Fault(status=403, body=error_body))
    hostile.state.faults.append(Fault(status=502, body=f"<html>{HOSTILE_TEXT}</html>", headers={"Content-Type": "text/html"}))
    messages = failed_requests(hostile, 2)
    for message in messages:
        assert not NOT_ONE_LINE.search(message), repr(message)
        assert "\\u001b[2J" in message and "\\u009b31m" in message and "\\u202egnp.exe" in message
    assert messages[0].startswith("op: HTTP 403 (forbidden\\u001b[0m): denied \\u001b[2J\\u009b31m line one\\u000aline two\\u000d\\u202egnp.exe\\u2028end")
    assert messages[1].startswith("op: HTTP 502: <html>denied \\u001b[2J\\u009b31m line one line two \\u202egnp.exe end</html>")


def test_an_api_message_is_shortened() -> None:
    reason, message = parse_error_body(json.dumps({"error": {"message": "m" * 5000, "errors": [{"reason": "r" * 500}]}}))
    assert message == "m" * 300 + "... (5000 characters)"
    assert reason == "r" * 100 + "... (500 characters)"


def test_a_deeply_nested_error_body_is_shown_as_text() -> None:
    assert parse_error_body("[" * 100_000 + "]" * 100_000) == (None, "[" * 300 + "... (200000 characters)")


@pytest.mark.parametrize("status", [200, 400])
def test_deeply_nested_json_is_a_clean_error(hostile: Emulator, status: int) -> None:
    # 30000 deep: the error body stays within the 64 KiB read of an error, so it is parsed.
    hostile.state.faults.append(Fault(status=status, nested=100_000 if status == 200 else 30_000))
    expected: type[Exception] = StorageTransportError if status == 200 else StorageApiError
    with pytest.raises(expected) as caught:
        hostile_transport(hostile).request("GET", ("b", "media", "notificationConfigs"), operation="op")
    if status == 200:
        assert re.fullmatch(r"op: HTTP 200 with a JSON body nested too deeply from http://127\.0\.0\.1:\d+/storage/v1/", str(caught.value))
    else:
        assert str(caught.value).startswith("op: HTTP 400: " + "[" * 300 + "... (")


def test_netrc_credentials_are_never_sent(hostile: Emulator, tmp_path: t.Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A .netrc entry for the endpoint's host would replace the bearer token with its password.
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login root password DVTSECRET-netrc\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    hostile_transport(hostile).request("GET", ("b", "media", "notificationConfigs"), operation="op")  # the bearer token is accepted


@pytest.mark.parametrize(
    ("endpoint", "warns"),
    [
        (None, False),  # https://storage.googleapis.com
        ("https://storage.example.com", False),
        ("http://127.0.0.1:4443", False),
        ("http://127.9.8.7", False),
        ("http://[::1]:4443", False),
        ("http://[::ffff:127.0.0.1]:4443", False),
        ("localhost:4443", False),  # STORAGE_EMULATOR_HOST without a scheme: http
        ("http://LOCALHOST", False),
        ("http://10.0.0.5:4443", True),
        ("storage.example.com:4443", True),
        ("http://[fe80::1]:4443", True),
        ("http://localhost.example.com", True),
        ("ftp://host", False),  # refused later, by the transport
    ],
)
def test_a_plaintext_endpoint_off_this_host_warns(endpoint: str | None, warns: bool) -> None:
    warning = plaintext_warning(endpoint, carries="the bearer token and the configs")
    assert (warning is not None) is warns
    if warning is not None:
        assert warning.startswith(
            f"api_endpoint (or STORAGE_EMULATOR_HOST) is the plain HTTP URL {safe_host(base_url(endpoint))}, which is not a loopback address: "
        )
        assert "the bearer token and the configs travel in clear" in warning
