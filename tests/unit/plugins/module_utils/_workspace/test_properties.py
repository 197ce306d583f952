# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Bad input at scale: generated parameters, app slugs, env names and cron specs against
oracles written from upstream's rules (coder_parameter in provider/parameter.go and formtype.go,
coder_agent, coder_app, coder_env and coder_script), not from the
code under test. The oracles are deliberately naive (no regular expressions for the names,
explicit loops for the rules) so that they cannot share a mistake with the implementation."""

from __future__ import annotations

import json
import os
import re
import string
import tempfile
import typing as t

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ansible_collections.devinfra.providers.plugins.module_utils._workspace.cron import script_cron_warnings_and_error
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.engine import apply_resource
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.errors import WorkspaceError, WorkspaceValidationError
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.parameter import (
    ParameterError,
    parameter_env,
    parameter_previous_env,
    read_parameter,
)
from ansible_collections.devinfra.providers.plugins.module_utils._workspace.resources import AGENT, ENV, RESOURCE_TYPES, validate_app_slug
from ansible_collections.devinfra.providers.tests.unit.hypothesis_profile import DEADLINE, examples

_SETTINGS = settings(max_examples=examples(300), deadline=DEADLINE, database=None, suppress_health_check=[HealthCheck.too_slow])

# --- coder_parameter -------------------------------------------------------------------------

# upstream's formTypeTruthTable (provider/formtype.go): type -> options exist -> allowed, the first is the default.
TRUTH_TABLE = {
    ("string", True): ["radio", "dropdown"],
    ("string", False): ["input", "textarea"],
    ("number", True): ["radio", "dropdown"],
    ("number", False): ["input", "slider"],
    ("bool", True): ["radio", "dropdown"],
    ("bool", False): ["checkbox", "switch"],
    ("list(string)", True): ["radio", "multi-select"],
    ("list(string)", False): ["tag-select"],
}

# Values that exercise every type check: numbers (integer or not), bools in Go's spellings,
# JSON lists, the empty string, words.
VALUES = ["1", "2", "5", "-3", "1.5", "a", "b", "true", "false", "t", "0", "", '["a"]', '["a","b"]', '["b"]', "[1]", "null"]
REGEXES = ["", "^a", "[0-9]+", ".*", "(a", "^$"]
ERRORS = ["", "custom {min}<{value}<{max}"]


def _go_float(text: str) -> bool:
    """strconv.ParseFloat accepts it (for VALUES: a plain decimal number)."""
    if not text or text.strip() != text or "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _go_atoi(text: str) -> int | None:
    body = text[1:] if text[:1] in "+-" else text
    if not body or any(c not in string.digits for c in body):
        return None
    return int(text)


def _string_list(text: str) -> list[str] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _is_type(typ: str, value: str) -> bool:
    if typ == "number":
        return _go_float(value)
    if typ == "bool":
        return value in ("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False")
    if typ == "list(string)":
        return _string_list(value) is not None
    return True


def _quote(text: str) -> str:
    """Go's strconv.Quote, which for these ASCII values is JSON's quoting."""
    return json.dumps(text)


def _render(error: str, low: int | None, high: int | None, value: str) -> str:
    return error.replace("{min}", str(low or 0)).replace("{max}", str(high or 0)).replace("{value}", value)


def _valid(validation: dict[str, t.Any], typ: str, value: str, previous: str | None) -> str | None:
    """upstream's Validation.Valid (provider/parameter.go): the error, or None."""
    low, high, monotonic = validation.get("min"), validation.get("max"), validation.get("monotonic") or ""
    regex, error = validation.get("regex") or "", validation.get("error") or ""
    if typ != "number":
        if low is not None:
            return f"a min cannot be specified for a {typ} type"
        if high is not None:
            return f"a max cannot be specified for a {typ} type"
        if monotonic:
            return f"monotonic validation can only be specified for number types, not {typ} types"
    if typ != "string" and regex:
        return f"a regex cannot be specified for a {typ} type"
    if typ == "bool":
        return None if value in ("true", "false") else 'boolean value can be either "true" or "false"'
    if typ == "string":
        if not regex:
            return None
        try:
            compiled = re.compile(regex)
        except re.error:
            return "compile"  # the text is the port's (tested in test_cron_re2.py)
        if not error:
            return "an error must be specified with a regex validation"
        return None if compiled.search(value) else f"{error} (value {_quote(value)} does not match {_quote(regex)})"
    if typ == "number":
        number = _go_atoi(value)
        if number is None:
            return _render(error, low, high, value) if error else f"value {_quote(value)} is not a number"
        if low is not None and number < low:
            return _render(error, low, high, value) if error else f"value {number} is less than the minimum {low}"
        if high is not None and number > high:
            return _render(error, low, high, value) if error else f"value {number} is more than the maximum {high}"
        if monotonic not in ("", "increasing", "decreasing"):
            return 'number monotonicity can be either "increasing" or "decreasing"'
        before = _go_atoi(previous) if monotonic and previous is not None else None
        if before is not None and monotonic == "increasing" and number < before:
            return f"parameter value '{number}' must be equal or greater than previous value: {before}"
        if before is not None and monotonic == "decreasing" and number > before:
            return f"parameter value '{number}' must be equal or lower than previous value: {before}"
        return None
    if _string_list(value) is None:
        return f"value {_quote(value)} is not valid list of strings"
    return None


