# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Every ``except`` of the storage family that builds a message from a lower layer's exception
(requests, urllib3, google-auth, the key parser, json), driven with an exception whose text
carries the secret: the message keeps the safe facts (operation, exception class, status, the
API's reason and message, host) and never the secret. These run without Ansible's no_log
masking, which would otherwise hide a leak from the test."""

from __future__ import annotations

import json
import re
import typing as t

import google.auth
import google.auth.exceptions
import google.oauth2.credentials
import google.oauth2.service_account
import pytest
import requests
import responses

from ansible_collections.devinfra.providers.plugins.module_utils._storage.auth import AuthSettings, credentials
from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import (
    StorageApiError,
    StorageAuthError,
    StorageError,
    StorageTransportError,
    StorageValidationError,
    api_error,
    redact,
    safe_host,
)
from ansible_collections.devinfra.providers.plugins.module_utils._storage.transport import RetryPolicy, Transport, base_url

SECRET = "DVTSECRET-7f3e9a1c0b"
auth_errors: t.Any = google.auth.exceptions  # untyped: its classes would need an ignore per call
LIST_URL = "http://127.0.0.1:9/storage/v1/b/media/notificationConfigs"
SEGMENTS = ("b", "media", "notificationConfigs")


def transport(token: str = SECRET, *, retries: int = 0, creds: t.Any = None) -> Transport:
    return Transport(
        credentials=creds if creds is not None else google.oauth2.credentials.Credentials(token),  # type: ignore[no-untyped-call]
        api_endpoint="http://127.0.0.1:9",
        timeout=5,
        retry=RetryPolicy(retries=retries),
        user_agent="unit",
        sleep=lambda _s: None,
    )


def message_of(call: t.Callable[[], object], error: type[StorageError]) -> str:
    with pytest.raises(error) as caught:
        call()
    text = str(caught.value)
    assert SECRET not in text
    assert "7f3e9a1c0b" not in text
    return text


# -- transport.request: requests refuses the header (the token ends with a newline) ---------------


@pytest.mark.parametrize("token", [SECRET + "\n", SECRET + "\r\nX-Injected: 1", SECRET + "\r"])
def test_a_header_requests_refuses(token: str) -> None:
    # Transport gets the token as it is: this is the layer below the option's stripping.
    text = message_of(lambda: transport(token).request("GET", SEGMENTS, operation="Cannot list"), StorageTransportError)
    # requests refuses the header itself (InvalidHeader); the older requests of Python 3.9 leaves
    # it to http.client (ValueError): either way only the class is shown
    assert re.fullmatch(r"Cannot list: the request could not be sent to http://127\.0\.0\.1:9/storage/v1/ \((InvalidHeader|ValueError)\)", text), text


def test_a_header_http_client_cannot_encode() -> None:
    text = message_of(lambda: transport(SECRET + "\u2603").request("GET", SEGMENTS, operation="Cannot list"), StorageTransportError)
    assert "(UnicodeEncodeError)" in text


# -- transport.request: connection errors and timeouts whose text holds the secret ----------------


@responses.activate
@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (requests.ConnectionError(f"HTTPConnectionPool: Max retries exceeded (header Authorization: Bearer {SECRET})"), "connection failed"),
        (requests.ReadTimeout(f"Read timed out. (url http://user:{SECRET}@127.0.0.1:9/)"), "timed out"),
    ],
)
def test_connection_errors(failure: Exception, kind: str) -> None:
    responses.get(LIST_URL, body=failure)
    text = message_of(lambda: transport(retries=1).request("GET", SEGMENTS, operation="Cannot list"), StorageTransportError)
    assert text == f"Cannot list: {kind} (http://127.0.0.1:9/storage/v1/, {type(failure).__name__}) after 2 attempts"


@responses.activate
def test_a_request_exception_of_another_kind() -> None:
    responses.get(LIST_URL, body=requests.exceptions.InvalidURL(f"Invalid URL http://user:{SECRET}@host"))
    text = message_of(lambda: transport().request("GET", SEGMENTS, operation="Cannot list"), StorageTransportError)
    assert "(InvalidURL)" in text


# -- transport.request: answers that are not JSON, and error bodies that echo the secret ---------


@responses.activate
def test_a_body_that_is_not_json() -> None:
    responses.get(LIST_URL, body=f"<html>Authorization: Bearer {SECRET}</html>")
    text = message_of(lambda: transport().request("GET", SEGMENTS, operation="Cannot list"), StorageTransportError)
    assert text == "Cannot list: HTTP 200 with a body that is not JSON from http://127.0.0.1:9/storage/v1/"


ECHOES = [
    f"<html><pre>GET /storage/v1/b/media HTTP/1.1\nAuthorization: Bearer {SECRET}\n</pre></html>",
    json.dumps({"error": {"code": 401, "message": f"Invalid Credentials: Bearer {SECRET}", "errors": [{"reason": "authError"}]}}),
    json.dumps({"error": {"code": 400, "message": f"bad request ?access_token={SECRET}&x=1", "errors": [{"reason": f"key={SECRET}"}]}}),
    json.dumps({"error": {"code": 400, "message": f'echo {{"private_key": "{SECRET}"}}', "errors": [{"reason": "invalid"}]}}),
    json.dumps({"error": {"code": 400, "message": f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----"}}),
    json.dumps({"error": {"code": 400, "message": f"assertion=eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ{SECRET}.c2ln"}}),
    json.dumps({"error": {"code": 502, "message": f"upstream http://admin:{SECRET}@10.0.0.1/ failed"}}),
]


@responses.activate
@pytest.mark.parametrize("body", ECHOES)
def test_error_bodies_that_echo_credentials(body: str) -> None:
    responses.get(LIST_URL, status=400, body=body)
    text = message_of(lambda: transport().request("GET", SEGMENTS, operation="Cannot list"), StorageApiError)
    assert text.startswith("Cannot list: HTTP 400")


def test_api_error_keeps_the_api_reason_and_message() -> None:
    error = api_error(operation="op", status=403, body=json.dumps({"error": {"code": 403, "message": "denied", "errors": [{"reason": "forbidden"}]}}))
    assert str(error).startswith("op: HTTP 403 (forbidden): denied")


# -- transport._authorise: google-auth's refresh errors ---------------------------------------


class FailingCredentials:
    """Credentials whose refresh fails the way google-auth's do."""

    valid = True
    _token_uri = f"https://user:{SECRET}@oauth2.example.com/token?assertion={SECRET}"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def before_request(self, *_args: object) -> None:
        raise self.error


REFRESH_ERRORS: list[tuple[Exception, str]] = [
    # google-auth: RefreshError(error_details, response_data) from a JSON error body.
    (
        auth_errors.RefreshError(f"invalid_grant: bad {SECRET}", {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}),
        "Cannot obtain an access token: invalid_grant: Invalid JWT Signature. (RefreshError from https://oauth2.example.com)",
    ),
    # ... and from a body that is not JSON: the raw answer, which may echo the assertion.
    (
        auth_errors.RefreshError(f"<html>assertion=eyJhbGciOiJSUzI1NiJ9.{SECRET}.sig</html>"),
        "Cannot obtain an access token: RefreshError from https://oauth2.example.com",
    ),
    (
        auth_errors.RefreshError("x", {"error": f"Bearer {SECRET}", "error_description": f"password={SECRET}"}),
        "Cannot obtain an access token: Bearer <redacted>: password=<redacted> (RefreshError from https://oauth2.example.com)",
    ),
    # TransportError wrapping requests' exception, whose text holds the token endpoint's URL.
    (
        auth_errors.TransportError(requests.ConnectionError(f"https://user:{SECRET}@oauth2.example.com/token")),
        "Cannot obtain an access token: TransportError from https://oauth2.example.com",
    ),
]


@pytest.mark.parametrize(("error", "expected"), REFRESH_ERRORS)
def test_refresh_errors(error: Exception, expected: str) -> None:
    text = message_of(lambda: transport(creds=FailingCredentials(error)).request("GET", SEGMENTS, operation="op"), StorageAuthError)
    assert text == expected


# -- auth.credentials: google-auth and the key parser -------------------------------------------


def key(**extra: object) -> str:
    return json.dumps(
        {"type": "service_account", "client_email": "sa@p.iam.gserviceaccount.com", "token_uri": "https://o/token", "private_key": SECRET, **extra}
    )


@pytest.mark.parametrize(
    "error",
    [
        ValueError(f"Could not deserialize key data: {SECRET}"),
        ValueError(f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----"),
        auth_errors.MalformedError(f"bad key {SECRET}"),
        auth_errors.DefaultCredentialsError("Failed to load", {"private_key": SECRET}),
        ValueError({"private_key": SECRET}),
    ],
)
def test_credentials_that_cannot_be_loaded(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    def refuse(*_args: object, **_kwargs: object) -> t.NoReturn:
        raise error

    monkeypatch.setattr(google.oauth2.service_account.Credentials, "from_service_account_info", refuse)
    text = message_of(lambda: credentials(AuthSettings("serviceaccount", service_account_contents=key())), StorageAuthError)
    assert text.startswith("auth_kind=serviceaccount: cannot load credentials: ")
    assert type(error).__name__ in text


def test_a_real_key_that_does_not_parse() -> None:
    text = message_of(lambda: credentials(AuthSettings("serviceaccount", service_account_contents=key())), StorageAuthError)
    assert "cannot load credentials" in text


def test_application_default_credentials_that_cannot_be_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> t.NoReturn:
        raise auth_errors.DefaultCredentialsError("File /etc/adc.json is not a valid json file.", ValueError(SECRET))

    monkeypatch.setattr(google.auth, "default", refuse)
    text = message_of(lambda: credentials(AuthSettings("application")), StorageAuthError)
    # The library's own sentence (it names the file) stays; the nested exception does not.
    assert text == "auth_kind=application: cannot load credentials: File /etc/adc.json is not a valid json file. (DefaultCredentialsError)"


def test_a_document_that_is_not_a_key() -> None:
    text = message_of(
        lambda: credentials(AuthSettings("serviceaccount", service_account_contents=f'{{"type": "user", "secret": "{SECRET}"}}')), StorageAuthError
    )
    assert text == "service_account_contents: not a service account key (a JSON object with type=service_account)"


# -- the token option, and the endpoint's URL ---------------------------------------------------


@pytest.mark.parametrize("token", [SECRET + "\n", "\r\n" + SECRET + "  ", SECRET + "\t"])
def test_a_token_with_white_space_around_is_stripped(token: str) -> None:
    creds, _project = credentials(AuthSettings.from_params({"auth_kind": "accesstoken", "access_token": token}))
    assert creds.token == SECRET


@pytest.mark.parametrize("token", [SECRET[:9] + "\x07" + SECRET[9:], SECRET[:9] + "\n" + SECRET[9:], SECRET + " x", SECRET + "é"])
def test_a_token_with_a_control_character_inside(token: str) -> None:
    text = message_of(lambda: credentials(AuthSettings.from_params({"auth_kind": "accesstoken", "access_token": token})), StorageValidationError)
    assert text.startswith("access_token: ")


@pytest.mark.parametrize(
    "endpoint",
    [
        f"http://user:{SECRET}@127.0.0.1:9",
        f"http://127.0.0.1:9/?key={SECRET}",
        f"{SECRET}://127.0.0.1",
        f"http://127.0.0.1:9/{SECRET}\n/x",
        "http://127.0.0.1:99999",
    ],
)
def test_an_endpoint_url_is_never_repeated(endpoint: str) -> None:
    text = message_of(lambda: base_url(endpoint), StorageValidationError)
    assert text.startswith("api_endpoint: ")


def test_redact_and_safe_host() -> None:
    assert redact(f"a {SECRET} b", [SECRET]) == "a <redacted> b"
    assert redact("access_token: required") == "access_token: required"  # an option path, not a field
    assert safe_host(f"https://user:{SECRET}@host.example:8443/p?q={SECRET}") == "https://host.example:8443"
