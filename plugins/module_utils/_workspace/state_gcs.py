# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The workspace state as one Cloud Storage object (``state_file: gs://BUCKET/OBJECT``).

The object holds the same JSON as the state file. There is no lock server: every change is
a read-modify-write with the generation read as the precondition of the upload
(``ifGenerationMatch``; 0 creates only when no object exists). When another run wrote in
between, the upload answers 412; the state is read again and the change planned again on it,
with backoff, a bounded number of times. So concurrent forks and controllers lose nothing,
and two runs creating the same resource agree on one id and token (the second one finds the
first one's entry on its retry).

A customer-supplied encryption key (``state_encryption_key``) is sent with every read and
write as the ``x-goog-encryption-*`` headers: Cloud Storage then keeps only its hash, and
without the key nobody can read the tokens in the object.

The endpoint may be hostile (see _storage.transport): no redirect is followed (it would carry
the key, the token and the uploaded state elsewhere), an object larger than a state can be is
not read past that size, and a plain http:// endpoint off this host is a warning of the task."""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import hashlib
import json
import time
import typing as t

from .._common.text import one_line_problem
from .._storage.auth import HAS_GOOGLE_AUTH, AuthSettings, credentials, secrets_of
from .._storage.errors import Hints, StorageError, parse_error_body, redact
from .._storage.transport import EMULATOR_ENV, HAS_REQUESTS, RetryPolicy, Transport, plaintext_warning
from .._storage.validation import MAX_OBJECT_NAME_BYTES, check_bucket, show
from .document import MAX_STATE_BYTES, WorkspaceState
from .entries import parse_state
from .errors import StateFileError

__all__ = ["MAX_ATTEMPTS", "STATE_HINTS", "GcsStateBackend", "parse_gs_location"]

T = t.TypeVar("T")

USER_AGENT = "devinfra.providers (Ansible; workspace state)"
ENCRYPTION_KEY_ENV = "DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY"

# The options' environment variables, as the storage modules (and google.cloud) read them.
_ENVIRONMENT = {
    "auth_kind": "GCP_AUTH_KIND",
    "access_token": "GCP_ACCESS_TOKEN",
    "service_account_file": "GCP_SERVICE_ACCOUNT_FILE",
    "service_account_contents": "GCP_SERVICE_ACCOUNT_CONTENTS",
    "service_account_email": "GCP_SERVICE_ACCOUNT_EMAIL",
    "scopes": "GCP_SCOPES",
    "api_endpoint": EMULATOR_ENV,
    "state_encryption_key": ENCRYPTION_KEY_ENV,
}

# A write that keeps meeting another run's newer generation gives up after this many rounds;
# the backoff between rounds grows from 50 ms to at most 1 s, with full jitter.
MAX_ATTEMPTS = 40
_BACKOFF = RetryPolicy(retries=MAX_ATTEMPTS, initial=0.05, multiplier=2.0, maximum=1.0)

# What to look at after an error answer (see _storage.errors for the shape); first match wins.
STATE_HINTS: Hints = (
    (401, "", "Check auth_kind and its credentials (access_token, service_account_file, service_account_contents)."),
    (400, "encrypted by a customer-supplied", "The state object is encrypted with a customer-supplied key: set state_encryption_key to that key."),
    (400, "key is incorrect", "state_encryption_key is not the key the state object was written with."),
    (400, "encryption", "Check state_encryption_key."),
    (403, "scope", "The credentials lack an OAuth scope: set scopes to include https://www.googleapis.com/auth/devstorage.read_write."),
    (
        403,
        "",
        "The caller lacks permission on the state object: storage.objects.get to read it, "
        "storage.objects.create and storage.objects.delete to write it (roles/storage.objectUser).",
    ),
    (None, "requester pays", "The bucket of state_file is a requester-pays bucket, which the state backend does not support."),
    (404, "", "Check the bucket of state_file."),
)


def parse_gs_location(value: str) -> tuple[str, str]:
    """``gs://BUCKET/OBJECT`` as (bucket, object name), both checked by Cloud Storage's rules."""
    bucket, _sep, name = value[len("gs://") :].partition("/")
    try:
        check_bucket(bucket)
    except StorageError as exc:
        raise StateFileError(f"state_file: {show(value)} does not name a bucket: {str(exc).removeprefix('bucket: ')}") from None
    problem = None
    if not name:
        problem = "it names no object (write gs://BUCKET/OBJECT, for example gs://my-bucket/workspaces/dev.json)"
    elif name.endswith("/") or name in (".", "..") or name.startswith(".well-known/acme-challenge/"):
        problem = "it is not a valid object name (a folder, . or .., or .well-known/acme-challenge/)"
    elif (not_one_line := one_line_problem(name)) is not None:
        problem = f"its object name contains {not_one_line}"
    else:
        try:
            if len(name.encode("utf-8")) > MAX_OBJECT_NAME_BYTES:
                problem = f"its object name is longer than {MAX_OBJECT_NAME_BYTES} bytes of UTF-8"
        except UnicodeEncodeError:
            problem = "its object name is not valid Unicode"
    if problem is not None:
        raise StateFileError(f"state_file: {show(value)}: {problem}")
    return bucket, name


def _encryption_headers(key: str | None) -> dict[str, str]:
    """The customer-supplied encryption key headers; the key is checked, never shown."""
    if key is None or not key.strip():
        return {}
    try:
        raw = base64.b64decode(key.strip(), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise StateFileError(
            "state_encryption_key: must be an AES-256 key (32 bytes) encoded as base64, "
            "for example the output of 'openssl rand -base64 32' (the value is not shown)"
        )
    return {
        "x-goog-encryption-algorithm": "AES256",
        "x-goog-encryption-key": base64.b64encode(raw).decode("ascii"),
        "x-goog-encryption-key-sha256": base64.b64encode(hashlib.sha256(raw).digest()).decode("ascii"),
    }


@dataclasses.dataclass
class GcsStateBackend:
    location: str
    bucket: str
    name: str
    transport: Transport
    key_headers: dict[str, str]
    secrets: set[str]
    sleep: t.Callable[[float], None] = time.sleep
    # Shown with every state this backend reads, so the task that uses it warns once.
    warnings: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def from_options(cls, location: str, options: t.Mapping[str, t.Any], *, environ: t.Mapping[str, str]) -> GcsStateBackend:
        """The backend for ``location``, every option checked and the credentials loaded
        (a key file is read, nothing is sent)."""
        bucket, name = parse_gs_location(location)
        params = {option: options.get(option) for option in _ENVIRONMENT}
        for option, variable in _ENVIRONMENT.items():
            if params[option] is None and environ.get(variable):
                value = environ[variable]
                params[option] = [scope.strip() for scope in value.split(",") if scope.strip()] if option == "scopes" else value
        params["auth_kind"] = params["auth_kind"] or "application"
        if isinstance(params["service_account_contents"], dict):  # a lookup option or a module's raw option
            params["service_account_contents"] = json.dumps(params["service_account_contents"])
        secrets = secrets_of(params) | ({params["state_encryption_key"].strip()} if params["state_encryption_key"] else set())
        if not (HAS_REQUESTS and HAS_GOOGLE_AUTH):
            raise StateFileError("state_file: a gs:// location needs the Python libraries requests and google-auth on the controller")
        key_headers = _encryption_headers(params["state_encryption_key"])
        with _as_state_error(secrets):
            creds, _project = credentials(AuthSettings.from_params(params))
            transport = Transport(
                credentials=creds, api_endpoint=params["api_endpoint"], timeout=60.0, retry=RetryPolicy(), user_agent=USER_AGENT, hints=STATE_HINTS
            )
        carries = "the bearer token" + (", state_encryption_key" if key_headers else "") + " and the workspace state with its agent tokens"
        warning = plaintext_warning(params["api_endpoint"], carries=carries)
        return cls(
            location=location,
            bucket=bucket,
            name=name,
            transport=transport,
            key_headers=key_headers,
            secrets=secrets,
            warnings=[warning] if warning else [],
        )

    def read(self) -> WorkspaceState:
        state, _generation = self._download()
        return state

    def transact(self, change: t.Callable[[WorkspaceState], T], *, write: bool) -> T:
        conflicted: tuple[str, T] | None = None  # what the last refused write held, and its result
        for attempt in range(MAX_ATTEMPTS):
            state, generation = self._download()
            content = state.to_json()
            if conflicted is not None and content == conflicted[0]:
                # The refused answer was to a retried upload whose first try had landed.
                return conflicted[1]
            result = change(state)
            if not write or state.to_json() == content:
                return result
            if self._upload(state, generation):
                return result
            conflicted = (state.to_json(), result)
            self.sleep(_BACKOFF.delay(attempt))
        raise StateFileError(
            f"cannot write the state {self.location}: another run changed it before each of {MAX_ATTEMPTS} attempts "
            "(HTTP 412 on every conditional write); nothing of this task was written, run it again"
        )

    def _download(self) -> tuple[WorkspaceState, int]:
        """The state and its generation; no object is an empty state of generation 0."""
        with _as_state_error(self.secrets):
            response = self.transport.send(
                "GET",
                self.transport.url("b", self.bucket, "o", self.name),
                operation=f"read the state {self.location}",
                params={"alt": "media"},
                headers=self.key_headers,
                accept=(404,),
                limit=MAX_STATE_BYTES,
                what="the state object",
            )
        if response.status_code == 404:
            _reason, message = parse_error_body(response.text)
            if "bucket does not exist" in message:  # the API's words for a missing bucket; a missing object is "No such object"
                raise StateFileError(f"read the state {self.location}: HTTP 404: {message}")
            return self._with_warnings(WorkspaceState()), 0
        try:
            generation = int(response.headers["x-goog-generation"])
        except (KeyError, ValueError):
            raise StateFileError(f"read the state {self.location}: the answer carries no object generation (x-goog-generation)") from None
        return self._with_warnings(parse_state(self.location, response.content)), generation

    def _with_warnings(self, state: WorkspaceState) -> WorkspaceState:
        state.warnings.extend(self.warnings)
        return state

    def _upload(self, state: WorkspaceState, generation: int) -> bool:
        """Store ``state`` if the object is still at ``generation``; False when it is not (412)."""
        with _as_state_error(self.secrets):
            response = self.transport.send(
                "POST",
                self.transport.upload_url("b", self.bucket, "o"),
                operation=f"write the state {self.location}",
                params={"uploadType": "media", "name": self.name, "ifGenerationMatch": str(generation)},
                headers={"Content-Type": "application/json", "Cache-Control": "no-store", **self.key_headers},
                data=state.to_json().encode("utf-8"),
                idempotent=True,  # conditional: a repeated upload cannot overwrite a newer state
                accept=(412,),
            )
        return response.status_code != 412


@contextlib.contextmanager
def _as_state_error(secrets: set[str]) -> t.Iterator[None]:
    """A storage error as a state error (the API's words and a hint from STATE_HINTS); never a secret."""
    try:
        yield
    except StorageError as exc:
        raise StateFileError(redact(str(exc), secrets)) from None
