# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    # The state file and state, for every workspace resource module.
    DOCUMENTATION = r"""
options:
  state:
    description:
      - V(present) creates the resource in the workspace state file, or replaces it (a new id) when one of its
        arguments changed, as upstream's ForceNew arguments do.
      - V(absent) removes it from the state file.
    type: str
    choices: [present, absent]
    default: present
  state_file:
    description:
      - The workspace state file (JSON) the resources of one workspace persist in, the counterpart of the
        Terraform state the upstream provider's resources live in.
      - When not set, the value of the E(DEVINFRA_WORKSPACE_STATE) environment variable on the controller is used
        if it is not empty, else C(workspace-state.json) in the controller's current directory.
      - The file is written atomically (temporary file and rename) under a lock, so concurrent tasks (forks) lose
        nothing; it and its C(.lock) sidecar are created with mode C(0600), because the file holds agent tokens.
      - A file that is not valid JSON or not a workspace state file is an error and is left untouched.
      - The file names no paths, so a copy works where it is copied to.
      - Set it for a whole play with C(module_defaults) and C(group/devinfra.providers.workspace).
      - V(gs://BUCKET/OBJECT) keeps the state in a Cloud Storage object instead (same JSON), so that jobs in fresh
        containers (AWX) and several controllers share one workspace; see O(auth_kind) and O(state_encryption_key).
        Every change is a conditional write on the object's generation, retried on a fresh read when another
        run wrote first, so concurrent runs lose nothing without a lock.
    type: path
notes:
  - Like the upstream provider, which runs inside the provisioner, this module runs on the B(controller)
    (through an action plugin of the same name) - the state file, the C(CODER_*) environment variables it reads
    and the lookups of this collection all belong to the controller, and the managed host is not contacted.
  - The environment variables it reads (C(CODER_*), E(DEVINFRA_WORKSPACE_STATE)) are the controller's, with the
    task's C(environment) keyword (of the play, block and task) applied on top, as a module sees them on its host.
    The lookups cannot see a task's C(environment) (a lookup has no task); give them their values as options or
    variables instead.
"""

    # The deployment URL, for workspace_agent (the only resource whose outputs depend on it).
    URL = r"""
options:
  url:
    description:
      - The URL of the workspace deployment (the upstream provider's C(url)).
      - When not set, the value of E(CODER_AGENT_URL) on the controller is used if it is not empty,
        else V(https://mydeployment.coder.com).
      - An explicitly empty value fails with upstream's message C(CODER_AGENT_URL must not be empty; got ""),
        and a value Go's C(url.Parse) rejects fails with Go's message.
      - Changing it does not replace the agent; it only changes the computed C(init_script).
    type: str
"""

    # The deployment URL, for lookups.
    LOOKUP = r"""
options:
  url:
    description:
      - The URL of the workspace deployment (the upstream provider's C(url)).
      - When not set by any source, or set to an empty string by E(CODER_AGENT_URL), V(https://mydeployment.coder.com) is used.
      - An explicitly empty value fails with upstream's message C(CODER_AGENT_URL must not be empty; got ""),
        and a value Go's C(url.Parse) rejects fails with Go's message.
    type: str
    env:
      - name: CODER_AGENT_URL
    vars:
      - name: devinfra_workspace_url
notes:
  - The C(CODER_*) variables are read from the controller's environment. A lookup does not see the C(environment)
    keyword of the task it is used in (the workspace resource modules do); set the controller's environment, or
    pass values as options and variables.
"""

    # The state file, for lookups that read it.
    STATE_FILE_LOOKUP = r"""
options:
  state_file:
    description:
      - The workspace state file written by the workspace resource modules.
      - When not set by any source, or set to an empty string by E(DEVINFRA_WORKSPACE_STATE), C(workspace-state.json)
        in the controller's current directory is used, as by the modules.
      - A missing file is an empty workspace; a corrupt or foreign file is an error.
      - V(gs://BUCKET/OBJECT) reads the state from a Cloud Storage object, as the modules write it there.
      - A path has C(~) and environment variables expanded, and is relative to the controller's current directory.
    type: str
    env:
      - name: DEVINFRA_WORKSPACE_STATE
    vars:
      - name: devinfra_workspace_state_file
"""

    # Where a gs:// state lives and how to reach it, for the modules and the lookups (all run on the controller).
    STATE_BACKEND = r"""
options:
  auth_kind:
    description:
      - How to obtain credentials for a state in Cloud Storage (V(gs://BUCKET/OBJECT)), as in the C(google.cloud) collection and the
        storage modules of this collection. Ignored for a local state file.
      - V(application) uses Application Default Credentials (E(GOOGLE_APPLICATION_CREDENTIALS),
        C(gcloud auth application-default login), or the metadata server on Google Cloud).
      - V(serviceaccount) uses a service account key from O(service_account_file) or O(service_account_contents).
      - V(accesstoken) sends O(access_token) as it is; it is never refreshed.
      - V(machineaccount) uses the metadata server of a Compute Engine instance, as O(service_account_email).
      - When not set, the value of E(GCP_AUTH_KIND) on the controller is used (AWX's Google Compute Engine
        credential sets it), else V(application).
    type: str
    choices: [application, serviceaccount, accesstoken, machineaccount]
  access_token:
    description:
      - An OAuth2 access token, used with O(auth_kind=accesstoken). When not set, E(GCP_ACCESS_TOKEN) is used.
    type: str
  service_account_file:
    description:
      - The path of a service account key file (JSON) on the controller, used with O(auth_kind=serviceaccount).
        When not set, E(GCP_SERVICE_ACCOUNT_FILE) is used.
    type: path
  service_account_contents:
    description:
      - The contents of a service account key (a JSON string or a dictionary), used with O(auth_kind=serviceaccount).
        When not set, E(GCP_SERVICE_ACCOUNT_CONTENTS) is used.
    type: raw
  service_account_email:
    description:
      - The service account of the instance, used with O(auth_kind=machineaccount). When not set,
        E(GCP_SERVICE_ACCOUNT_EMAIL) is used, else V(default).
    type: str
  scopes:
    description:
      - The OAuth2 scopes requested. When not set, E(GCP_SCOPES) (comma-separated) is used,
        else V(https://www.googleapis.com/auth/devstorage.read_write).
    type: list
    elements: str
  api_endpoint:
    description:
      - The base URL of the Cloud Storage JSON API, for example V(http://127.0.0.1:9023) for a local emulator.
      - When not set, E(STORAGE_EMULATOR_HOST) is used (as the Google Cloud client libraries do), else
        V(https://storage.googleapis.com).
    type: str
  state_encryption_key:
    description:
      - A customer-supplied encryption key for a V(gs://) O(state_file) - an AES-256 key (32 bytes) encoded as
        base64, for example the output of C(openssl rand -base64 32).
      - Sent with every read and write as the C(x-goog-encryption-*) headers; Cloud Storage keeps only its hash,
        so the state (which holds agent tokens) cannot be read without it. Losing the key loses the state.
      - Every run reading the state needs the same key. When not set, E(DEVINFRA_WORKSPACE_STATE_ENCRYPTION_KEY) is used.
      - Never returned, logged or shown in a message.
    type: str
notes:
  - The environment variables named here are the controller's (for a module with the task's C(environment) on top).
  - With a V(gs://) state the credentials need C(storage.objects.get) and C(storage.objects.create) on the bucket,
    and C(storage.objects.delete) to replace the object (the predefined role C(roles/storage.objectUser) has them);
    read-only users (the lookups, check mode) need C(storage.objects.get) only.
requirements:
  - requests and google-auth, for a state in Cloud Storage (V(gs://BUCKET/OBJECT))
"""
