# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    # Authentication and transport of the Cloud Storage modules (resolved on the managed host).
    DOCUMENTATION = r"""
options:
  project:
    description:
      - The Google Cloud project of a bare topic id given to M(devinfra.providers.storage_notification).
      - When not set, the value of the E(GCP_PROJECT) environment variable on the managed host is used,
        then the project the credentials name (a service account key's C(project_id), or the
        Application Default Credentials' project).
    type: str
  auth_kind:
    description:
      - How to obtain credentials, as in the C(google.cloud) collection.
      - V(application) uses Application Default Credentials (E(GOOGLE_APPLICATION_CREDENTIALS),
        C(gcloud auth application-default login), or the metadata server on Google Cloud).
      - V(serviceaccount) uses a service account key from O(service_account_file) or O(service_account_contents).
      - V(accesstoken) sends O(access_token) as it is; it is never refreshed.
      - V(machineaccount) uses the metadata server of a Compute Engine instance, as O(service_account_email).
      - When not set, the value of the E(GCP_AUTH_KIND) environment variable is used, else V(application).
    type: str
    choices: [application, serviceaccount, accesstoken, machineaccount]
    default: application
  access_token:
    description:
      - An OAuth2 access token, used with O(auth_kind=accesstoken).
      - When not set, the value of the E(GCP_ACCESS_TOKEN) environment variable is used.
      - White space around the token (the newline at the end of a file read with C(slurp), or of a variable) is removed.
        A control character, a space or a non-ASCII character inside it is an error, which never shows the token.
    type: str
  service_account_file:
    description:
      - The path of a service account key file (JSON), used with O(auth_kind=serviceaccount).
      - When not set, the value of the E(GCP_SERVICE_ACCOUNT_FILE) environment variable is used.
      - Mutually exclusive with O(service_account_contents).
    type: path
  service_account_contents:
    description:
      - The contents of a service account key (a JSON string or a dictionary), used with O(auth_kind=serviceaccount).
      - When not set, the value of the E(GCP_SERVICE_ACCOUNT_CONTENTS) environment variable is used.
      - Mutually exclusive with O(service_account_file).
    type: jsonarg
  service_account_email:
    description:
      - The service account of the instance to use with O(auth_kind=machineaccount); V(default) when not set.
      - When not set, the value of the E(GCP_SERVICE_ACCOUNT_EMAIL) environment variable is used.
    type: str
  scopes:
    description:
      - The OAuth2 scopes requested for O(auth_kind=application), V(serviceaccount) and V(machineaccount)
        credentials.
      - When not set, the value of the E(GCP_SCOPES) environment variable (comma-separated) is used,
        else V(https://www.googleapis.com/auth/devstorage.read_write), which covers every notification call.
    type: list
    elements: str
  api_endpoint:
    description:
      - The base URL of the Cloud Storage JSON API, for example V(http://127.0.0.1:9023) for a local emulator.
        C(/storage/v1/) is appended unless the URL already ends with it; a value without scheme gets V(http://).
      - When not set, the value of the E(STORAGE_EMULATOR_HOST) environment variable is used (as the Google
        Cloud client libraries do), else V(https://storage.googleapis.com).
      - The configured credentials are sent to this endpoint too.
      - A URL with C(user:password@), a query or a control character is refused; messages never repeat it.
    type: str
  timeout:
    description:
      - Seconds to wait for the server to connect and to answer, per request.
    type: float
    default: 60
  retries:
    description:
      - How many times a read (list, get) or a delete is retried after a connection error, a timeout,
        or an answer with HTTP status 408, 429, 500, 502, 503 or 504, with exponential backoff
        (about 1, 2, 4 seconds...; a C(Retry-After) header is honoured).
      - An insert is never retried, since a repeated insert can create a second config.
    type: int
    default: 3
requirements:
  - requests
  - google-auth
notes:
  - The secrets O(access_token) and O(service_account_contents) are never returned or logged.
"""
