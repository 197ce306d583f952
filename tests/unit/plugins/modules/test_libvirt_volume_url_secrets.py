# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""A password in a URL option (create.content.url) is masked wherever the module's result shows
it: ansible-core before 2.21 returns the task's invocation, which held the URL whole."""

from __future__ import annotations

import json
import typing as t

import pytest

pytest.importorskip("libvirt")

from ansible_collections.devinfra.providers.plugins.module_utils._common.secrets import url_passwords
from ansible_collections.devinfra.providers.plugins.modules import libvirt_volume

PASSWORD = "DVTSECRET-url-pw"


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("https://jane:DVTSECRET-url-pw@images.example.com/a.qcow2", {PASSWORD, f"jane:{PASSWORD}"}),
        ("https://jane:DVTSECRET%2Furl@h/x", {"DVTSECRET%2Furl", "DVTSECRET/url", "jane:DVTSECRET%2Furl"}),
        ({"create": {"content": {"url": "ftp://u:secret@h/x"}}}, {"secret", "u:secret"}),
        (["http://h/x", "https://jane@h/x", "not a url: a@b", "http://[::1/x@y"], set()),
    ],
)
def test_url_passwords(value: t.Any, found: set[str]) -> None:
    assert url_passwords(value) == found


def test_the_invocation_masks_the_password(run_module: t.Callable[..., dict[str, t.Any]]) -> None:
    url = f"http://jane:{PASSWORD}@127.0.0.1:9/base.qcow2"  # port 9: nothing answers
    result = run_module(
        libvirt_volume.main,
        {"uri": "test:///default", "pool": "default-pool", "name": "url-secret.qcow2", "create": {"content": {"url": url}}, "_ansible_inject_invocation": True},
        check_mode=True,
    )
    shown = json.dumps(result)
    assert PASSWORD not in shown
    assert result["invocation"]["module_args"]["create"]["content"]["url"] == "http://********@127.0.0.1:9/base.qcow2"
