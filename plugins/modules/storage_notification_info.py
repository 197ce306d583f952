#!/usr/bin/python
# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: storage_notification_info
short_description: List the Pub/Sub notification configs of a Cloud Storage bucket
version_added: 0.1.0
description:
  - Lists the notification configs of a Cloud Storage bucket, or reads one by its id
    (the C(list) and C(get) methods of the C(notificationConfigs) resource of the Cloud Storage JSON API v1).
author:
  - devinfra.providers contributors (@devinfra)
options:
  bucket:
    description:
      - The name of the bucket (without V(gs://)), checked against Cloud Storage's bucket naming rules before any request.
    type: str
    required: true
  notification_id:
    description:
      - Read only this config, given as V(12), V(projects/_/buckets/BUCKET/notificationConfigs/12)
        or V(BUCKET/notificationConfigs/12). Ids are taken as the server gives them (see
        O(devinfra.providers.storage_notification#module:notification_id)).
      - When it does not exist, RV(notifications) is empty; when the bucket does not exist, the task fails.
    type: str
    aliases: [id]
  user_project:
    description:
      - The project billed for the requests, required by requester-pays buckets; a project id or project number.
    type: str
extends_documentation_fragment:
  - devinfra.providers.gcp
  - devinfra.providers.attributes
  - devinfra.providers.attributes.info_module
  - devinfra.providers.attributes.actiongroup_storage
seealso:
  - module: devinfra.providers.storage_notification
"""

EXAMPLES = r"""
- name: List the configs of a bucket
  devinfra.providers.storage_notification_info:
    bucket: uploads
    auth_kind: application
  register: uploads

- name: Show the topics they publish to
  ansible.builtin.debug:
    msg: "{{ uploads.notifications | map(attribute='topic') | list }}"

- name: Read one config
  devinfra.providers.storage_notification_info:
    bucket: uploads
    notification_id: projects/_/buckets/uploads/notificationConfigs/12
  register: one
"""

RETURN = r"""
notifications:
  description:
    - The configs of the bucket in the API's order, or the one O(notification_id) names (an empty list when it does not exist).
  returned: success
  type: list
  elements: dict
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
      description: The payload format, V(JSON_API_V1) or V(NONE).
      type: str
      sample: JSON_API_V1
    event_types:
      description: The event types, empty for all events.
      type: list
      elements: str
      sample: [OBJECT_FINALIZE]
    custom_attributes:
      description: The custom attributes.
      type: dict
      sample: {}
    object_name_prefix:
      description: The object name prefix, empty for all objects.
      type: str
      sample: ""
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
status:
  description: The HTTP status of the API's error answer.
  returned: failed, when the API answered with an error
  type: int
  sample: 404
reason:
  description: The API's reason code for the error.
  returned: failed, when the API answered with an error
  type: str
  sample: notFound
"""

from ansible_collections.devinfra.providers.plugins.module_utils._storage.errors import StorageError
from ansible_collections.devinfra.providers.plugins.module_utils._storage.module import create_module, fail, notification_client
from ansible_collections.devinfra.providers.plugins.module_utils._storage.notification import (
    NOTIFICATION_INFO_ARGSPEC,
    get_notifications,
    parse_notification_id,
)


def main() -> None:
    module = create_module(NOTIFICATION_INFO_ARGSPEC)
    params = module.params
    try:
        client, _project = notification_client(params)
        notification_id = parse_notification_id(params["notification_id"], params["bucket"]) if params["notification_id"] is not None else None
        notifications = get_notifications(client, notification_id)
    except StorageError as exc:
        fail(module, exc)
    module.exit_json(changed=False, notifications=notifications)


if __name__ == "__main__":
    main()
