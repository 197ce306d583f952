# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The ``coder_parameter`` data source: where the value comes from and every upstream check,
in upstream's order and with its summaries and details (provider/parameter.go, formtype.go)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import typing as t
import uuid

from .errors import WorkspaceValidationError
from .fields import check_text, single_block
from .gourl import GoURLError, go_quote, parse_go_url
from .re2 import RE2Error, compile_re2

__all__ = [
    "FORM_TYPES",
    "OPTION_TYPES",
    "Option",
    "Parameter",
    "ParameterError",
    "Validation",
    "go_atoi",
    "go_parse_bool",
    "go_parse_float",
    "parameter_env",
    "parameter_previous_env",
    "read_parameter",
    "validate_form_type",
]

OPTION_TYPES = ("string", "number", "bool", "list(string)")
FORM_TYPES = ("radio", "slider", "input", "dropdown", "checkbox", "switch", "multi-select", "tag-select", "textarea", "error")

# formTypeTruthTable: type -> options exist -> allowed form types, the first being the default.
_FORM_TYPE_TABLE: dict[str, dict[bool, tuple[str, ...]]] = {
    "string": {True: ("radio", "dropdown"), False: ("input", "textarea")},
    "number": {True: ("radio", "dropdown"), False: ("input", "slider")},
    "bool": {True: ("radio", "dropdown"), False: ("checkbox", "switch")},
    "list(string)": {True: ("radio", "multi-select"), False: ("tag-select",)},
}


class ParameterError(WorkspaceValidationError):
    """An upstream diagnostic: ``summary`` and, for most, a ``detail``."""

    def __init__(self, summary: str, detail: str = "") -> None:
        super().__init__(f"{summary}: {detail}" if detail else summary)
        self.summary = summary
        self.detail = detail


@dataclasses.dataclass(frozen=True)
class Option:
    name: str
    value: str
    description: str = ""
    icon: str = ""


@dataclasses.dataclass(frozen=True)
class Validation:
    min: int | None = None  # None: not set (min_disabled upstream)
    max: int | None = None
    monotonic: str = ""
    regex: str = ""
    error: str = ""

    @property
    def min_disabled(self) -> bool:
        return self.min is None

    @property
    def max_disabled(self) -> bool:
        return self.max is None


@dataclasses.dataclass
class Parameter:
    name: str
    type: str = "string"
    form_type: str = ""
    default: str | None = None  # None: not set, which makes the parameter required
    options: list[Option] = dataclasses.field(default_factory=list)
    validation: Validation | None = None
    mutable: bool = False
    ephemeral: bool = False

    @property
    def optional(self) -> bool:
        return self.default is not None


def parameter_env(name: str) -> str:
    return "CODER_PARAMETER_" + hashlib.sha256(name.encode()).hexdigest()


def parameter_previous_env(name: str) -> str:
    return "CODER_PARAMETER_PREVIOUS_" + hashlib.sha256(name.encode()).hexdigest()


_GO_DECIMAL = re.compile(r"^[+-]?(?:[0-9]+(?:_[0-9]+)*\.?(?:[0-9]+(?:_[0-9]+)*)?|\.[0-9]+(?:_[0-9]+)*)(?:[eE][+-]?[0-9]+)?$")
_GO_HEX_FLOAT = re.compile(r"^[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9]+$")
_GO_SPECIAL = re.compile(r"^[+-]?(?:inf|infinity|nan)$", re.IGNORECASE)


def go_parse_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64), or None where Go returns an error (syntax or range)."""
    if _GO_SPECIAL.match(text):
        return float(text)
    if _GO_DECIMAL.match(text) and "_" not in text:  # underscores only with a base prefix
        value = float(text)
        return None if math.isinf(value) else value
    if _GO_HEX_FLOAT.match(text):
        sign = -1.0 if text.startswith("-") else 1.0
        body = text.lstrip("+-").replace("_", "")
        try:
            value = sign * float.fromhex(body)
        except (OverflowError, ValueError):
            return None
        return None if math.isinf(value) else value
    return None


def go_atoi(text: str) -> int | None:
    """strconv.Atoi, or None where Go returns an error."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return None
    value = int(text)
    return value if -(1 << 63) <= value < (1 << 63) else None