class Outcome(t.NamedTuple):
    summary: str  # "" when valid
    value: str = ""
    form_type: str = ""


def oracle(p: dict[str, t.Any], given_input: str | None, previous: str | None) -> Outcome:
    """What upstream's read gives (its schema checks, then the checks of its read, in order)."""
    validation = p.get("validation")
    if validation and validation.get("regex") and any(validation.get(k) not in (None, "") for k in ("min", "max", "monotonic")):
        return Outcome("Conflicting configuration arguments")
    if not p["mutable"] and p["ephemeral"]:
        return Outcome("parameter can't be immutable and ephemeral")
    if p.get("default") is None and p["ephemeral"]:
        return Outcome("ephemeral parameter requires the default property")
    typ, options = p["type"], p["options"]
    value = given_input if given_input is not None else p.get("default")
    from_default = given_input is None and p.get("default") is not None
    allowed = TRUTH_TABLE[(typ, bool(options))]
    form_type = p["form_type"] or allowed[0]
    if form_type not in allowed:
        return Outcome("Invalid form_type for parameter")
    option_type = "string" if (typ, form_type) == ("list(string)", "multi-select") else typ
    names: list[str] = []
    values: list[str] = []
    type_errors: list[str] = []
    for option in options:
        if option["name"] in names:
            return Outcome("Option names must be unique.")
        if option["value"] in values:
            return Outcome("Option values must be unique.")
        if not _is_type(option_type, option["value"]):
            type_errors.append(f"Option {_quote(option['name'])} with value={_quote(option['value'])} is not of type {_quote(option_type)}")
            continue
        names.append(option["name"])
        values.append(option["value"])
    if type_errors:
        return Outcome(type_errors[0])
    if validation is None and value is None:
        return Outcome("", "", form_type)
    value = value or ""
    label = "Default value" if from_default else "Value"
    if options:
        if option_type != typ:  # list(string) shown as multi-select: every item an option
            items = _string_list(value)
            if items is None:
                return Outcome("When using list(string) type, value must be a json encoded list of strings")
            if any(item not in values for item in items):
                return Outcome(f"{label}s must be a valid option")
        elif value not in values:
            suffix = ". The value is empty, did you forget to set it with a default or from user input?" if value == "" else ""
            return Outcome(f"{label} must be a valid option{suffix}")
    if validation is not None and _valid(validation, typ, value, previous) is not None:
        return Outcome(f"Invalid parameter {label.lower()} according to 'validation' block")
    if not _is_type(typ, value):
        return Outcome(f'Parameter value is not of type "{typ}"')
    return Outcome("", value, form_type)


