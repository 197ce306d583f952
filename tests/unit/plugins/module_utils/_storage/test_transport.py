# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Transport and error mapping, with ``responses`` standing in for the network."""

from __future__ import annotations

import json
import typing as t

import google.oauth2.credentials
import pytest
import requests
import responses

from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import (
    StorageApiError,
    StorageNotFoundError,
    StorageTransportError,
    StorageValidationError,
    api_error,
    parse_error_body,
)
from ansible_collections.devinfra.providers.plugins.module_utils._storage.transport import RetryPolicy, Transport, base_url

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


def service_account_credentials() -> t.Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from ansible_collections.devinfra.providers.plugins.module_utils._storage.auth import AuthSettings, credentials

    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key = {"type": "service_account", "private_key": pem.decode(), "client_email": "sa@p.iam.gserviceaccount.com", "token_uri": "http://127.0.0.1:9/token"}
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
    from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageAuthError

    responses.post("http://127.0.0.1:9/token", status=400, json={"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
    transport = Transport(credentials=service_account_credentials(), api_endpoint="http://127.0.0.1:9", timeout=5, retry=RetryPolicy(), user_agent="unit")
    with pytest.raises(StorageAuthError, match="Cannot obtain an access token: .*invalid_grant"):
        transport.request("GET", ("b", "media", "notificationConfigs"), operation="op")
    urls = [call.request.url for call in responses.calls]
    assert "http://127.0.0.1:9/token" in urls
    assert LIST_URL not in urls