def go_parse_bool(text: str) -> bool | None:
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def _go_string_list(text: str) -> list[str] | None:
    """json.Unmarshal into []string (null gives an empty list), or None on error."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def _value_is_list_string(value: str) -> list[str]:
    items = _go_string_list(value)
    if items is None:
        raise ValueError(f"value {go_quote(value)} is not a valid list of strings")
    return items


def _value_is_type(typ: str, value: str) -> str | None:
    """valueIsType: the error text, or None."""
    if typ == "number":
        return None if go_parse_float(value) is not None else f"{go_quote(value)} is not a number"
    if typ == "bool":
        return None if go_parse_bool(value) is not None else f"{go_quote(value)} is not a bool"
    if typ == "list(string)":
        try:
            _value_is_list_string(value)
        except ValueError as exc:
            return str(exc)
        return None
    if typ == "string":
        return None
    return f"invalid type {go_quote(typ)}"


def _go_list(items: t.Sequence[str]) -> str:
    return "[" + " ".join(items) + "]"


def validate_form_type(typ: str, option_count: int, form_type: str) -> tuple[str, str]:
    """ValidateFormType: (option type, resolved form type), or a ValueError with upstream's detail."""
    options_exist = option_count > 0
    allowed = _FORM_TYPE_TABLE.get(typ, {}).get(options_exist)
    if not allowed:
        raise ValueError(f'"type" attribute={go_quote(typ)} is not supported, choose one of {_go_list(OPTION_TYPES)}')
    if form_type == "":
        form_type = allowed[0]
    if form_type not in allowed:
        suffix = ""
        if form_type in _FORM_TYPE_TABLE[typ][not options_exist]:
            suffix = " when options exist" if options_exist else " when options do not exist"
        raise ValueError(f'"form_type" attribute={go_quote(form_type)} is not supported for "type"={go_quote(typ)}{suffix}, choose one of {_go_list(allowed)}')
    if typ == "list(string)" and form_type == "multi-select":
        return "string", form_type
    return typ, form_type


def _valid_options(parameter: Parameter, option_type: str) -> set[str]:
    names: set[str] = set()
    values: set[str] = set()
    errors: list[ParameterError] = []
    for option in parameter.options:
        if option.name in names:
            raise ParameterError("Option names must be unique.", f"multiple options found with the same name {go_quote(option.name)}")
        if option.value in values:
            raise ParameterError("Option values must be unique.", f"multiple options found with the same value {go_quote(option.value)}")
        error = _value_is_type(option_type, option.value)
        if error is not None:
            errors.append(ParameterError(f"Option {go_quote(option.name)} with value={go_quote(option.value)} is not of type {go_quote(option_type)}", error))
            continue
        values.add(option.value)
        names.add(option.name)
    if errors:
        # Upstream returns them all: the first one's summary and detail, every one in the message.
        first = errors[0]
        first.args = ("\n".join(str(each) for each in errors),)
        raise first
    return values


def _render_error_go(validation: Validation, value: str) -> str | None:
    """strings.NewReplacer semantics: one left-to-right pass, replacements are not rescanned."""
    if not validation.error:
        return None
    replacements = {"{min}": str(validation.min or 0), "{max}": str(validation.max or 0), "{value}": value}
    return re.sub(r"\{min\}|\{max\}|\{value\}", lambda match: replacements[match.group(0)], validation.error)


def _validate_number(validation: Validation, value: str, previous: str | None) -> str | None:
    number = go_atoi(value)
    if number is None:
        return _render_error_go(validation, value) or f"value {go_quote(value)} is not a number"
    if validation.min is not None and number < validation.min:
        return _render_error_go(validation, value) or f"value {number} is less than the minimum {validation.min}"
    if validation.max is not None and number > validation.max:
        return _render_error_go(validation, value) or f"value {number} is more than the maximum {validation.max}"
    if validation.monotonic not in ("", "increasing", "decreasing"):
        return 'number monotonicity can be either "increasing" or "decreasing"'
    if validation.monotonic and previous is not None:
        previous_number = go_atoi(previous)
        if previous_number is None:
            # Upstream ignores a previous value that is not a number (an error would be unrepairable).
            return None
        if validation.monotonic == "increasing" and number < previous_number:
            return f"parameter value '{number}' must be equal or greater than previous value: {previous_number}"
        if validation.monotonic == "decreasing" and number > previous_number:
            return f"parameter value '{number}' must be equal or lower than previous value: {previous_number}"
    return None