_VALUE = st.sampled_from(VALUES)
# Mostly values of the parameter's type, so that generated parameters get past the first checks.
_TYPED = {
    "string": ["a", "b", "", "1"],
    "number": ["1", "2", "5", "-3", "1.5"],
    "bool": ["true", "false", "t", "0"],
    "list(string)": ['["a"]', '["b"]', '["a","b"]', "null"],
}
_FORM_TYPES = ["radio", "slider", "input", "dropdown", "checkbox", "switch", "multi-select", "tag-select", "textarea", "error"]
_BOUNDS = st.fixed_dictionaries(
    {},
    optional={
        "min": st.sampled_from([-3, 1, 2, 5]) | st.integers(-5, 5),  # often a value's own number
        "max": st.sampled_from([-3, 1, 2, 5]) | st.integers(-5, 5),
        "monotonic": st.sampled_from(["increasing", "decreasing", "up"]),
        "error": st.sampled_from(ERRORS),
    },
)
_REGEX = st.fixed_dictionaries({"regex": st.sampled_from(REGEXES)}, optional={"error": st.sampled_from(ERRORS)})
_VALIDATION = st.one_of(st.none(), _BOUNDS, _REGEX, st.tuples(_BOUNDS, _REGEX).map(lambda pair: {**pair[0], **pair[1]}))


@st.composite
def _parameter(draw: st.DrawFn) -> dict[str, t.Any]:
    typ = draw(st.sampled_from(sorted(_TYPED)))
    value = st.sampled_from(_TYPED[typ]) | _VALUE
    p: dict[str, t.Any] = {
        "type": typ,
        "form_type": draw(st.just("") | st.sampled_from(TRUTH_TABLE[(typ, True)] + TRUTH_TABLE[(typ, False)]) | st.sampled_from(_FORM_TYPES)),
        "options": draw(st.lists(st.fixed_dictionaries({"name": st.sampled_from(["x", "y", "z"]), "value": value}), max_size=3)),
        "validation": draw(_VALIDATION),
        "mutable": draw(st.booleans()),
        "ephemeral": draw(st.sampled_from([False, False, False, True])),
    }
    if draw(st.booleans()):
        p["default"] = draw(value)
    return p


_PARAMETER = _parameter()
_INPUT = st.none() | st.sampled_from(sorted({v for values in _TYPED.values() for v in values})) | _VALUE


@settings(_SETTINGS, max_examples=examples(1000))
@given(p=_PARAMETER, given_input=_INPUT, previous=_INPUT)
def test_parameter_agrees_with_upstream_rules(p: dict[str, t.Any], given_input: str | None, previous: str | None) -> None:
    environ = {}
    if given_input is not None:
        environ[parameter_env("p")] = given_input
    if previous is not None:
        environ[parameter_previous_env("p")] = previous
    want = oracle(p, given_input, previous)
    try:
        got = read_parameter({"name": "p", **p}, environ=environ)
    except ParameterError as exc:
        assert exc.summary == want.summary, str(exc)
        if want.summary.startswith("Invalid parameter") and p["validation"] is not None:
            detail = _valid(p["validation"], p["type"], (given_input if given_input is not None else p.get("default")) or "", previous)
            assert (detail == "compile" and exc.detail.startswith("compile regex <nil>: ")) or exc.detail == detail
        return
    except WorkspaceValidationError as exc:
        assert want.summary and str(exc).startswith(want.summary), str(exc)
        return
    assert want.summary == "", f"expected {want.summary!r}, got {got}"
    assert (got["value"], got["form_type"], got["optional"]) == (want.value, want.form_type, "default" in p)


@_SETTINGS
@given(
    validation=_BOUNDS,
    given_input=st.integers(-6, 6).map(str) | st.sampled_from(["1.5", "", "x"]),
    previous=st.none() | st.integers(-6, 6).map(str) | st.just("x"),
    default=st.none() | st.integers(-6, 6).map(str),
)
def test_number_bounds_agree_with_upstream_rules(validation: dict[str, t.Any], given_input: str, previous: str | None, default: str | None) -> None:
    # The number checks alone (min, max, monotonic, the custom error), where most inputs reach them.
    p: dict[str, t.Any] = {"type": "number", "form_type": "", "options": [], "validation": validation, "mutable": True, "ephemeral": False}
    if default is not None:
        p["default"] = default
    environ = {parameter_env("p"): given_input}
    if previous is not None:
        environ[parameter_previous_env("p")] = previous
    detail = _valid(validation, "number", given_input, previous)
    if detail is None:
        assert read_parameter({"name": "p", **p}, environ=environ)["value"] == given_input
        return
    with pytest.raises(ParameterError) as raised:
        read_parameter({"name": "p", **p}, environ=environ)
    assert (raised.value.summary, raised.value.detail) == ("Invalid parameter value according to 'validation' block", detail)


