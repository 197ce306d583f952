#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: storage_notification
short_description: Manage the Pub/Sub notification configs of a Cloud Storage bucket
version_added: 0.1.0
description:
  - Creates or deletes a notification config of a Cloud Storage bucket (the C(notificationConfigs) resource of the
    Cloud Storage JSON API v1), which publishes a Pub/Sub message on object changes.
  - The API has no update method and assigns the id itself, so a config is found by its content
    (O(topic), O(payload_format), O(event_types) in any order, O(custom_attributes) and O(object_name_prefix),
    with their defaults applied). With O(state=present), a config with that content is kept as it is,
    otherwise one is inserted. A run that changes nothing sends a single list request.
  - Changing any option, O(bucket) included, therefore means another config. The old one stays unless
    O(notification_id) names it or O(purge=true) asks for exclusive management of the topic.
author:
  - devinfra.providers contributors (@devinfra)
options:
  bucket:
    description:
      - The name of the bucket (without V(gs://)).
      - Checked against Cloud Storage's bucket naming rules before any request (3-63 lower-case letters, digits,
        V(-), V(_) and V(.), up to 222 with dots; a letter or digit at both ends; not an IP address; not starting
        with V(goog)), so no name can become another URL path (V(..), V(%2e%2e), a V(/)).
    type: str
    required: true
  topic:
    description:
      - The Pub/Sub topic, as a topic id (in O(project)), V(projects/PROJECT/topics/TOPIC)
        or V(//pubsub.googleapis.com/projects/PROJECT/topics/TOPIC). All three compare equal.
      - Required with O(state=present). With O(state=absent) and no O(notification_id),
        the configs with this content are deleted.
      - The bucket's Cloud Storage service agent (C(service-PROJECT_NUMBER@gs-project-accounts.iam.gserviceaccount.com))
        needs C(roles/pubsub.publisher) on the topic; otherwise the API refuses the config with HTTP 403.
        This module neither creates the topic nor grants the role.
    type: str
  payload_format:
    description:
      - The payload of the messages; V(NONE) sends attributes only.
    type: str
    choices: [JSON_API_V1, NONE]
    default: JSON_API_V1
  event_types:
    description:
      - The events that trigger a message; when not set or empty, every event does.
      - V(OBJECT_ARCHIVE) only happens in buckets with object versioning.
      - Compared as a set.
    type: list
    elements: str
    choices: [OBJECT_FINALIZE, OBJECT_METADATA_UPDATE, OBJECT_DELETE, OBJECT_ARCHIVE]
  custom_attributes:
    description:
      - Attributes added to every message. Values are sent as strings (V(true), V(5));
        lists and dictionaries are an error. Keys and values are data; any character is sent and compared as it is.
    type: dict
  object_name_prefix:
    description:
      - Only objects whose name starts with this prefix trigger messages.
      - As in object names, a carriage return or line feed, or more than 1024 bytes of UTF-8, is an error; other
        characters, control characters included, are sent and compared as they are.
    type: str
  user_project:
    description:
      - The project billed for the requests, required by requester-pays buckets. Sent with every request.
      - A project id or project number.
    type: str
  notification_id:
    description:
      - The id of an existing config, as V(12), V(projects/_/buckets/BUCKET/notificationConfigs/12)
        or Terraform's V(BUCKET/notificationConfigs/12). Cloud Storage's ids are decimal numbers; other servers of the
        API give others (Google's storage-testbench, V(notification-1f0c...)), which are taken as they are and
        percent-encoded in the request. An id that would change the request's path (V(.), V(..), a C(/), or the same
        percent-encoded) is refused before any request.
      - With O(state=absent), that config is deleted whatever its content, and the content options are not used.
        When it does not exist the task is not changed; when the bucket does not exist, the task fails.
      - With O(state=present), that config is the one this task manages. It is kept when its content is
        the desired one, otherwise it is deleted after the desired config has been created (the API cannot update it).
    type: str
    aliases: [id]
  purge:
    description:
      - Exclusive management of O(topic) in this bucket.
      - With O(state=present), every other config on the same topic is deleted (duplicates included), after the
        desired config is in place.
      - With O(state=absent), every config on the topic is deleted, whatever its other options.
      - Not used with O(state=absent) and O(notification_id).
    type: bool
    default: false
  state:
    description:
      - Whether a config with this content exists.
    type: str
    choices: [present, absent]
    default: present
extends_documentation_fragment:
  - devinfra.providers.gcp
  - devinfra.providers.attributes
  - devinfra.providers.attributes.actiongroup_storage
attributes:
  check_mode:
    support: full
    details:
      - Check mode sends only reads (one list, or one get for O(state=absent) with O(notification_id)).
  diff_mode:
    support: full
    details:
      - The diff shows the managed config field by field, with an C(exists) pseudo-field. When the task also
        deletes other configs (O(purge), or several configs with the same content), the diff is a list with one
        more entry per deleted config; RV(deleted) lists them too.
  idempotent:
    support: full
notes:
  - A 404 answer to a delete means the config is already gone; the task does not fail.
  - Inserts are never retried (a retried insert can create a duplicate). When an insert times out,
    running the task again is safe, since a config that was created is found by its content.
seealso:
  - module: devinfra.providers.storage_notification_info
  - name: Pub/Sub notifications for Cloud Storage
    description: How notifications work, and the permissions they need.
    link: https://cloud.google.com/storage/docs/pubsub-notifications
  - name: The notificationConfigs resource
    description: The Cloud Storage JSON API reference.
    link: https://cloud.google.com/storage/docs/json_api/v1/notifications
"""

EXAMPLES = r"""
- name: Publish new and deleted objects of the uploads bucket to a topic
  devinfra.providers.storage_notification:
    bucket: uploads
    topic: projects/my-project/topics/uploads
    event_types:
      - OBJECT_FINALIZE
      - OBJECT_DELETE
    custom_attributes:
      source: uploads
    object_name_prefix: incoming/
    auth_kind: serviceaccount
    service_account_file: /etc/gcp/notifier.json
  register: uploads_notification

- name: Show the id the API assigned
  ansible.builtin.debug:
    msg: "{{ uploads_notification.notification.id }}"

- name: Keep exactly one config on the topic, removing any older one
  devinfra.providers.storage_notification:
    bucket: uploads
    topic: uploads
    project: my-project
    payload_format: NONE
    purge: true

- name: Remove a config by its id
  devinfra.providers.storage_notification:
    bucket: uploads
    notification_id: "{{ uploads_notification.notification.id }}"
    state: absent

- name: Use a local emulator for every storage task of a play
  module_defaults:
    group/devinfra.providers.storage:
      api_endpoint: http://127.0.0.1:9023
      auth_kind: accesstoken
      access_token: test-token
  block:
    - name: Create a config in the emulator
      devinfra.providers.storage_notification:
        bucket: test-bucket
        topic: //pubsub.googleapis.com/projects/test-project/topics/test-topic
"""

RETURN = r"""
notification:
  description:
    - The managed config, as the API holds it. In check mode, a config that would be created has null RV(notification.id),
      RV(notification.etag) and RV(notification.self_link).
    - With O(state=absent), the deleted config (the first one when several were deleted), or an empty dictionary when there was none.
  returned: always
  type: dict
  contains:
    id:
      description: The id the API assigned (digits).
      type: str
      sample: "12"
    bucket:
      description: The bucket.
      type: str
      sample: uploads
    topic:
      description: The topic, in the API's form.
      type: str
      sample: //pubsub.googleapis.com/projects/my-project/topics/uploads
    payload_format:
      description: The payload format.
      type: str
      sample: JSON_API_V1
    event_types:
      description: The event types, empty for all events.
      type: list
      elements: str
      sample: [OBJECT_FINALIZE, OBJECT_DELETE]
    custom_attributes:
      description: The custom attributes.
      type: dict
      sample: {source: uploads}
    object_name_prefix:
      description: The object name prefix, empty for all objects.
      type: str
      sample: incoming/
    etag:
      description: The HTTP 1.1 entity tag of the config.
      type: str
      sample: CAE=
    self_link:
      description: The URL of the config.
      type: str
      sample: https://www.googleapis.com/storage/v1/b/uploads/notificationConfigs/12
    kind:
      description: The kind of resource, always V(storage#notification).
      type: str
      sample: storage#notification
deleted:
  description:
    - Every config the task deleted (would delete, in check mode), with the keys of RV(notification).
    - With O(state=present), the config O(notification_id) named and, with O(purge=true), the other configs on the topic.
  returned: always
  type: list
  elements: dict
  sample: []
operation:
  description:
    - What the task did, or would do in check mode, as Terraform's plan names it, C(create), C(replace) (a config's
      content cannot change, so a new one takes the old one's place), C(delete) or C(none); the C(devinfra.providers.plan)
      callback shows it.
  returned: always
  type: str
  sample: replace
  version_added: 0.5.0
address:
  description:
    - The config as Terraform prints a resource, C(storage_notification.<bucket>/<id>) (the topic while no id is known,
      in check mode).
  returned: always
  type: str
  sample: storage_notification.uploads/12
  version_added: 0.5.0
changed_paths:
  description:
    - The options a replaced config differs in, never their values; empty otherwise.
  returned: always
  type: list
  elements: str
  sample: [event_types]
  version_added: 0.5.0
status:
  description: The HTTP status of the API's error answer.
  returned: failed, when the API answered with an error
  type: int
  sample: 403
reason:
  description: The API's reason code for the error.
  returned: failed, when the API answered with an error
  type: str
  sample: forbidden
"""

from ansible_collections.devinfra.providers.plugins.module_utils._common.plan import publish_hidden_plan
from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageError, StorageValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.module import create_module, fail, notification_client
from ansible_collections.devinfra.providers.plugins.module_utils._storage.notification import (
    NOTIFICATION_ARGSPEC,
    NOTIFICATION_REQUIRED_IF,
    desired_content,
    ensure_absent,
    ensure_present,
    parse_notification_id,
)


def main() -> None:
    module = create_module(NOTIFICATION_ARGSPEC, required_if=NOTIFICATION_REQUIRED_IF)
    params = module.params
    try:
        client, credentials_project = notification_client(params)
        notification_id = parse_notification_id(params["notification_id"], params["bucket"]) if params["notification_id"] is not None else None
        desired = desired_content({**params, "project": params["project"] or credentials_project}) if params["topic"] is not None else None
        if params["state"] == "present":
            if desired is None:  # an explicit null passes required_if
                raise StorageValidationError("topic: required with state=present")
            outcome = ensure_present(client, desired, notification_id=notification_id, purge=params["purge"], check_mode=module.check_mode)
        else:
            outcome = ensure_absent(client, desired, notification_id=notification_id, purge=params["purge"], check_mode=module.check_mode)
    except StorageError as exc:
        fail(module, exc)
    for warning in outcome.warnings:
        module.warn(warning)
    address = f"storage_notification.{params['bucket']}/{outcome.notification.get('id') or params['notification_id'] or params['topic'] or ''}"
    result = {
        "changed": outcome.changed,
        "notification": outcome.notification,
        "deleted": outcome.deleted,
        "operation": outcome.operation,
        "address": address,
        "changed_paths": outcome.changed_paths,
    }
    if module._diff:
        result["diff"] = outcome.diff
    publish_hidden_plan(module, result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