def validation_error(validation: Validation, typ: str, value: str, previous: str | None) -> str | None:
    """Validation.Valid: the error text, or None."""
    if typ != "number":
        if not validation.min_disabled:
            return f"a min cannot be specified for a {typ} type"
        if not validation.max_disabled:
            return f"a max cannot be specified for a {typ} type"
        if validation.monotonic:
            return f"monotonic validation can only be specified for number types, not {typ} types"
    if typ != "string" and validation.regex:
        return f"a regex cannot be specified for a {typ} type"
    if typ == "bool":
        return None if value in ("true", "false") else 'boolean value can be either "true" or "false"'
    if typ == "string":
        if not validation.regex:
            return None
        try:
            regex = compile_re2(validation.regex)
        except RE2Error as exc:
            # Upstream formats the nil *Regexp it failed to build, so the pattern shows as <nil>.
            return f"compile regex <nil>: {exc}"
        if not validation.error:
            return "an error must be specified with a regex validation"
        if not regex.search(value):
            return f"{validation.error} (value {go_quote(value)} does not match {go_quote(validation.regex)})"
        return None
    if typ == "number":
        return _validate_number(validation, value, previous)
    if typ == "list(string)" and _go_string_list(value) is None:
        return f"value {go_quote(value)} is not valid list of strings"
    return None


def _valid_value(parameter: Parameter, value: str, previous: str | None, option_type: str, option_values: set[str], *, from_default: bool) -> None:
    name = "Default value" if from_default else "Value"
    if option_values:
        if parameter.type == "list(string)" and option_type == "string":
            try:
                items = _value_is_list_string(value)
            except ValueError as exc:
                raise ParameterError("When using list(string) type, value must be a json encoded list of strings", str(exc)) from None
            missing = [item for item in items if item not in option_values]
            if missing:
                raise ParameterError(
                    f"{name}s must be a valid option",
                    f"{name} {go_quote(value)} is not a valid option, values {go_quote(', '.join(missing))} are missing from the options",
                )
        elif value not in option_values:
            extra = ". The value is empty, did you forget to set it with a default or from user input?" if value == "" else ""
            raise ParameterError(f"{name} must be a valid option{extra}", f"the value {go_quote(value)} must be defined as one of options")
    if parameter.validation is not None:
        error = validation_error(parameter.validation, parameter.type, value, previous)
        if error is not None:
            raise ParameterError(f"Invalid parameter {name.lower()} according to 'validation' block", error)


def validate_input(parameter: Parameter, input_value: str | None, previous: str | None) -> tuple[str, str]:
    """Parameter.ValidateInput: (value, resolved form type). ``input_value`` None = no input."""
    value = input_value if input_value is not None else parameter.default
    from_default = input_value is None and parameter.default is not None
    try:
        option_type, form_type = validate_form_type(parameter.type, len(parameter.options), parameter.form_type)
    except ValueError as exc:
        raise ParameterError("Invalid form_type for parameter", str(exc)) from None
    option_values = _valid_options(parameter, option_type)
    if parameter.validation is None and value is None:
        return "", form_type
    forced = value if value is not None else ""
    _valid_value(parameter, forced, previous, option_type, option_values, from_default=from_default)
    error = _value_is_type(parameter.type, forced)
    if error is not None:
        raise ParameterError(f"Parameter value is not of type {go_quote(parameter.type)}", error)
    return forced, form_type


def _enum(key: str, value: str, allowed: t.Sequence[str]) -> None:
    if value not in allowed:
        quoted = " ".join(f'"{item}"' for item in allowed)
        raise WorkspaceValidationError(f"expected {key} to be one of [{quoted}], got {value}")


def _check_url(key: str, value: str) -> None:
    if value:
        try:
            parse_go_url(value)
        except GoURLError as exc:
            raise WorkspaceValidationError(f"{key}: {exc}") from None


