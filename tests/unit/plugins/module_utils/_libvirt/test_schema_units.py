# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# A size written over a definition without its unit is in libvirt's default unit: the unit the
# definition had must not stay (found by test_schema_properties' redefinition property).

from __future__ import annotations

import pytest

from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema


@pytest.mark.parametrize(
    ("before", "desired", "written"),
    [
        ({"hard_limit": 1, "hard_limit_unit": "bytes"}, {"hard_limit": 1}, "<hard_limit>1</hard_limit>"),
        ({"hard_limit": 1, "hard_limit_unit": "GiB"}, {"hard_limit": 2, "hard_limit_unit": "MiB"}, '<hard_limit unit="MiB">2</hard_limit>'),
        ({"soft_limit": 3}, {"soft_limit": 4}, "<soft_limit>4</soft_limit>"),
    ],
)
def test_a_size_without_its_unit_drops_the_old_unit(before: dict[str, object], desired: dict[str, object], written: str) -> None:
    element = schema.parse(schema.serialize(schema.build("Domain", {"memory_tune": before})))
    schema.apply("Domain", element, {"memory_tune": desired}, path="")
    xml = schema.serialize(element)
    assert written in xml
    assert schema.compare("Domain", {"memory_tune": desired}, schema.read("Domain", schema.parse(xml), like={"memory_tune": desired})) == []
