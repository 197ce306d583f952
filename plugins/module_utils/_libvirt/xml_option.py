# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The ``xml`` option of libvirt_network, libvirt_pool and libvirt_volume: a whole definition
(a community.libvirt template) read into the options, so the same checks and the same
comparison apply to it as to the options."""

from __future__ import annotations

import typing as t

from . import schema
from .errors import LibvirtValidationError
from .schema_generated import ROOT_ELEMENTS, STRUCTS

try:
    from lxml import etree
except ImportError:
    etree = None  # type: ignore[assignment]  # the modules report it (schema.HAS_LXML) before parsing

__all__ = ["XML_ARGSPEC", "options_from_xml", "parse_untrusted"]

XML_ARGSPEC: dict[str, dict[str, t.Any]] = {"xml": {"type": "str"}}


def parse_untrusted(xml: str) -> t.Any:
    """The root of ``xml``, parsed without entities, DTDs or network access; a document that
    declares any (a DOCTYPE) is refused: libvirt's own definitions never carry one."""
    try:
        root = schema.parse(xml)
    except etree.XMLSyntaxError as exc:
        raise LibvirtValidationError(f"xml: not valid XML: {exc}") from None
    if root.getroottree().docinfo.doctype:
        raise LibvirtValidationError("xml: a DOCTYPE (DTD, entity declarations) is not accepted in a libvirt definition")
    return root


def options_from_xml(params: dict[str, t.Any], struct: str, option_names: t.Iterable[str], what: str) -> dict[str, t.Any]:
    """The options ``params['xml']`` stands for (``option_names``: the options it replaces, none
    of which may be given with it). ``name`` and the XML's <name> agree; without ``name`` the
    XML's is taken (and set in ``params``, which names the object in the results)."""
    given = sorted(k for k in option_names if k != "name" and params.get(k) is not None)
    if given:
        raise LibvirtValidationError(f"xml: cannot be combined with the {what} options ({', '.join(given)}); put them in the XML")
    root = parse_untrusted(params["xml"])
    if root.tag != ROOT_ELEMENTS[struct]:
        raise LibvirtValidationError(f"xml: the root element must be <{ROOT_ELEMENTS[struct]}>, not <{root.tag}>")
    desired = schema.read(struct, root)
    for entry in STRUCTS[struct]["fields"]:
        if entry.get("computed"):  # what libvirt works out (a uuid, an allocation): no option either
            desired.pop(entry["name"], None)
    name = params.get("name")
    if name and desired.get("name") not in (None, name):
        raise LibvirtValidationError(f"xml: its <name> is {desired.get('name')!r} but name is {name!r}")
    desired["name"] = name or desired.get("name")
    if not desired["name"]:
        raise LibvirtValidationError(f"xml: the {what} has no <name> (and name is not set)")
    params["name"] = desired["name"]
    try:  # the same checks as options get (ranges, choices), before libvirt parses the XML
        schema.build(struct, desired)
    except LibvirtValidationError as exc:
        raise LibvirtValidationError(f"xml: {exc}") from None
    return desired