def read_parameter(options: dict[str, t.Any], *, environ: t.Mapping[str, str]) -> dict[str, t.Any]:
    """The data source's read: the inputs (schema checks first, as Terraform runs them before
    the read), then upstream's order of checks; returns the whole data source."""
    name = options["name"]
    if name is None:
        raise WorkspaceValidationError('The argument "name" is required, but no definition was found.')
    for key in ("name", "display_name", "icon"):
        if isinstance(options.get(key), str):
            check_text(key, options[key])
    typ = options.get("type") or "string"
    form_type = options.get("form_type") or ""
    _enum("type", typ, OPTION_TYPES)
    if form_type:
        _enum("form_type", form_type, FORM_TYPES)
    _check_url("icon", options.get("icon") or "")
    raw_options = options.get("options") or []
    parsed_options = []
    for index, raw in enumerate(raw_options):
        if not isinstance(raw, dict) or raw.get("name") is None or raw.get("value") is None:
            raise WorkspaceValidationError(f"options[{index}]: name and value are required")
        unknown = set(raw) - {"name", "value", "description", "icon"}
        if unknown:
            raise WorkspaceValidationError(f"options[{index}]: unsupported keys {', '.join(sorted(unknown))} (name, value, description, icon)")
        for key in ("name", "icon"):
            check_text(f"options[{index}].{key}", str(raw.get(key) or ""))
        _check_url(f"options[{index}].icon", str(raw.get("icon") or ""))
        parsed_options.append(
            Option(name=str(raw["name"]), value=_as_string(raw["value"]), description=str(raw.get("description") or ""), icon=str(raw.get("icon") or ""))
        )
    validation = _parse_validation(single_block("validation", options.get("validation")))
    default = options.get("default")
    parameter = Parameter(
        name=str(name),
        type=typ,
        form_type=form_type,
        default=None if default is None else _as_string(default),
        options=parsed_options,
        validation=validation,
        mutable=bool(options.get("mutable")),
        ephemeral=bool(options.get("ephemeral")),
    )
    if not parameter.mutable and parameter.ephemeral:
        raise ParameterError("parameter can't be immutable and ephemeral")
    if not parameter.optional and parameter.ephemeral:
        raise ParameterError("ephemeral parameter requires the default property")
    value, resolved_form_type = validate_input(parameter, environ.get(parameter_env(parameter.name)), environ.get(parameter_previous_env(parameter.name)))
    return {
        "id": str(uuid.uuid4()),
        "name": parameter.name,
        "display_name": options.get("display_name"),
        "description": options.get("description"),
        "type": typ,
        "form_type": resolved_form_type,
        "styling": options.get("styling") or "{}",
        "mutable": parameter.mutable,
        "default": parameter.default,
        "icon": options.get("icon"),
        "options": [dataclasses.asdict(option) for option in parsed_options],
        "validation": None
        if validation is None
        else {
            **dataclasses.asdict(validation),
            "min_disabled": validation.min_disabled,
            "max_disabled": validation.max_disabled,
        },
        "order": options.get("order"),
        "ephemeral": parameter.ephemeral,
        "optional": parameter.optional,
        "value": value,
    }


def _as_string(value: t.Any) -> str:
    """Defaults and option values are strings upstream: a list as its JSON array, a number as its
    decimal string, a bool as true/false (what Terraform's type conversion gives)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _parse_validation(raw: t.Any) -> Validation | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise WorkspaceValidationError("validation: must be a dictionary (min, max, monotonic, regex, error)")
    unknown = set(raw) - {"min", "max", "monotonic", "regex", "error"}
    if unknown:
        raise WorkspaceValidationError(f"validation: unsupported keys {', '.join(sorted(unknown))} (min, max, monotonic, regex, error)")
    regex = str(raw.get("regex") or "")
    for bound in ("min", "max", "monotonic"):
        if regex and raw.get(bound) not in (None, ""):
            raise WorkspaceValidationError(f'Conflicting configuration arguments: "validation.0.regex": conflicts with validation.0.{bound}')
    bounds = {}
    for bound in ("min", "max"):
        value = raw.get(bound)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            parsed = go_atoi(str(value))
            if parsed is None:
                raise WorkspaceValidationError(f"validation.{bound}: must be an integer, got {value!r}")
            value = parsed
        bounds[bound] = value
    return Validation(min=bounds["min"], max=bounds["max"], monotonic=str(raw.get("monotonic") or ""), regex=regex, error=str(raw.get("error") or ""))
