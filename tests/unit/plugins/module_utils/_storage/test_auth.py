# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import pathlib
import typing as t

import google.auth.compute_engine
import google.oauth2.credentials
import google.oauth2.service_account
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ansible_collections.devinfra.providers.plugins.module_utils._storage.auth import DEFAULT_SCOPES, AuthSettings, credentials
from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageAuthError, StorageValidationError


@pytest.fixture(scope="module")
def key_info() -> dict[str, t.Any]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    return {
        "type": "service_account",
        "project_id": "key-project",
        "private_key_id": "abc",
        "private_key": pem,
        "client_email": "notifier@key-project.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": "https://oauth2.googleapis.com/token",
    }


def test_access_token() -> None:
    creds, project = credentials(AuthSettings("accesstoken", access_token="tok"))
    assert isinstance(creds, google.oauth2.credentials.Credentials)
    assert (creds.token, creds.valid, project) == ("tok", True, None)


def test_service_account_contents_and_file(key_info: dict[str, t.Any], tmp_path: pathlib.Path) -> None:
    creds, project = credentials(AuthSettings("serviceaccount", service_account_contents=json.dumps(key_info), scopes=("s1",)))
    assert isinstance(creds, google.oauth2.service_account.Credentials)
    assert (creds.service_account_email, project, creds.scopes) == (key_info["client_email"], "key-project", ["s1"])
    path = tmp_path / "key.json"
    path.write_text(json.dumps(key_info))
    creds, _project = credentials(AuthSettings("serviceaccount", service_account_file=str(path)))
    assert creds.scopes == list(DEFAULT_SCOPES)


def test_machine_account() -> None:
    creds, _project = credentials(AuthSettings("machineaccount", service_account_email="vm@p.iam.gserviceaccount.com"))
    assert isinstance(creds, google.auth.compute_engine.Credentials)
    assert creds.service_account_email == "vm@p.iam.gserviceaccount.com"


def test_application_default_credentials(key_info: dict[str, t.Any], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "adc.json"
    path.write_text(json.dumps(key_info))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    creds, project = credentials(AuthSettings("application"))
    assert (creds.service_account_email, project) == (key_info["client_email"], "key-project")


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        (AuthSettings("accesstoken"), StorageValidationError, "access_token: required"),
        (AuthSettings("serviceaccount"), StorageValidationError, "needs service_account_file or service_account_contents"),
        (AuthSettings("serviceaccount", service_account_contents="not json"), StorageAuthError, "not a service account key"),
        (AuthSettings("serviceaccount", service_account_contents='{"type": "service_account"}'), StorageAuthError, "cannot load credentials"),
        (AuthSettings("serviceaccount", service_account_file="/nonexistent.json"), StorageAuthError, "cannot read /nonexistent.json"),
    ],
)
def test_errors(settings: AuthSettings, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        credentials(settings)


def test_application_without_credentials(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with pytest.raises(StorageAuthError, match="auth_kind=application: cannot load credentials"):
        credentials(AuthSettings("application"))
