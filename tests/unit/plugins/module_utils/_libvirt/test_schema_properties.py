# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The XML mapping round trip as a property: options -> XML text -> options, on generated option
trees for every struct reachable from every root of the schema (so a root added to
schema_generated.ROOTS is covered without a change here).

The option trees respect the schema: each kind, scalar types, hex numbers, choices, one union
branch at most, at most one of the options that write the same attribute of an element (a
smartcard's mode), and inner XML that is well-formed. What reading everything back gives differs
from what was written only where schema.py says so; ``expected()`` models exactly that:

- a presence (or flag) option that is false is not there (reading everything: only what is);
- an object whose options read back as nothing, and an empty list, are not there;
- an empty string as an element's own text (``text``, ``unit``) is not there;
- an element holding a union with a default branch and no discriminator reads as that branch;
- an attribute another option decides (a union's discriminator) reads as what was written.

Reading back only what was asked (``like``, what the modules do) must never report a difference:
that is what makes a second run report no change."""

from __future__ import annotations

import collections
import re
import typing as t

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from ansible_collections.devinfra.providers.plugins.module_utils._common.text import first_forbidden
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt import schema
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.errors import LibvirtValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.schema_generated import ROOTS, STRUCTS
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples

Options = dict[str, t.Any]
Field = dict[str, t.Any]

_SETTINGS = settings(
    max_examples=examples(8),
    deadline=DEADLINE,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
_DEPTH = 2  # nested structs generated below the struct under test
_NESTING_KINDS = ("object", "list", "branch", "inline")
_SCALAR_KINDS = ("attr", "elem", "text", "unit", "unit_attr", "custom")
# Options of the module that are not in the XML (``provider``), or that validation checks and
# drops (``selector``): neither written nor read.
_NOT_XML_KINDS = ("provider", "selector")


def _fields(struct: str) -> list[Field]:
    return [f for f in STRUCTS[struct]["fields"] if not f.get("computed") and f["kind"] not in _NOT_XML_KINDS]


def _attrs(field: Field) -> list[str]:
    return field["attr"] if isinstance(field["attr"], list) else [field["attr"]]


def _values(field: Field) -> list[str | None]:
    value = field.get("value")
    if isinstance(value, list):
        return value
    return [value] * len(_attrs(field))


def _parent_branch_attrs(struct: str) -> set[str]:
    """Attributes the struct's unions write on the element holding it (``where: parent``)."""
    return {a for f in STRUCTS[struct]["fields"] if f["kind"] == "branch" and f["where"] == "parent" for a in _attrs(f)}


def _written_on_element(struct: str, seen: frozenset[str] = frozenset()) -> set[str]:
    """Attributes of the struct's element that unions (its own, its children's, its branches')
    write: options mapped to one of them are decided by the union, not generated."""
    if struct in seen:
        return set()
    seen |= {struct}
    out: set[str] = set()
    for f in STRUCTS[struct]["fields"]:
        if f["kind"] == "branch":
            if f["where"] == "self":
                out.update(_attrs(f))
            out |= _written_on_element(f["struct"], seen)
        elif f["kind"] in ("object", "list"):
            out |= _parent_branch_attrs(f["struct"])
        elif f["kind"] == "inline":
            out |= _parent_branch_attrs(f["struct"]) | _written_on_element(f["struct"], seen)
    return out


def _self_attributes(field: Field) -> set[str]:
    """The attributes of the current element an option writes itself."""
    out = set(field.get("sets") or {})
    if field["kind"] == "attr":
        out.add(field["xml"])
    elif field["kind"] == "flag":
        out.add(field["attr"])
    return out


# --- strategies -------------------------------------------------------------------------

# Characters XML can hold (blanks around a value and empty values included: libvirt keeps them).
# What the shared one-line rule lets through (it refuses the line separators and bidi controls too).
_ONE_LINE_CHARS = st.characters(exclude_categories=("Cs", "Cc", "Cn")).filter(lambda char: first_forbidden(char) is None) | st.just(" ")
_CHARS = _ONE_LINE_CHARS | st.sampled_from("\t\n\r")
_TEXT = st.text(_CHARS, max_size=12)
_ONE_LINE = st.text(_ONE_LINE_CHARS, max_size=12)
_NS = "urn:h2:meta"


def _fragment(items: list[tuple[str, str]]) -> str:
    """Inner XML as lxml writes it (so that writing and reading it is a fixed point)."""
    out = []
    for tag, text in items:
        node = etree.Element(f"{{{_NS}}}{tag}", nsmap={"m": _NS})
        node.text = text or None  # <a></a> reads back as <a/>
        out.append(etree.tostring(node, encoding="unicode"))
    return "".join(out)


_INNER_XML = st.lists(st.tuples(st.sampled_from(["a", "b", "instance"]), _TEXT), min_size=1, max_size=3).map(_fragment)


# The units of sizes (a size rule names its unit option): the compare takes only libvirt's units.
_UNITS = {id(unit) for body in STRUCTS.values() for f in body["fields"] for unit in body["fields"] if unit["name"] == (f.get("rules") or {}).get("size")}


def _scalar(field: Field) -> st.SearchStrategy[t.Any]:
    if field["kind"] == "innerxml":
        return _INNER_XML
    if id(field) in _UNITS:
        return st.sampled_from(["bytes", "b", "k", "KiB", "KB", "MiB", "M", "GiB", "GB", "TiB"])
    kind = field.get("type", "str")
    if field.get("choices"):
        return st.sampled_from(field["choices"])
    if kind == "int":
        return st.integers(min_value=field["range"][0], max_value=field["range"][1])
    if kind == "float":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind in ("bool", "yesno", "onoff"):
        return st.booleans()
    prefix = (field.get("rules") or {}).get("prefix")
    if prefix:  # libvirt keeps only such values (a device alias): the writer refuses others
        return _ONE_LINE.map(lambda text: prefix + text)
    return _TEXT if field.get("multiline") else _ONE_LINE


_CACHE: dict[tuple[str, int, bool], st.SearchStrategy[Options]] = {}


def options_of(struct: str, depth: int = _DEPTH, *, inline: bool = False) -> st.SearchStrategy[Options]:
    """Option trees for ``struct``: a few of its options, nested structs ``depth`` levels down."""
    key = (struct, depth, inline)
    if key not in _CACHE:
        _CACHE[key] = _options_of(struct, depth, inline)
    return _CACHE[key]


def _options_of(struct: str, depth: int, inline: bool) -> st.SearchStrategy[Options]:
    decided = _written_on_element(struct)
    plain: dict[str, st.SearchStrategy[t.Any]] = {}
    branches: list[Field] = []
    for f in _fields(struct):
        kind = f["kind"]
        if kind == "attr" and f["xml"] in decided:
            continue
        if kind == "branch":
            if depth > 0:
                branches.append(f)
        elif kind in ("object", "inline"):
            if depth > 0:
                plain[f["name"]] = options_of(f["struct"], depth - 1, inline=kind == "inline")
        elif kind == "list":
            if depth > 0:
                plain[f["name"]] = st.lists(options_of(f["struct"], depth - 1), max_size=2)
        elif kind == "list_text":
            plain[f["name"]] = st.lists(_scalar(f), max_size=3)
        elif kind in ("presence", "flag"):
            plain[f["name"]] = st.booleans()
        else:
            plain[f["name"]] = _scalar(f)
    names = sorted(plain)
    chosen = st.lists(st.sampled_from(names), unique=True, max_size=min(6, len(names))) if names else st.just([])
    base = chosen.flatmap(lambda keys: st.fixed_dictionaries({k: plain[k] for k in keys}))
    if branches:
        pick = st.one_of(st.just({}), *(st.fixed_dictionaries({b["name"]: _branch_value(b, depth, inline)}) for b in branches))
        base = st.tuples(base, pick).map(lambda pair: {**pair[0], **pair[1]})
    base = base.map(lambda options: _drop_conflicts(struct, options))
    if inline and STRUCTS[struct].get("handler") == "chardev_udp":
        # A UDP chardev that is itself the <source> (a vhost-user interface's) holds one: bind or connect.
        base = base.map(
            lambda options: {k: v for k, v in options.items() if not k.startswith("connect_")} if any(k.startswith("bind_") for k in options) else options
        )
    return base


def _branch_value(branch: Field, depth: int, inline: bool) -> st.SearchStrategy[t.Any]:
    """A branch's options, in upstream's flat form where it has one (what validation gives)."""
    if branch.get("flat") == "presence":
        return st.just(True)
    if branch.get("flat") == "text":
        return _ONE_LINE
    return options_of(branch["struct"], depth - 1, inline=inline)


def _one_udp_source(options: Options) -> Options:
    if any(k.startswith("bind_") for k in options):
        return {k: v for k, v in options.items() if not k.startswith("connect_")}
    return options


def _drop_conflicts(struct: str, options: Options) -> Options:
    """Keep the first of the options that would write the same attribute of the element, and
    of those the schema allows one of at most."""
    taken: set[str] = set()
    out: Options = {}
    by_name = {f["name"]: f for f in _fields(struct)}
    exclusive = STRUCTS[struct].get("at_most_one_of", ())
    for name, value in options.items():
        attrs = _self_attributes(by_name[name])
        if attrs & taken or any(name in group and set(group) & set(out) for group in exclusive):
            continue
        taken |= attrs
        out[name] = value
    return out


# --- what reading everything back gives ---------------------------------------------------


def expected(struct: str, options: Options) -> tuple[Options, dict[str, str | None]]:
    """(what schema.read gives for the element ``options`` built, attributes written on its parent)."""
    if STRUCTS[struct].get("handler"):
        return {k: v for k, v in options.items() if v is not None}, {}
    out: Options = {}
    on_self: dict[str, str | None] = {}  # attributes set on this element by unions
    on_parent: dict[str, str | None] = {}
    for f in _fields(struct):
        if f["kind"] == "inline":
            # Its fields live in this element, so it is read whenever the element is there.
            got, up = expected(f["struct"], options.get(f["name"]) or {})
            on_self.update(up)
            if got:
                out[f["name"]] = got
            continue
        if f["name"] not in options or f["kind"] == "branch":
            continue
        value, kind = options[f["name"]], f["kind"]
        if kind in ("presence", "flag"):
            if value:
                out[f["name"]] = True
        elif kind == "object":
            got, up = expected(f["struct"], value)
            on_self.update(up)
            if got:
                out[f["name"]] = got
        elif kind == "list":
            items = []
            for item in value:
                got, up = expected(f["struct"], item)
                on_self.update(up)
                items.append(got)
            if items:
                out[f["name"]] = items
        elif kind == "list_text":
            if value:
                out[f["name"]] = value
        elif kind in ("text", "unit") and value == "":
            pass  # no text: reading everything cannot tell it from no value (asked for, it is "")
        else:
            out[f["name"]] = value
    branches = [f for f in _fields(struct) if f["kind"] == "branch"]
    chosen = next((b for b in branches if b["name"] in options), None)
    if chosen is not None:
        written = dict(zip(_attrs(chosen), _values(chosen)))
        (on_self if chosen["where"] == "self" else on_parent).update(written)
        out[chosen["name"]] = _expected_branch(chosen, options[chosen["name"]], on_self)
    elif branches:
        default = next((b for b in branches if b.get("default")), None)
        if default is not None:
            out[default["name"]] = True if default.get("flat") == "presence" else expected(default["struct"], {})[0]
    for f in _fields(struct):
        if f["kind"] == "attr" and on_self.get(f["xml"]) is not None:
            out[f["name"]] = on_self[f["xml"]]
    return out, on_parent


def _expected_branch(branch: Field, value: t.Any, on_self: dict[str, str | None]) -> t.Any:
    """What reading a branch gives: a flat branch as given (true, or the text), else its struct's."""
    if branch.get("flat"):
        return value
    got, up = expected(branch["struct"], value)
    on_self.update(up)
    return got


# --- the properties ----------------------------------------------------------------------


def _reachable(root: str) -> dict[str, list[Field]]:
    """Every struct under ``root`` with the shortest chain of fields leading to it."""
    paths: dict[str, list[Field]] = {root: []}
    queue = collections.deque([root])
    while queue:
        struct = queue.popleft()
        for f in _fields(struct):
            if f["kind"] in _NESTING_KINDS and f["struct"] not in paths:
                paths[f["struct"]] = [*paths[struct], f]
                queue.append(f["struct"])
    return paths


def _wrap(chain: list[Field], options: Options) -> Options:
    value: t.Any = options
    for f in reversed(chain):
        if f.get("flat") == "presence":  # a flat branch's struct: in upstream's form
            value = True
        elif f.get("flat") == "text":
            value = value.get(f["text"]) or ""
        value = {f["name"]: [value] if f["kind"] == "list" else value}
    return t.cast("Options", value)


def _round_trip(root: str, options: Options) -> None:
    struct = ROOTS[root]
    xml = schema.serialize(schema.build(struct, options))
    assert schema.read(struct, schema.parse(xml)) == expected(struct, options)[0], xml
    asked = schema.read(struct, schema.parse(xml), like=options)
    assert schema.compare(struct, options, asked) == [], xml


CASES = [pytest.param(root, struct, chain, id=f"{root}:{struct}") for root in sorted(ROOTS) for struct, chain in sorted(_reachable(ROOTS[root]).items())]


def _grouped(cases: list[t.Any]) -> list[t.Any]:
    """The cases as a few dozen tests: one per root and element on the way (a device kind, a
    top-level option). ansible-test runs each test in a fork of its own, which costs far more
    than a case; every case still runs, and a failure names each failing case."""

    def group(case: t.Any) -> str:
        chain = case.values[2]
        names = [f["name"] for f in chain[: 2 if chain and chain[0]["name"] == "devices" else 1]]
        return f"{case.values[0]}:{'.'.join(names) or '(root)'}"

    groups: dict[str, list[t.Any]] = {}
    for case in cases:
        groups.setdefault(group(case), []).append(case)
    return [pytest.param(members, id=name) for name, members in groups.items()]


def _each(cases: list[t.Any], check: t.Callable[..., None]) -> None:
    """Run the property ``check`` for every case; fail once, naming every case that failed
    with its falsifying example's error."""
    failures = []
    for case in cases:
        try:
            check(*case.values)
        except Exception as exc:  # a falsified case: keep it, run the others
            failures.append(f"{case.id}: {type(exc).__name__}: {exc}")
    assert not failures, "\n\n".join(failures)


@_SETTINGS
@given(data=st.data())
def _round_trip_of(root: str, struct: str, chain: list[Field], data: st.DataObject) -> None:
    _round_trip(root, _wrap(chain, data.draw(options_of(struct), label=struct)))


@pytest.mark.parametrize("cases", _grouped(CASES))
def test_round_trip_of_every_struct(cases: list[t.Any]) -> None:
    _each(cases, _round_trip_of)


@pytest.mark.parametrize("root", sorted(ROOTS))
@settings(_SETTINGS, max_examples=examples(50))
@given(data=st.data())
def test_round_trip_of_whole_trees(root: str, data: st.DataObject) -> None:
    _round_trip(root, data.draw(options_of(ROOTS[root], 3), label=root))


@pytest.mark.parametrize("root", sorted(ROOTS))
@settings(_SETTINGS, max_examples=examples(50))
@given(data=st.data())
def test_applying_over_an_existing_definition_converges(root: str, data: st.DataObject) -> None:
    # What a redefinition does (resource.converge): the desired options applied over what libvirt
    # holds, then read back as asked: nothing may be left to change.
    struct = ROOTS[root]
    before = data.draw(options_of(struct, 3), label="before")
    desired = data.draw(options_of(struct, 3), label="desired")
    element = schema.parse(schema.serialize(schema.build(struct, before)))
    schema.apply(struct, element, desired, path="")
    xml = schema.serialize(element)
    asked = schema.read(struct, schema.parse(xml), like=desired)
    assert schema.compare(struct, desired, asked) == [], xml


def test_every_struct_is_reached() -> None:
    # Each struct of the schema is under some root, so the cases above cover all of them.
    reached = set().union(*(_reachable(struct) for struct in ROOTS.values()))
    outputs = {f["struct"] for body in STRUCTS.values() for f in body["fields"] if f.get("computed") and "struct" in f}  # not options
    assert reached | outputs == set(STRUCTS)


def test_every_kind_is_modelled() -> None:
    kinds = {f["kind"] for struct in STRUCTS.values() for f in struct["fields"]}
    # A new kind needs its generator and its reading modelled above.
    assert kinds - {*_SCALAR_KINDS, *_NESTING_KINDS, *_NOT_XML_KINDS, "presence", "flag", "list_text", "innerxml"} == set()


# --- bad input: refused with the option's path, never written -------------------------------

_HEX_CASES = [
    pytest.param(root, struct, chain, f, id=f"{root}:{struct}.{f['name']}")
    for root in sorted(ROOTS)
    for struct, chain in sorted(_reachable(ROOTS[root]).items())
    for f in _fields(struct)
    if f.get("hex") and f["kind"] == "attr"
]


@pytest.mark.parametrize(("root", "struct", "chain", "field"), _HEX_CASES)
@_SETTINGS
@given(number=st.integers(max_value=-1))
def test_negative_hex_numbers_are_refused(root: str, struct: str, chain: list[Field], field: Field, number: int) -> None:
    path = ".".join(f["name"] + ("[0]" if f["kind"] == "list" else "") for f in chain)
    with pytest.raises(LibvirtValidationError, match=rf"^{re.escape(path)}\.{field['name']}: must be from 0 to "):
        schema.build(ROOTS[root], _wrap(chain, {field["name"]: number}))


_NOT_XML = st.sampled_from([*map(chr, [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)]), "\ufffe", "\uffff", "\ud800"])


_ONE_LINE_CASES = [
    pytest.param(root, struct, chain, f, id=f"{root}:{struct}.{f['name']}")
    for root in sorted(ROOTS)
    for struct, chain in sorted(_reachable(ROOTS[root]).items())
    for f in _fields(struct)
    if f.get("type") == "str" and f["kind"] in ("attr", "elem", "text", "unit", "unit_attr") and not f.get("multiline") and not f.get("choices")
]


@_SETTINGS
@given(before=_ONE_LINE, bad=st.sampled_from("\n\r\t\x7f"), after=_ONE_LINE)
def _one_line_refused(root: str, struct: str, chain: list[Field], field: Field, before: str, bad: str, after: str) -> None:
    path = ".".join(f["name"] + ("[0]" if f["kind"] == "list" else "") for f in chain)
    where = f"{path}.{field['name']}" if path else field["name"]
    with pytest.raises(LibvirtValidationError, match=rf"^{re.escape(where)}: contains a control character \(U\+{ord(bad):04X}\)"):
        schema.build(ROOTS[root], _wrap(chain, {field["name"]: before + bad + after}))


@pytest.mark.parametrize("cases", _grouped(_ONE_LINE_CASES))
def test_control_characters_in_one_line_values_are_refused(cases: list[t.Any]) -> None:
    """A newline in a DNS TXT value or a host name would be a line of its own in the dnsmasq
    config libvirt writes: every string but the multi-line ones (a description) is one line."""
    _each(cases, _one_line_refused)


def test_one_line_cases_cover_the_dnsmasq_values() -> None:
    names = {(struct, field["name"]) for _root, struct, _chain, field in (t.cast("tuple[t.Any, ...]", case.values) for case in _ONE_LINE_CASES)}
    assert {("NetworkDNSTXT", "value"), ("NetworkDNSHostHostname", "hostname"), ("NetworkDomain", "name"), ("Domain", "name")} <= names
    assert ("Domain", "description") not in names


@pytest.mark.parametrize("root", sorted(ROOTS))
@_SETTINGS
@given(data=st.data(), before=_TEXT, bad=_NOT_XML, after=_TEXT)
def test_characters_xml_cannot_hold_are_refused(root: str, data: st.DataObject, before: str, bad: str, after: str) -> None:
    struct = ROOTS[root]
    field = data.draw(st.sampled_from([f for f in _fields(struct) if f["kind"] in ("attr", "elem") and f.get("type") == "str" and not f.get("choices")]))
    with pytest.raises(LibvirtValidationError, match=rf"^{field['name']}: contains a character XML cannot hold \(U\+{ord(bad):04X}\)$"):
        schema.build(struct, {field["name"]: before + bad + after})
