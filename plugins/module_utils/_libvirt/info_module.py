# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The body every libvirt ``*_info`` module shares: connect, query one data source, report;
and the ``xml`` option of the listing modules: each object's XML, secrets masked."""

from __future__ import annotations

import typing as t

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from .connection import HAS_LIBVIRT, LIBVIRT_CONNECTION_ARGSPEC, LIBVIRT_IMPORT_ERROR, connect
from .errors import LibvirtError, LibvirtValidationError

if t.TYPE_CHECKING:
    from .data_sources import DataSourceResult

__all__ = ["XML_INACTIVE_OPTIONS", "XML_OPTIONS", "check_xml_options", "masked_xml", "object_xml", "run_info_module"]

# ``xml: true`` adds each object's XML; ``inactive: true`` (domains and networks) asks for its
# persistent definition instead of the live one.
XML_OPTIONS: dict[str, dict[str, t.Any]] = {"xml": {"type": "bool", "default": False}}
XML_INACTIVE_OPTIONS: dict[str, dict[str, t.Any]] = {**XML_OPTIONS, "inactive": {"type": "bool", "default": False}}
XML_MASK = "********"
# What can hold a secret in libvirt's XML. The secure flags (VIR_DOMAIN_XML_SECURE) are never
# asked for, so libvirt leaves these out; whatever still shows is masked all the same.
_SECRET_ATTRIBUTES = frozenset({"passwd", "password"})
_SECRET_TEXTS = frozenset({"cookie", "passwd", "password", "passphrase"})


def run_info_module(
    options: dict[str, dict[str, t.Any]],
    query: t.Callable[[t.Any, dict[str, t.Any]], DataSourceResult],
    *,
    read_only: bool = True,
    libraries: t.Sequence[tuple[str, bool, str | None]] = (),
) -> None:
    """Build the module from the data source's own ``options`` plus the connection
    options, run ``query(conn, params)`` and exit with its values at the top level.
    ``libraries``: (name, importable, import traceback) of what the query needs besides libvirt."""
    module = AnsibleModule(argument_spec={**LIBVIRT_CONNECTION_ARGSPEC, **options}, supports_check_mode=True)
    for name, importable, import_error in (("libvirt-python", HAS_LIBVIRT, LIBVIRT_IMPORT_ERROR), *libraries):
        if not importable:
            module.fail_json(msg=missing_required_lib(name), exception=import_error)
    try:
        with connect(module.params["uri"], read_only=read_only) as conn:
            result = query(conn, module.params)
    except LibvirtError as exc:
        module.fail_json(msg=str(exc))
    for warning in result.warnings:
        module.warn(warning)
    module.exit_json(changed=False, **result.values)


def check_xml_options(params: dict[str, t.Any]) -> None:
    """``inactive`` chooses which XML ``xml`` returns: alone it asks for nothing."""
    if params.get("inactive") and not params.get("xml"):
        raise LibvirtValidationError("inactive: only with xml: true (it chooses the definition xml returns)")


def _local(tag: t.Any) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def masked_xml(xml: str) -> str:
    """``xml`` with every secret value replaced by ``********``: each attribute named passwd or
    password (graphics passwords) and the text of cookie, passwd, password and passphrase
    elements. Unchanged, as libvirt wrote it, when it holds none."""
    from .schema import parse, serialize  # noqa: PLC0415  # lxml, needed only with xml: true

    root = parse(xml)
    found = False
    for element in root.iter():
        for attribute in list(element.attrib):
            if _local(attribute) in _SECRET_ATTRIBUTES:
                element.set(attribute, XML_MASK)
                found = True
        if _local(element.tag) in _SECRET_TEXTS and (element.text or "").strip():
            element.text = XML_MASK
            found = True
    return serialize(root) if found else xml


def object_xml(obj: t.Any, inactive_flag: int | None = None) -> str:
    """The object's XML, masked: its persistent definition with ``inactive_flag``, else the
    live one (XMLDesc(0); never a secure flag)."""
    from .resource import definition_xml  # noqa: PLC0415  # kept out of the info modules that need no XML

    return masked_xml(definition_xml(obj, inactive_flag) if inactive_flag else obj.XMLDesc(0))
