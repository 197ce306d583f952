# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The schema engine every libvirt module shares: option trees <-> libvirt XML (lxml),
the argument spec, and the compare that decides ``changed``.

A schema entry (schema_generated.STRUCTS) has ``name`` (the option), ``kind`` and, by kind:

- ``attr``: attribute ``xml`` of the current element; ``elem``: text of child ``xml``;
  ``text``: the current element's own text; ``innerxml``: its children as an XML string;
- ``unit``/``unit_attr``: a flattened value+unit child ``xml`` (its text / its attribute ``attr``);
- ``presence``: child ``xml`` present or not (a boolean);
- ``object``/``list``: one child ``xml`` / one per item, shaped by ``struct``;
- ``list_text``: one child ``xml`` per string;
- ``branch``: a union branch whose ``struct`` fields live in the current element; it is
  selected by attribute ``attr`` = ``value`` on the current element (``where: self``) or on
  its parent (``where: parent``); ``default`` marks the branch used when that is missing.
  ``attr`` and ``value`` may be lists: the branch is selected by all of those attributes;
  ``where: child:<name>`` selects it by an attribute of that child element;
- ``inline``: a chardev source whose fields, and its ``type``, live in the current element;
- ``flag``: a boolean written as attribute ``attr`` = ``value`` (a smartcard's host mode);
- ``custom``: a scalar of a struct that a handler (the struct's ``handler``) writes and reads;
- ``provider``: an option of the module, not of the XML (``spec`` is its argument spec);
- ``selector``: a ``type`` beside a union (an interface's, a graphics device's) that the branch
  given already says: checked against it by validate(), which drops it (``of`` names the
  object holding the branches, else they are the struct's own).

``aliases`` on an entry: the other names it answers to. ``flat`` on a branch: upstream gives
it as a plain value, ``presence`` (true: the branch, which has no options) or ``text`` (its
text, the branch's option ``text``); validate() takes the dictionary form too. ``shorthand``
on a list: an item may be a string, the value of that option of the item. A struct's
``exactly_one_of``: groups of its options of which exactly one is given; ``at_most_one_of``:
groups of which no more than one is.

``sets`` on an entry: attributes written on the current element when the option is given.
``rules`` on an entry: how libvirt stores the option when that is not how it was given (a
size in another unit, a value it leaves out, items it adds to a list): comparable() and the
writer follow them, so that a second run compares equal and a redefinition keeps what
libvirt added (the generator's RULES table says what each one means).

Scalars have ``type`` str, int, float, bool (Go's true/false), yesno or onoff (a boolean
written yes/no or on/off, as libvirt's RNG schemas spell it); ``hex`` is the printf format
of numbers libvirtxml writes in hex (PCI addresses); ``range`` is an int's [lowest, highest],
checked before any XML is written; a string is one line (no control characters) unless
``multiline``.
Options whose value is None are not specified: they are neither written nor compared.
"""

from __future__ import annotations

import copy
import ipaddress
import re
import traceback
import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.parsing.convert_bool import boolean

from .errors import LibvirtValidationError
from .schema_generated import ROOT_ELEMENTS, STRUCTS
from .text import NOT_XML_CHARS, check_one_line
from .units import LONG_MAX, ULONG_MAX, same_unit, scale, split_size, to_bytes

try:
    from lxml import etree
except ImportError:
    etree = None  # type: ignore[assignment]  # reported through HAS_LXML at run time
    HAS_LXML = False
    LXML_IMPORT_ERROR: str | None = traceback.format_exc()
else:
    HAS_LXML = True
    LXML_IMPORT_ERROR = None

__all__ = [
    "HAS_LXML",
    "KEYED_LISTS",
    "LXML_IMPORT_ERROR",
    "MASK",
    "apply",
    "argument_spec",
    "build",
    "canonical_inner_xml",
    "clean",
    "comparable",
    "compare",
    "differences",
    "element",
    "masked",
    "one_unit",
    "options_of",
    "parse",
    "path_parts",
    "prefix_length",
    "read",
    "secrets_in",
    "serialize",
    "step",
    "validate",
    "validate_params",
    "value_at",
    "values_at",
]

Options = dict[str, t.Any]
# Option names ansible-test's validate-modules takes for secrets: each says whether it is one.
_SECRET_LOOKING = re.compile(r"(?:pass(?!ive)|secret|token|key)", re.IGNORECASE)
_TYPES = {"str": "str", "int": "int", "float": "float", "bool": "bool", "yesno": "bool", "onoff": "bool"}
# How libvirt spells true and false, per boolean type.
_SWITCH_WORDS = {"yesno": ("yes", "no"), "onoff": ("on", "off"), "bool": ("true", "false")}


def _fields(struct: str) -> list[dict[str, t.Any]]:
    fields: list[dict[str, t.Any]] = STRUCTS[struct]["fields"]
    return fields


def _qname(entry: dict[str, t.Any], parent: t.Any) -> str:
    """The child's tag: in its own namespace, or else in its parent's (Go's encoder writes a
    namespace as the default one, which the children of <qemu:commandline> inherit)."""
    name: str = entry["xml"]
    namespace = entry.get("ns") or (parent.tag[1:].split("}", 1)[0] if isinstance(parent.tag, str) and parent.tag.startswith("{") else None)
    return f"{{{namespace}}}{name}" if namespace else name


def _ns_prefix(namespace: str) -> str:
    """A readable prefix for libvirt's namespaces: .../network/dnsmasq/1.0 -> dnsmasq."""
    parts = [p for p in namespace.rstrip("/").split("/") if p and not p[0].isdigit()]
    return parts[-1] if parts else "ns"


# --- the argument spec ------------------------------------------------------------------


def argument_spec(struct: str, *, exclude: t.Collection[str] = ()) -> dict[str, dict[str, t.Any]]:
    """The AnsibleModule argument spec of ``struct``'s top-level options (computed outputs left
    out): names, aliases, types, choices. What an object or a list holds is not in it:
    validate_params() checks that, naming the option path of whatever it refuses (Ansible's
    own check of suboptions names neither the path nor the form expected), and takes the
    forms Ansible's types cannot express (a branch given as true or as text, a list item as
    a string). Top-level required-ness is the module's business."""
    spec: dict[str, dict[str, t.Any]] = {}
    for entry in _fields(struct):
        if entry.get("computed") or entry["name"] in exclude:
            continue
        option: dict[str, t.Any]
        kind = entry["kind"]
        if kind == "provider":
            spec[entry["name"]] = entry["spec"]
            continue
        if kind in ("object", "branch", "inline"):
            option = {"type": "dict"}
        elif kind == "list":
            option = {"type": "list", "elements": "dict"}
        elif kind == "list_text":
            option = {"type": "list", "elements": _TYPES[entry["type"]]}
        elif kind in ("presence", "flag"):
            option = {"type": "bool"}
        elif (entry.get("rules") or {}).get("size"):
            option = {"type": "raw"}  # 2GiB as well as 2097152: validate_params() reads it
        else:
            option = {"type": _TYPES[entry["type"]]}
        if entry.get("aliases"):
            option["aliases"] = list(entry["aliases"])
        if entry.get("choices"):
            option["choices"] = list(entry["choices"])
        if _SECRET_LOOKING.search(entry["name"]):
            option["no_log"] = bool(entry.get("secret"))  # e.g. a pool's auth secret is a reference, not a value
        spec[entry["name"]] = option
    return spec


# --- validation: what the user gave, checked and in one form ------------------------------

_NESTING = ("object", "branch", "inline", "list", "list_text", "provider")
_NAMES: dict[str, dict[str, dict[str, t.Any]]] = {}


def _names(struct: str) -> dict[str, dict[str, t.Any]]:
    """Option name or alias -> entry, made once per struct (only for the structs an input visits)."""
    names = _NAMES.get(struct)
    if names is None:
        names = {}
        for entry in _fields(struct):
            if not entry.get("computed"):
                for name in (entry["name"], *entry.get("aliases", ())):
                    names[name] = entry
        _NAMES[struct] = names
    return names


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _form(value: t.Any) -> str:
    """What a value is, in the words of an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, dict):
        return "a dictionary"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    return type(value).__name__


def _dict_wanted(struct: str) -> str:
    """How a dictionary of ``struct`` reads in an error message: its branches, or its options."""
    fields = [e for e in _fields(struct) if not e.get("computed")]
    branches = [e["name"] for e in fields if e["kind"] == "branch"]
    names = branches or [e["name"] for e in fields]
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    return f"a dictionary ({'one of ' if branches else 'options '}{shown})" if names else "a dictionary"


def validate(struct: str, value: t.Any, *, path: str, secrets: set[str] | None = None) -> Options:
    """``value``, the options of ``struct`` a user gave (below the top level), checked against
    the schema and in the one form the rest of this module reads: every option under its own
    name, scalars converted to their type as Ansible converts them, unset (None) options left
    out, a branch given as a dictionary where upstream gives a plain value (``flat``) turned
    into that value, a list item given as a string (``shorthand``) into a dictionary, a
    ``selector`` checked against its branch and dropped. Secret values are added to ``secrets``
    (for the module's no_log). Raises LibvirtValidationError naming the option path."""
    return _validate_struct(struct, value, path, secrets if secrets is not None else set())


def validate_params(struct: str, params: dict[str, t.Any], names: t.Collection[str], secrets: set[str]) -> None:
    """validate() what ``params`` (Ansible's, top level checked) holds in the objects and
    lists of ``struct``'s top-level options among ``names``, in place."""
    for entry in _fields(struct):
        name = entry["name"]
        if name in names and entry["kind"] in _NESTING and params.get(name) is not None:
            params[name] = _validate_entry(entry, params[name], name, secrets)
    _settle_sizes(struct, params, "", names=names)


# Sizes libvirt reads as a domain's memory (virDomainParseMemory): at most LONG_MAX bytes.
_MEMORY_SIZES = {("Domain", "memory"), ("Domain", "current_memory"), ("Domain", "maximum_memory")}


def _settle_sizes(struct: str, holder: Options, path: str, *, names: t.Collection[str] | None = None) -> None:
    """The sizes in ``holder`` (options of ``struct``) as a number and its unit option: an
    integer as it is (in libvirt's default unit without its unit option), ``"2GiB"`` as 2 and
    its unit option GiB. Refused naming the option path: any other form, a unit given twice,
    a size past what libvirt takes."""
    for name, unit_name in _ruled(struct).sizes:
        value = holder.get(name)
        if value is None or (names is not None and name not in names):
            continue
        where = _join(path, name)
        number, unit = split_size(value, path=where)
        holder[name] = number
        if unit is not None:
            if holder.get(unit_name) is not None:
                raise LibvirtValidationError(f"{where}: {value!r} carries its unit, so {_join(path, unit_name)} must not be given too")
            holder[unit_name] = unit
        limit = LONG_MAX if (struct, name) in _MEMORY_SIZES else ULONG_MAX
        unit_path = _join(path, unit_name)
        if to_bytes(number, holder.get(unit_name), default="KiB", path=unit_path) > limit:
            raise LibvirtValidationError(f"{where}: {value!r} is more than libvirt takes ({limit} bytes)")


def secrets_in(struct: str, value: t.Any) -> set[str]:
    """The values of every secret option in ``value`` (options of ``struct`` as given, not
    validated: whatever their form), for the no_log of a task whose input was refused."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= secrets_in(struct, item)
    elif isinstance(value, dict):
        names = _names(struct)
        for key, item in value.items():
            entry = names.get(key)
            if entry is None or item is None:
                continue
            if entry.get("secret") and isinstance(item, (str, int, float)):
                found.add(str(item))
            elif "struct" in entry:
                found |= secrets_in(entry["struct"], item)
    return found


def _validate_struct(struct: str, value: t.Any, path: str, secrets: set[str]) -> Options:
    if not isinstance(value, dict):
        raise LibvirtValidationError(f"{path}: expected {_dict_wanted(struct)}, got {_form(value)}")
    names = _names(struct)
    sizes = {name for name, _unit in _ruled(struct).sizes}
    out: Options = {}
    given: dict[str, str] = {}
    for key, item in value.items():
        entry = names.get(key)
        if entry is None:
            options = ", ".join(sorted(e["name"] for e in _fields(struct) if not e.get("computed")))
            raise LibvirtValidationError(f"{_join(path, str(key))}: unsupported option; {path or 'the top level'} takes {options}")
        if item is None:
            continue
        name = entry["name"]
        if name in given:
            raise LibvirtValidationError(f"{_join(path, name)}: given twice, as {given[name]} and as {key}")
        given[name] = key
        result = item if name in sizes else _validate_entry(entry, item, _join(path, key), secrets)  # sizes: _settle_sizes()
        if result is not None:
            out[name] = result
    _settle_sizes(struct, out, path)
    for entry in _fields(struct):
        if entry["kind"] == "selector" and "type" in out:
            _select(struct, entry, out, path, secrets)
        elif entry.get("required") and out.get(entry["name"]) is None:
            raise LibvirtValidationError(f"{_join(path, entry['name'])}: required, missing in {path}")
    for group in STRUCTS[struct].get("exactly_one_of", ()):
        present = [name for name in group if name in out]
        if len(present) != 1:
            got = "none of them" if not present else ", ".join(present)
            raise LibvirtValidationError(f"{path}: give exactly one of {', '.join(group)}; got {got}")
    for group in STRUCTS[struct].get("at_most_one_of", ()):
        present = [name for name in group if name in out]
        if len(present) > 1:
            raise LibvirtValidationError(f"{path}: give at most one of {', '.join(group)}; got {', '.join(present)}")
    return out


def _validate_entry(entry: dict[str, t.Any], value: t.Any, path: str, secrets: set[str]) -> t.Any:
    kind = entry["kind"]
    if kind in ("object", "inline"):
        return _validate_struct(entry["struct"], value, path, secrets)
    if kind == "branch":
        return _validate_branch(entry, value, path, secrets)
    if kind == "list":
        if not isinstance(value, list):
            raise LibvirtValidationError(f"{path}: expected a list, each item {_dict_wanted(entry['struct'])}, got {_form(value)}")
        items = []
        for index, item in enumerate(value):
            given = item
            if entry.get("shorthand") and isinstance(item, (str, int, float)) and not isinstance(item, bool):
                given = {entry["shorthand"]: item}  # os.boot_devices: [hd]
            items.append(_validate_struct(entry["struct"], {} if given is None else given, f"{path}[{index}]", secrets))
        return items
    if kind == "list_text":
        if not isinstance(value, list):
            raise LibvirtValidationError(f"{path}: expected a list of {_TYPE_WORDS[entry['type']]}s, got {_form(value)}")
        return [_scalar(entry, item, f"{path}[{index}]", secrets) for index, item in enumerate(value)]
    if kind == "provider":
        return _validate_provider(entry, value, path)
    if kind in ("presence", "flag"):
        return _scalar({"type": "bool"}, value, path, secrets)
    return _scalar(entry, value, path, secrets)


def _validate_branch(entry: dict[str, t.Any], value: t.Any, path: str, secrets: set[str]) -> t.Any:
    flat = entry.get("flat")
    if flat == "presence":
        if isinstance(value, dict):
            if any(v is not None for v in value.values()):
                raise LibvirtValidationError(f"{path}: this branch has no options: give true (or {{}}), got a dictionary with {', '.join(map(str, value))}")
            return True
        if isinstance(value, (list, tuple)):
            raise LibvirtValidationError(f"{path}: expected true or false (or {{}}), got {_form(value)}")
        return _scalar({"type": "bool"}, value, path, secrets) or None  # false: not this branch
    if flat == "text":
        if isinstance(value, dict):
            return _validate_struct(entry["struct"], value, path, secrets)[entry["text"]]
        if isinstance(value, (list, tuple, bool)):
            raise LibvirtValidationError(f"{path}: expected a string (or a dictionary with {entry['text']}), got {_form(value)}")
        return _scalar({"type": "str"}, value, path, secrets)
    return _validate_struct(entry["struct"], value, path, secrets)


def _select(struct: str, selector: dict[str, t.Any], out: Options, path: str, secrets: set[str]) -> None:
    """Check the ``type`` in ``out`` against the branch given (or select its branch), and drop it."""
    wanted = out.pop("type")
    where = _join(path, "type")
    holder_name = selector.get("of")
    holder_struct = next(e["struct"] for e in _fields(struct) if e["name"] == holder_name) if holder_name else struct
    holder = out.setdefault(holder_name, {}) if holder_name else out
    branches = [e for e in _fields(holder_struct) if e["kind"] == "branch"]
    given = [e for e in branches if holder.get(e["name"]) is not None]
    prefix = f"{holder_name}." if holder_name else ""
    for branch in given:
        if branch.get("value") != wanted:
            raise LibvirtValidationError(f"{where}: {wanted!r} contradicts {prefix}{branch['name']}, which is type {branch.get('value')!r}; give one of them")
    if not given:
        branch = next(e for e in branches if e.get("value") == wanted)  # the choices are the branches' values
        holder[branch["name"]] = _validate_branch(branch, True if branch.get("flat") == "presence" else {}, _join(path, prefix + branch["name"]), secrets)


def _validate_provider(entry: dict[str, t.Any], value: t.Any, path: str) -> t.Any:
    """A module option beside the XML's (wait_for_ip): Ansible's own check of its small spec."""
    if not isinstance(value, dict):
        raise LibvirtValidationError(f"{path}: expected a dictionary, got {_form(value)}")
    result = ArgumentSpecValidator(entry["spec"]["options"]).validate(value)
    if result.error_messages:
        raise LibvirtValidationError(f"{path}: {result.error_messages[0]}")
    return result.validated_parameters


_TYPE_WORDS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "yesno": "boolean", "onoff": "boolean"}


def _scalar(entry: dict[str, t.Any], value: t.Any, path: str, secrets: set[str]) -> t.Any:
    """A scalar converted to its type as Ansible converts a top-level option's."""
    kind = entry["type"]
    if isinstance(value, (dict, list, tuple)):
        raise LibvirtValidationError(f"{path}: expected {'an' if kind == 'int' else 'a'} {_TYPE_WORDS[kind]}, got {_form(value)}")
    try:
        if kind in ("bool", "yesno", "onoff"):
            converted: t.Any = value if isinstance(value, bool) else boolean(value)
        elif kind == "int":
            converted = _to_int(value)
        elif kind == "float":
            converted = value if isinstance(value, float) else float(value)
        else:
            converted = value if isinstance(value, str) else str(value)
    except (TypeError, ValueError):
        shown = "" if entry.get("secret") else f" ({value!r})"
        raise LibvirtValidationError(f"{path}: expected {'an' if kind == 'int' else 'a'} {_TYPE_WORDS[kind]}, got {_form(value)}{shown}") from None
    if entry.get("choices") and converted not in entry["choices"]:
        raise LibvirtValidationError(f"{path}: must be one of {', '.join(map(str, entry['choices']))}; got {converted!r}")
    if entry.get("secret"):
        secrets.add(str(converted))
    return converted


def _to_int(value: t.Any) -> int:
    if isinstance(value, bool):
        raise TypeError(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(value)
        return int(value)
    return int(str(value).strip(), 10)


def options_of(struct: str, value: t.Any) -> t.Any:
    """The options of ``struct`` in ``value`` under their own names: the aliases Ansible
    leaves beside them (``kernel_args`` beside ``cmdline``) and unset options dropped."""
    if isinstance(value, list):
        return [options_of(struct, item) for item in value]
    if not isinstance(value, dict):
        return value
    out: Options = {}
    for entry in _fields(struct):
        item = value.get(entry["name"])
        if item is not None:
            out[entry["name"]] = options_of(entry["struct"], item) if "struct" in entry else item
    return out


MASK = "********"


def masked(struct: str, value: t.Any) -> t.Any:
    """``value`` with every secret option (``secret`` in the schema) replaced by a mask."""
    if isinstance(value, list):
        return [masked(struct, item) for item in value]
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for entry in _fields(struct):
        item = out.get(entry["name"])
        if item is None:
            continue
        if entry.get("secret"):
            out[entry["name"]] = MASK
        elif "struct" in entry:
            out[entry["name"]] = masked(entry["struct"], item)
    return out


def clean(value: t.Any) -> t.Any:
    """Drop the unspecified (None) options, recursively: what the user asked for."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


# --- options -> XML ---------------------------------------------------------------------


def _format(entry: dict[str, t.Any], value: t.Any, path: str) -> str:
    kind = entry["type"]
    if kind in _SWITCH_WORDS:
        return _SWITCH_WORDS[kind][0 if value else 1]
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise LibvirtValidationError(f"{path}: expected an integer, got {value!r}")
        lowest, highest = entry["range"]
        if not lowest <= value <= highest:
            raise LibvirtValidationError(f"{path}: must be from {lowest} to {highest}, got {value}")
        return entry["hex"] % value if entry.get("hex") else str(value)
    text = str(value)
    bad = NOT_XML_CHARS.search(text)
    if bad:
        raise LibvirtValidationError(f"{path}: contains a character XML cannot hold (U+{ord(bad.group()):04X})")
    text = text if entry.get("multiline") else check_one_line(path, text)
    prefix = (entry.get("rules") or {}).get("prefix")
    if prefix and not text.startswith(prefix):
        raise LibvirtValidationError(f"{path}: libvirt keeps only values that start with {prefix!r} and drops {text!r}; write {prefix + text!r}")
    return text


def _branch_of(struct: str, options: Options, path: str) -> dict[str, t.Any] | None:
    branches = [e for e in _fields(struct) if e["kind"] == "branch" and options.get(e["name"]) not in (None, False)]
    if len(branches) > 1:
        names = ", ".join(f"{path}.{e['name']}" for e in branches)
        raise LibvirtValidationError(f"{path}: only one of {names} may be set")
    return branches[0] if branches else None


def apply(struct: str, element: t.Any, options: Options, *, path: str, parent: t.Any = None) -> None:
    """Write the specified ``options`` into ``element`` (an lxml element), leaving what
    they do not mention as it is. Lists given are replaced as a whole."""
    handler = STRUCTS[struct].get("handler")
    if handler:
        _HANDLERS[handler][0](element, options, parent)
        return
    for entry in _fields(struct):
        value = options.get(entry["name"])
        if value is None or entry.get("computed"):
            continue
        where = f"{path}.{entry['name']}" if path else entry["name"]
        kind = entry["kind"]
        if kind == "attr":
            element.set(entry["xml"], _format(entry, value, where))
            excluded = (entry.get("rules") or {}).get("excludes")
            if excluded:  # the other spelling of the same value, which libvirt refuses beside it
                element.attrib.pop(_ruled(struct).entries[excluded]["xml"], None)
        elif kind == "text":
            element.text = _format(entry, value, where)
        elif kind == "innerxml":
            _set_inner_xml(element, value, where)
        elif kind in ("elem", "unit"):
            child = _child(element, entry)
            child.text = _format(entry, value, where)
            unit = (entry.get("rules") or {}).get("size")
            if unit and options.get(unit) is None:
                # A size given without its unit is in libvirt's default unit: the unit the
                # definition had before must not stay (1 KiB written over "1 GiB" read 1 GiB).
                child.attrib.pop(_ruled(struct).entries[unit]["attr"], None)
        elif kind == "unit_attr":
            _child(element, entry).set(entry["attr"], _format(entry, value, where))
        elif kind == "presence":
            existing = element.find(_qname(entry, element))
            if value and existing is None:
                _new_child(element, entry)
            elif not value and existing is not None:
                element.remove(existing)
        elif kind == "object":
            apply(entry["struct"], _child(element, entry), value, path=where, parent=element)
        elif kind == "list":
            _apply_list(entry, element, value, path=where)
        elif kind == "list_text":
            for old in element.findall(_qname(entry, element)):
                element.remove(old)
            for item in value:
                _new_child(element, entry).text = _format(entry, item, where)
        elif kind == "inline":
            apply(entry["struct"], element, value, path=where, parent=element)
        elif kind == "flag":
            if value:
                element.set(entry["attr"], entry["value"])
            elif element.get(entry["attr"]) == entry["value"]:
                del element.attrib[entry["attr"]]
        if entry.get("sets") and (value or kind == "object"):
            for name, attr_value in entry["sets"].items():
                element.set(name, attr_value)
    _apply_branch(struct, element, options, path=path, parent=parent)


def _apply_branch(struct: str, element: t.Any, options: Options, *, path: str, parent: t.Any) -> None:
    """Write the union branch ``options`` sets, with the attributes that select it."""
    branch = _branch_of(struct, options, path)
    if branch is None:
        return
    value = _branch_options(branch, options[branch["name"]])
    if branch["where"].startswith("child:"):
        apply(branch["struct"], element, value, path=f"{path}.{branch['name']}", parent=parent)
        child = branch["where"].partition(":")[2]
        _child(element, {"xml": child}).set(branch["attr"], branch["value"])
        return
    holder = element if branch["where"] == "self" else parent
    if holder is not None:
        for attr, attr_value in _discriminators(branch):
            if attr_value is not None:
                holder.set(attr, attr_value)
            elif attr in holder.attrib:
                del holder.attrib[attr]
    apply(branch["struct"], element, value, path=f"{path}.{branch['name']}", parent=parent)


def _branch_options(branch: dict[str, t.Any], value: t.Any) -> Options:
    """A branch's options as its struct has them: upstream's flat forms (true, a text) expanded."""
    if isinstance(value, dict):
        return value
    if branch.get("flat") == "text":
        return {branch["text"]: value}
    return {}  # a presence branch: true


def _flat_value(branch: dict[str, t.Any], options: Options) -> t.Any:
    """What a branch reads as: upstream's flat form where it has one."""
    if branch.get("flat") == "presence":
        return True
    if branch.get("flat") == "text":
        return options.get(branch["text"]) or ""
    return options


def _apply_list(entry: dict[str, t.Any], element: t.Any, items: list[t.Any], *, path: str) -> None:
    """Write a list's items over the ones there: an item that is a device already there (the
    same key, else the one that holds it, else the one at its position) is written over that
    device, so what libvirt added to it (its address, alias, MAC) stays; it is made anew only
    when its union branch changes, still keeping what the options do not say. Items of a list
    libvirt extends by itself that no option asks for stay too."""
    struct, rules = entry["struct"], entry.get("rules") or {}
    old = element.findall(_qname(entry, element))
    pairs = _pair_items(struct, rules, [item or {} for item in items], old, element)
    for child in old:
        element.remove(child)
    for index, (given, existing) in enumerate(zip(items, pairs)):
        item = given or {}
        where = f"{path}[{index}]"
        if existing is None:
            apply(struct, _new_child(element, entry), item, path=where, parent=element)
        elif _same_branches(struct, item, existing, element):
            element.append(existing)
            apply(struct, existing, item, path=where, parent=element)
        else:
            fresh = _new_child(element, entry)
            apply(struct, fresh, item, path=where, parent=element)
            _keep_unsaid(struct, item, existing, fresh)
    if rules.get("extends"):
        for child in old:
            if all(child is not paired for paired in pairs):
                element.append(child)


def _pair_items(struct: str, rules: dict[str, t.Any], items: list[Options], old: list[t.Any], parent: t.Any) -> list[t.Any]:
    """For each item, the element of ``old`` that is the same device, or None for a new one."""
    if not old:
        return [None] * len(items)
    have = [comparable(struct, read(struct, child, parent=parent), stored=True) for child in old]
    unused = list(range(len(old)))
    pairs: list[t.Any] = [None] * len(items)
    key: list[str] = rules.get("key") or []
    keyed = [bool(key) and None not in _list_key(item, key) for item in items]
    for index, item in enumerate(items):
        if keyed[index]:
            found = next((j for j in unused if _list_key(have[j], key) == _list_key(item, key)), None)
            if found is not None:
                pairs[index] = old[found]
                unused.remove(found)
    for index, item in enumerate(items):
        if pairs[index] is None and not keyed[index]:
            want = comparable(struct, item)
            found = next((j for j in unused if not differences(want, have[j], struct=struct)), None)
            if found is None and not rules.get("extends") and index in unused:
                found = index  # a changed item in its place
            if found is not None:
                pairs[index] = old[found]
                unused.remove(found)
    return pairs


def _branch_holders(struct: str, item: Options, existing: t.Any, parent: t.Any) -> list[tuple[str, Options, t.Any, t.Any]]:
    """(struct, options, element, its parent) of each union an item selects on its element: its
    own branches, and those of its objects told by an attribute of the item (a disk's source)."""
    holders = [(struct, item, existing, parent)]
    for entry in _fields(struct):
        value = item.get(entry["name"])
        if entry["kind"] == "object" and isinstance(value, dict) and any(e["kind"] == "branch" and e["where"] == "parent" for e in _fields(entry["struct"])):
            child = existing.find(_qname(entry, existing))
            holders.append((entry["struct"], value, child if child is not None else etree.Element("missing"), existing))
    return holders


def _same_branches(struct: str, item: Options, existing: t.Any, parent: t.Any) -> bool:
    """Whether writing ``item`` over ``existing`` keeps the union branches it has."""
    for holder, options, element, holder_parent in _branch_holders(struct, item, existing, parent):
        wanted = _branch_of(holder, options, "")
        if wanted is not None and wanted is not _selected_branch(holder, element, holder_parent):
            return False
    return True


def _keep_unsaid(struct: str, item: Options, existing: t.Any, fresh: t.Any) -> None:
    """Copy to ``fresh`` what ``existing`` holds of the options ``item`` does not set (an
    address, an alias, a MAC), but nothing of its union branches."""
    for entry in _fields(struct):
        if item.get(entry["name"]) is not None or entry.get("xml") is None or entry["kind"] in ("branch", "inline", "custom", "provider", "flag"):
            continue
        if entry["kind"] == "attr":
            if existing.get(entry["xml"]) is not None and fresh.get(entry["xml"]) is None:
                fresh.set(entry["xml"], existing.get(entry["xml"]))
            continue
        tag = _qname(entry, existing)
        if fresh.find(tag) is None:
            for child in existing.findall(tag):
                fresh.append(copy.deepcopy(child))


def _discriminators(branch: dict[str, t.Any]) -> list[tuple[str, str | None]]:
    """(attribute, value) pairs selecting a branch: one, or two for hostdev's mode and type."""
    if isinstance(branch["attr"], list):
        return list(zip(branch["attr"], branch.get("value") or [None] * len(branch["attr"])))
    return [(branch["attr"], branch.get("value"))]


def _child(element: t.Any, entry: dict[str, t.Any]) -> t.Any:
    found = element.find(_qname(entry, element))
    return found if found is not None else _new_child(element, entry)


def _new_child(element: t.Any, entry: dict[str, t.Any]) -> t.Any:
    if entry.get("ns"):
        return etree.SubElement(element, _qname(entry, element), nsmap={_ns_prefix(entry["ns"]): entry["ns"]})
    return etree.SubElement(element, _qname(entry, element))


def _fragment(value: str) -> t.Any:
    """An XML fragment (elements and text, no single root) under a wrapper element."""
    return etree.fromstring(f"<wrapper>{value}</wrapper>")


def _set_inner_xml(element: t.Any, value: str, path: str) -> None:
    for child in list(element):
        element.remove(child)
    element.text = None
    try:
        wrapper = _fragment(value)
    except etree.XMLSyntaxError as exc:
        raise LibvirtValidationError(f"{path}: not valid XML: {exc}") from None
    element.text = wrapper.text
    for child in wrapper:
        element.append(child)


def canonical_inner_xml(value: str) -> str:
    """One spelling of an XML fragment for the compare: what libvirt rewrites (quotes,
    indentation between elements, attribute order, namespace prefixes) left out."""
    try:
        wrapper = _fragment(value)
    except etree.XMLSyntaxError:
        return value

    def text(value: str | None) -> str:
        return value if value and value.strip() else ""

    def canonical(node: t.Any) -> list[t.Any]:
        return [str(node.tag), sorted(node.attrib.items()), text(node.text), [canonical(child) for child in node], text(node.tail)]

    return repr([canonical(child) for child in wrapper])


def element(name: str) -> t.Any:
    """A new, empty element."""
    return etree.Element(name)


def build(struct: str, options: Options, *, path: str = "") -> t.Any:
    """A new root element for ``options``."""
    root = element(ROOT_ELEMENTS[struct])
    apply(struct, root, options, path=path)
    return root


def serialize(element: t.Any) -> str:
    text: str = etree.tostring(element, encoding="unicode")
    return text


def parse(xml: str) -> t.Any:
    """The root of ``xml``, without entities expanded, a DTD loaded or the network asked."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    return etree.fromstring(xml.encode(), parser)


# --- XML -> options ---------------------------------------------------------------------


def _value(entry: dict[str, t.Any], text: str | None) -> t.Any:
    if text is None:
        return None
    kind = entry["type"]
    if kind == "str":
        return text  # libvirt keeps strings as given
    text = text.strip()
    if kind in _SWITCH_WORDS:
        return text == _SWITCH_WORDS[kind][0]
    if kind == "int":
        try:
            return int(text, 0) if text.lower().startswith("0x") else int(text)
        except ValueError:
            return text  # keep what libvirt said; the compare then reports the difference
    if kind == "float":
        try:
            return float(text)
        except ValueError:
            return text
    return text


def _with_rule_siblings(struct: str, like: Options | None) -> Options | None:
    """``like`` asking also for the options the rules of the ones it asks for need: a size's
    unit, the sibling whose value libvirt leaves an option out for."""
    if like is None:
        return None
    extra = {}
    for name, sibling in _ruled(struct).siblings:
        if like.get(name) is not None and like.get(sibling) is None:
            extra[sibling] = True
    return {**like, **extra} if extra else like


class _Ruled(t.NamedTuple):
    """A struct's entries by name, and those with a rule, found once per struct."""

    entries: dict[str, dict[str, t.Any]]
    omitted: list[dict[str, t.Any]]
    sizes: list[tuple[str, str]]  # (option, its unit option)
    totals: list[tuple[str, list[str]]]
    siblings: list[tuple[str, str]]  # (option, the option its rules need read too)
    netmasks: list[tuple[str, str]]  # (a prefix length, the option that may hold it as a dotted netmask)


_RULED: dict[str, _Ruled] = {}


def _ruled(struct: str) -> _Ruled:
    found = _RULED.get(struct)
    if found is None:
        fields = _fields(struct)
        rules = [(entry, entry["rules"]) for entry in fields if entry.get("rules")]
        sizes = [(entry["name"], r["size"]) for entry, r in rules if "size" in r]
        omitted_by = [(entry["name"], r["omitted"]["option"]) for entry, r in rules if "option" in r.get("omitted", {})]
        netmasks = [(entry["name"], r["netmask"]) for entry, r in rules if "netmask" in r]
        found = _RULED[struct] = _Ruled(
            entries={entry["name"]: entry for entry in fields},
            omitted=[entry for entry, r in rules if "omitted" in r],
            sizes=sizes,
            totals=[(entry["name"], r["total"]) for entry, r in rules if "total" in r],
            siblings=sizes + omitted_by + netmasks + [(mask, prefix) for prefix, mask in netmasks],
            netmasks=netmasks,
        )
    return found


def _wanted(like: Options | None, name: str) -> bool:
    return like is None or like.get(name) is not None


def read(struct: str, element: t.Any, like: Options | None = None, *, parent: t.Any = None) -> Options:
    """The options ``element`` holds: all of them, or only those ``like`` specifies."""
    handler = STRUCTS[struct].get("handler")
    if handler:
        found: Options = _HANDLERS[handler][1](element, parent)
        return {k: v for k, v in found.items() if _wanted(like, k)}
    out: Options = {}
    like = _with_rule_siblings(struct, like)
    for entry in _fields(struct):
        name = entry["name"]
        if not _wanted(like, name) or entry["kind"] == "branch":
            continue
        sub_like = like.get(name) if like is not None else None
        kind = entry["kind"]
        value: t.Any = None
        if kind == "attr":
            value = _value(entry, element.get(entry["xml"]))
        elif kind == "text":  # the element is there: no text is the empty string when that is asked for
            value = _value(entry, "" if element.text is None and sub_like == "" else element.text)
        elif kind == "innerxml":
            inner = "".join(etree.tostring(child, encoding="unicode") for child in element)
            value = ((element.text or "") + inner).strip() or None
        elif kind in ("elem", "unit", "unit_attr", "object", "presence"):
            value = _read_child(entry, element, like, sub_like)
        elif kind == "list":
            items = element.findall(_qname(entry, element))
            likes = _likes_of(entry, items, sub_like if isinstance(sub_like, list) else [], element)
            value = [read(entry["struct"], item, item_like, parent=element) for item, item_like in zip(items, likes)]
            value = value if value or like is not None else None
        elif kind == "list_text":
            value = [_value(entry, child.text or "") for child in element.findall(_qname(entry, element))]
            value = value if value or like is not None else None
        elif kind == "inline":
            value = read(entry["struct"], element, sub_like if isinstance(sub_like, dict) else None, parent=element)
            value = value if value or element.get("type") or like is not None else None
        elif kind == "flag":
            value = element.get(entry["attr"]) == entry["value"]
            value = value if value or like is not None else None
        if value is not None and (value != {} or like is not None):
            out[name] = value
    branch = _selected_branch(struct, element, parent)
    if branch is not None and _wanted(like, branch["name"]):
        sub_like = like.get(branch["name"]) if like is not None else None
        out[branch["name"]] = _flat_value(branch, read(branch["struct"], element, sub_like if isinstance(sub_like, dict) else None, parent=parent))
    return out


def _likes_of(entry: dict[str, t.Any], items: list[t.Any], likes: list[t.Any], parent: t.Any) -> list[Options | None]:
    """What to read of each item of a list: the item asked for with the same key (libvirt
    keeps disks in its own order), else the one at its position."""
    by_position = [likes[i] if i < len(likes) and isinstance(likes[i], dict) else None for i in range(len(items))]
    key = (entry.get("rules") or {}).get("key")
    if not key or not likes:
        return by_position
    by_key = {_list_key(like, key): like for like in likes if isinstance(like, dict) and None not in _list_key(like, key)}
    key_like: Options = {}
    for option in key:
        parts = option.split(".")
        node = key_like
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = True
    found = [by_key.get(_list_key(read(entry["struct"], item, key_like, parent=parent), key)) for item in items]
    return [same if same is not None else positional for same, positional in zip(found, by_position)]


def _read_child(entry: dict[str, t.Any], element: t.Any, like: Options | None, sub_like: t.Any) -> t.Any:
    """The value of an option held by one child element (elem, unit, unit_attr, object, presence)."""
    kind = entry["kind"]
    child = element.find(_qname(entry, element))
    if kind == "presence":
        # Asked for: true or false; reading everything: only what is there.
        return child is not None if like is not None else (child is not None) or None
    if child is None:
        # libvirt leaves out an empty source (<serial type="pty">): its branch is still
        # told by the parent's attribute.
        return _read_missing(entry["struct"], element, sub_like) if kind == "object" else None
    if kind in ("elem", "unit"):
        # <name></name> is the empty string; a unit's element may be there for its attributes only
        empty = child.text is None and (kind == "elem" or (sub_like == "" and entry["type"] == "str"))
        return _value(entry, "" if empty else child.text)
    if kind == "unit_attr":
        return _value(entry, child.get(entry["attr"]))
    return read(entry["struct"], child, sub_like if isinstance(sub_like, dict) else None, parent=element)


def _read_missing(struct: str, parent: t.Any, like: t.Any) -> Options | None:
    """What an absent child element holds when asked for: the branch its parent selects.
    Reading everything, only a branch without options, which never has an element of its
    own (<channel type="spicevmc"> has no <source>)."""
    if not any(e["kind"] == "branch" and e["where"] == "parent" for e in _fields(struct)):
        return None
    if not isinstance(like, dict):
        branch = _selected_branch(struct, etree.Element("missing"), parent)
        return {branch["name"]: True} if branch is not None and branch.get("flat") == "presence" else None
    return read(struct, etree.Element("missing"), like, parent=parent) or None


def _selected_branch(struct: str, element: t.Any, parent: t.Any) -> dict[str, t.Any] | None:
    branches = [e for e in _fields(struct) if e["kind"] == "branch"]
    if not branches:
        return None
    where = branches[0]["where"]
    holder = element if where == "self" else element.find(where.partition(":")[2]) if where.startswith("child:") else parent
    if holder is None:
        return None
    if isinstance(branches[0]["attr"], list):  # all of the attributes must match
        have = [holder.get(attr) for attr in branches[0]["attr"]]
        return next((e for e in branches if e.get("value") == have), None)
    value = holder.get(branches[0]["attr"])
    for entry in branches:
        if value is not None and entry.get("value") == value:
            return entry
    if value is None:
        return next((e for e in branches if e.get("default")), None)
    return None


# --- structs libvirtxml encodes by hand ---------------------------------------------------


def _udp_sources(element: t.Any, parent: t.Any) -> list[t.Any]:
    """The <source> elements of a UDP chardev: its parent's, unless the source is the
    chardev itself (a vhost-user interface's), which holds one."""
    return parent.findall("source") if parent is not None and parent is not element else [element]


def _apply_chardev_udp(element: t.Any, options: Options, parent: t.Any) -> None:
    """A UDP chardev: <source mode="bind" host service/> and <source mode="connect" host
    service/>, each written only when one of its values is given (as libvirtxml does)."""
    if (
        parent is element
        and any(options.get(f"bind_{a}") is not None for a in ("host", "service"))
        and any(options.get(f"connect_{a}") is not None for a in ("host", "service"))
    ):
        raise LibvirtValidationError("udp: a vhost-user source holds one <source>: bind_* or connect_*, not both")
    for extra in _udp_sources(element, parent):
        if extra is not element:
            parent.remove(extra)
    for attr in ("mode", "host", "service"):
        element.attrib.pop(attr, None)
    target = None
    for mode in ("bind", "connect"):
        values = {attr: options.get(f"{mode}_{attr}") for attr in ("host", "service")}
        if all(v is None for v in values.values()):
            continue
        if target is None:
            target = element
        else:
            target = etree.Element("source")
            element.addnext(target)
        target.set("mode", mode)
        for attr, value in values.items():
            if value is not None:
                target.set(attr, str(value))


def _read_chardev_udp(element: t.Any, parent: t.Any) -> Options:
    out: Options = {}
    for source in _udp_sources(element, parent):
        mode = "connect" if source.get("mode") == "connect" else "bind"
        for attr in ("host", "service"):
            if source.get(attr) is not None:
                out[f"{mode}_{attr}"] = source.get(attr)
    return out


_HANDLERS: dict[str, tuple[t.Callable[[t.Any, Options, t.Any], None], t.Callable[[t.Any, t.Any], Options]]] = {
    "chardev_udp": (_apply_chardev_udp, _read_chardev_udp),
}


# --- option paths ---------------------------------------------------------------------


def path_parts(path: str) -> list[str | int]:
    """``devices.disks[0].target`` -> ["devices", "disks", 0, "target"]: the option paths
    differences() reports."""
    return [int(part[1:-1]) if part.startswith("[") else part for part in re.findall(r"[^.\[\]]+|\[\d+\]", path)]


def step(value: t.Any, part: str | int) -> t.Any:
    """One step down an option tree; None where there is nothing."""
    if isinstance(part, int):
        return value[part] if isinstance(value, list) and part < len(value) else None
    return value.get(part) if isinstance(value, dict) else None


def value_at(options: t.Any, path: str) -> t.Any:
    """The value at an option path such as ``ips[0].dhcp.hosts`` (None where there is none)."""
    for part in path_parts(path):
        options = step(options, part)
    return options


# --- compare ----------------------------------------------------------------------------


def _rule_tables() -> tuple[dict[str, list[str]], frozenset[str]]:
    """The list rules of the schema by list name, for a compare without a struct: lists whose
    items match by a key (disks by target dev, as terraform-provider-libvirt's readback does),
    and lists libvirt adds items to by itself (a PCI root and USB controllers, PS/2 inputs,
    the console of the first serial port, a video and audio for graphics)."""
    keyed: dict[str, list[str]] = {}
    extended = set()
    for struct in STRUCTS.values():
        for entry in struct["fields"]:
            rules = entry.get("rules") or {}
            if rules.get("key"):
                keyed.setdefault(entry["name"], rules["key"])
            if rules.get("extends"):
                extended.add(entry["name"])
    return keyed, frozenset(extended)


KEYED_LISTS, EXTENDED_LISTS = _rule_tables()


class OneOf:
    """A value libvirt may store in either of these forms (equal to each of them)."""

    def __init__(self, *values: t.Any) -> None:
        self.values = values

    def __eq__(self, other: object) -> bool:
        return any(other == value for value in self.values)

    def __hash__(self) -> int:
        return hash(self.values)

    def __repr__(self) -> str:
        return " or ".join(repr(value) for value in self.values)


def compare(struct: str, desired: t.Any, current: t.Any, *, normalize: t.Callable[[str, t.Any], t.Any] | None = None) -> list[str]:
    """The option paths where ``current`` (``struct``'s options as read from libvirt) does not
    hold ``desired``: both in the form libvirt stores (comparable()), lists by their rules.
    ``normalize(path, value)`` adds what only the host knows (a domain's machine aliases)."""
    return differences(comparable(struct, desired), comparable(struct, current, stored=True), normalize=normalize, struct=struct)


def _octal(text: str) -> t.Any:
    try:
        return int(text, 8)
    except ValueError:
        return text


# One spelling of a text libvirt rewrites, by an entry's ``text`` rule.
_TEXT_FORMS: dict[str, t.Callable[[str], t.Any]] = {
    "xml": canonical_inner_xml,
    "octal": _octal,
    "path": lambda text: text.rstrip("/") if len(text) > 1 else text,
    "mac": lambda text: text.lower() if text.count(":") == 5 else text,
}


def _text(entry: dict[str, t.Any], value: t.Any) -> t.Any:
    """A string as the compare sees it: line ends as XML reads them (CR LF and CR are LF),
    then the entry's ``text`` rule."""
    if isinstance(value, list):
        return [_text(entry, item) for item in value]
    if not isinstance(value, str):
        return value
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    form = (entry.get("rules") or {}).get("text")
    return _TEXT_FORMS[form](value) if form else value


def comparable(struct: str, options: t.Any, *, stored: bool = False, path: str = "") -> t.Any:
    """``options`` in the form the compare uses, by the ``rules`` of each entry: sizes in bytes
    (their unit dropped), texts in one spelling, an empty object asked for left out (libvirt
    drops an element with nothing in it), and in what libvirt stored (``stored``), the values
    it leaves out put back. A unit libvirt does not know fails naming the option path."""
    if isinstance(options, list):
        return [comparable(struct, item, stored=stored, path=f"{path}[{index}]") for index, item in enumerate(options)]
    if not isinstance(options, dict):
        return options
    ruled = _ruled(struct)
    out = dict(options)
    if stored:
        for left_out in ruled.omitted:
            if out.get(left_out["name"]) is None:
                omitted = left_out["rules"]["omitted"]
                out[left_out["name"]] = omitted["value"] if "value" in omitted else out.get(omitted["option"])
    for name, value in options.items():
        entry = ruled.entries.get(name)
        if value is None or entry is None:
            continue
        if "type" in entry:
            out[name] = _text(entry, value)
        elif "struct" in entry and isinstance(value, (dict, list)):
            inner = out[name] = comparable(entry["struct"], value, stored=stored, path=f"{path}.{name}" if path else name)
            if inner == {} and entry["kind"] == "object" and not stored:
                del out[name]
    for prefix, mask in ruled.netmasks:
        bits = prefix_length(out.get(mask))
        if bits is not None and out.get(prefix) is None:
            out[prefix] = bits
            del out[mask]
    for name, unit in ruled.sizes:
        value = out.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            out[name] = to_bytes(value, out.pop(unit, None), default="KiB", path=f"{path}.{unit}" if path else unit)
    for name, parts in ruled.totals if not stored else ():
        value = out.get(name)
        first = _sizes_at(out, parts[0])
        if first and isinstance(value, int):
            out[name] = OneOf(value, sum(first) + sum(size for more in parts[1:] for size in _sizes_at(out, more)))
    return out


def one_unit(struct: str, before: t.Any, after: t.Any) -> None:
    """For a diff, in place: each size that ``before`` and ``after`` both hold written in one
    unit (after's where before is a whole number of it: libvirt's 2097152 KiB shows as 2 GiB
    beside 4 GiB asked for)."""
    if isinstance(before, list) and isinstance(after, list):
        for old, new in zip(before, after):
            one_unit(struct, old, new)
        return
    if not isinstance(before, dict) or not isinstance(after, dict):
        return
    ruled = _ruled(struct)
    for name, unit in ruled.sizes:
        old, new = before.get(name), after.get(name)
        if not isinstance(old, int) or not isinstance(new, int) or isinstance(old, bool) or isinstance(new, bool):
            continue
        try:
            if scale(before.get(unit) or "KiB") == scale(after.get(unit) or "KiB"):
                continue
            (before[name], before[unit]), (after[name], after[unit]) = same_unit((old, before.get(unit)), (new, after.get(unit)), default="KiB")
        except LibvirtValidationError:  # a unit libvirt does not know: shown as given
            continue
    for name, entry in ruled.entries.items():
        if "struct" in entry and name in before and name in after:
            one_unit(entry["struct"], before[name], after[name])


def prefix_length(netmask: t.Any) -> int | None:
    """The prefix length of a dotted IPv4 netmask (255.255.255.0: 24), None for anything else."""
    if not isinstance(netmask, str):
        return None
    try:
        return ipaddress.IPv4Network(f"0.0.0.0/{netmask}").prefixlen
    except ValueError:
        return None


def values_at(options: t.Any, pattern: str) -> list[tuple[str, t.Any]]:
    """(option path, value) of each value ``pattern`` names (``cpu.numa.cell[].memory``: one per
    item of the list), where there is one."""
    found: list[tuple[str, t.Any]] = [("", options)]
    for part in pattern.split("."):
        name, is_list = part.removesuffix("[]"), part.endswith("[]")
        found = [(f"{path}.{name}" if path else name, step(value, name)) for path, value in found]
        if is_list:
            found = [(f"{path}[{index}]", item) for path, value in found if isinstance(value, list) for index, item in enumerate(value)]
    return [(path, value) for path, value in found if value is not None]


def _sizes_at(options: t.Any, path: str) -> list[int]:
    """The sizes at ``path`` (``cpu.numa.cell[].memory``: one per item) of a comparable tree."""
    return [value for _path, value in values_at(options, path) if isinstance(value, int) and not isinstance(value, bool)]


def _entry(struct: str | None, name: str) -> dict[str, t.Any] | None:
    if struct is None:
        return None
    return next((e for e in _fields(struct) if e["name"] == name), None)


def _list_key(item: t.Any, key: t.Sequence[str]) -> tuple[t.Any, ...]:
    """The values of an item's key options (one dotted option path each); text in lower case
    (libvirt writes a MAC address in lower case)."""
    values = []
    for option in key:
        value = item
        for part in option.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        values.append(value.lower() if isinstance(value, str) else value)
    return tuple(values)


def _list_name(path: str) -> str:
    return path.rsplit(".", 1)[-1].split("[", maxsplit=1)[0]


def _missing_items(desired: list[t.Any], current: list[t.Any], path: str, normalize: t.Callable[[str, t.Any], t.Any] | None, struct: str | None) -> list[str]:
    """The items of ``desired`` that no (distinct) item of ``current`` holds."""
    unused = list(current)
    missing = []
    for index, want in enumerate(desired):
        item_path = f"{path}[{index}]"
        match = next((i for i, have in enumerate(unused) if not differences(want, have, path=item_path, normalize=normalize, struct=struct)), None)
        if match is None:
            missing.append(item_path)
        else:
            del unused[match]
    return missing


def _match_by_key(key: t.Sequence[str] | None, desired: list[t.Any], current: list[t.Any]) -> list[t.Any]:
    """``current`` reordered to follow ``desired`` where a keyed list allows it."""
    if not key:
        return current
    by_key = {_list_key(item, key): item for item in current if None not in _list_key(item, key)}
    matched = [by_key.get(_list_key(item, key)) for item in desired]
    if None in matched or len({id(m) for m in matched}) != len(matched):
        return current  # an item without its key, or a missing one: fall back to positions
    rest = [item for item in current if all(item is not m for m in matched)]
    return matched + rest


def differences(
    desired: t.Any, current: t.Any, *, path: str = "", normalize: t.Callable[[str, t.Any], t.Any] | None = None, struct: str | None = None
) -> list[str]:
    """The option paths where ``current`` does not hold what ``desired`` specifies.
    Only specified (non-None) options count; lists compare item by item and by length, or by
    their ``rules`` (a key, items libvirt adds): the list entry's when ``struct`` says whose
    options these are, else by the list's name. ``normalize(path, value)`` maps equivalent
    spellings to one (octal modes...); comparable() gives both trees the form libvirt stores."""
    return _differences(desired, current, path, normalize, struct, None)


def _differences(
    desired: t.Any,
    current: t.Any,
    path: str,
    normalize: t.Callable[[str, t.Any], t.Any] | None,
    struct: str | None,
    rules: dict[str, t.Any] | None,
) -> list[str]:
    norm = normalize or (lambda _path, value: value)
    if isinstance(desired, dict):
        if not isinstance(current, dict):
            return [path or "."]
        found: list[str] = []
        for key, value in desired.items():
            if value is not None:
                entry = _entry(struct, key)
                sub_struct = entry.get("struct") if entry else None
                sub_rules = (entry.get("rules") or {}) if entry else None
                found += _differences(value, current.get(key), f"{path}.{key}" if path else key, normalize, sub_struct, sub_rules)
        return found
    if isinstance(desired, list):
        name = _list_name(path)
        extends = rules.get("extends") if rules is not None else name in EXTENDED_LISTS
        key = rules.get("key") if rules is not None else KEYED_LISTS.get(name)
        if isinstance(current, list) and extends:
            return _missing_items(desired, current, path, normalize, struct)
        if not isinstance(current, list) or len(current) != len(desired):
            return [path]
        current = _match_by_key(key, desired, current)
        found = []
        for index, (want, have) in enumerate(zip(desired, current)):
            found += _differences(want, have, f"{path}[{index}]", normalize, struct, None)
        return found
    return [] if desired == current or norm(path, desired) == norm(path, current) else [path]