# --- app slug, env name ------------------------------------------------------------------------

# Names made of pieces that sit on the rules' edges (double hyphens, underscores, a final newline).
_NAME = st.lists(st.sampled_from(["a", "z9", "0", "-", "--", "_", "A", "Z_1", ".", " ", "\n", "é"]), max_size=5).map("".join)


def _is_slug(text: str) -> bool:
    """^[a-z0-9](-?[a-z0-9])*$ with Go's $ (the very end): lower-case letters and digits, single
    hyphens between them."""
    alnum = set(string.ascii_lowercase + string.digits)
    if not text or text[0] not in alnum or text[-1] not in alnum:
        return False
    return all(c in alnum or c == "-" for c in text) and "--" not in text


def _is_env_name(text: str) -> bool:
    """^[a-zA-Z_][a-zA-Z0-9_]*$: a POSIX name."""
    head = set(string.ascii_letters + "_")
    return bool(text) and text[0] in head and all(c in head or c in string.digits for c in text)


@_SETTINGS
@given(slug=_NAME)
def test_app_slug(slug: str) -> None:
    if _is_slug(slug):
        validate_app_slug(slug)
        return
    with pytest.raises(WorkspaceValidationError) as raised:
        validate_app_slug(slug)
    assert str(raised.value).startswith('invalid "coder_app" slug, must be a valid hostname ("^[a-z0-9](-?[a-z0-9])*$"')


@_SETTINGS
@given(name=_NAME)
def test_env_name(name: str) -> None:
    params = {"name": name, "agent_id": "a", "value": "v", "merge_strategy": "replace", "key": None, "state": "present", "state_file": None}
    if _is_env_name(name):
        assert ENV.validate(params) == []
        return
    with pytest.raises(WorkspaceValidationError, match=r"^invalid value for name \(must be a valid environment variable name\)$"):
        ENV.validate(params)


# --- cron (robfig/cron, 6 fields with an optional day of week) -----------------------------------

# (low, high) of second, minute, hour, day of month, month, day of week
_CRON_BOUNDS = [(0, 59), (0, 59), (0, 23), (1, 31), (1, 12), (0, 6)]


@st.composite
def _cron_field(draw: st.DrawFn) -> tuple[str, int, int, int]:
    """A field expression with (text, lowest, highest, step) it denotes: *, N, A-B, */S, A-B/S."""
    form = draw(st.sampled_from(["*", "n", "range", "star-step", "range-step"]))
    a, b = draw(st.integers(0, 64)), draw(st.integers(0, 64))
    step = draw(st.integers(0, 5))
    if form == "*":
        return "*", -1, -1, 1
    if form == "star-step":
        return f"*/{step}", -1, -1, step
    if form == "n":
        return str(a), a, a, 1
    if form == "range":
        return f"{a}-{b}", a, b, 1
    return f"{a}-{b}/{step}", a, b, step


def _field_error(field: tuple[str, int, int, int], bounds: tuple[int, int]) -> bool:
    _text, start, end, step = field
    if start < 0:  # a star: the whole range
        return step == 0
    return start < bounds[0] or end > bounds[1] or start > end or step == 0


@_SETTINGS
@given(fields=st.lists(_cron_field(), min_size=5, max_size=6))
def test_cron(fields: list[tuple[str, int, int, int]]) -> None:
    spec = " ".join(f[0] for f in fields)
    with_seconds_ok = not any(_field_error(f, b) for f, b in zip(fields, _CRON_BOUNDS))
    unix_ok = len(fields) == 5 and not any(_field_error(f, b) for f, b in zip(fields, _CRON_BOUNDS[1:]))
    warnings, error = script_cron_warnings_and_error(spec)
    assert bool(warnings) is unix_ok
    if with_seconds_ok:
        assert error is None
    else:
        assert error is not None
        assert error.startswith(f"{spec} is not a valid cron expression: ")


# --- any arguments: a result or a clear error, never a crash -------------------------------------

_SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(-3, 200)
    | st.text(st.sampled_from("ab-_/:.%* 0\n"), max_size=6)
    | st.sampled_from(["linux", "amd64", "present", "absent", "@daily", "0 0 * * * *", "http://x", "/abs", "$HOME", "%zz"])
)
_AGENT_ID = "0b7d2f5e-8a1c-4e3b-9d6f-2c4a8e1b5f70"
_KEYS = st.sampled_from(["key", "value", "path", "enabled", "threshold", "memory", "volume", "url", "interval", "sensitive", "script", "x"])
_ANY = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_KEYS, inner, max_size=3), max_leaves=6)
_STR = st.text(st.sampled_from("ab-_/:.%* 0\n"), max_size=6) | st.sampled_from(
    ["@daily", "0 0 * * * *", "*/5 * * * *", "http://x", "/abs", "$HOME", "%zz", "main"]
)


def _arguments(spec: dict[str, dict[str, t.Any]], always: t.Collection[str] = ()) -> st.SearchStrategy[dict[str, t.Any]]:
    """Arguments of the spec's types (the required ones and ``always`` given), with anything at all now and then."""
    given_ = {name for name, option in spec.items() if option.get("required") or name in always}
    return st.fixed_dictionaries(
        {name: _argument(option) for name, option in spec.items() if name in given_},
        optional={name: _argument(option) for name, option in spec.items() if name not in given_},
    )


def _argument(option: dict[str, t.Any]) -> st.SearchStrategy[t.Any]:
    kind = option.get("type", "str")
    typed: st.SearchStrategy[t.Any]
    if option.get("choices"):
        typed = st.sampled_from(option["choices"])
    elif kind == "int":
        typed = st.integers(-3, 200)
    elif kind == "bool":
        typed = st.booleans()
    elif kind == "dict" and option.get("options"):
        typed = _arguments(option["options"])
    elif kind == "list" and option.get("options"):
        typed = st.lists(_arguments(option["options"]), max_size=3)
    elif kind == "dict":
        typed = st.dictionaries(st.sampled_from(["A", "B_1", "PATH"]), _SCALAR, max_size=3)
    else:
        typed = _STR
    return st.one_of(*[typed] * 9, _ANY)


@settings(_SETTINGS, max_examples=examples(500), suppress_health_check=list(HealthCheck))
@given(data=st.data(), check_mode=st.booleans())
def test_any_arguments_give_a_result_or_a_workspace_error(data: st.DataObject, check_mode: bool) -> None:
    # What the action plugins do: the argument spec first (as AnsibleModule would), then the resource.
    rtype = RESOURCE_TYPES[data.draw(st.sampled_from(sorted(RESOURCE_TYPES)))]
    spec = rtype.full_argument_spec()
    # What required_if asks for is mostly given, so that most arguments reach the resource.
    asked = {name for rule in rtype.required_if for name in rule[2]} if data.draw(st.integers(0, 4)) else set()
    args = data.draw(_arguments(spec, asked))
    with tempfile.TemporaryDirectory(prefix="h2p-") as tmp:
        args["state_file"] = os.path.join(tmp, "state.json")
        if "agent_id" in spec and rtype is not AGENT and data.draw(st.booleans()):
            # A child of an agent the state file holds (the usual case), not only of unknown ones.
            agent = ArgumentSpecValidator(AGENT.full_argument_spec()).validate(
                {"name": "main", "agent_id": _AGENT_ID, "arch": "amd64", "os": "linux", "state_file": args["state_file"]}
            )
            apply_resource(AGENT, agent.validated_parameters, check_mode=False, want_diff=False, environ={})
            args["agent_id"] = _AGENT_ID
        try:
            validation = ArgumentSpecValidator(spec, mutually_exclusive=rtype.mutually_exclusive, required_if=rtype.required_if).validate(args)
        except TypeError:
            return  # ansible-core's own validator fails on a dict option given as [null]; not ours
        if validation.error_messages:
            event("refused by the argument spec")
            return
        try:
            outcome = apply_resource(rtype, validation.validated_parameters, check_mode=check_mode, want_diff=True, environ={})
        except WorkspaceError:
            event("refused by the resource")
            return
        event(f"{rtype.name}: {outcome.operation}")
        assert outcome.changed is (validation.validated_parameters["state"] == "present" or outcome.operation == "delete")
