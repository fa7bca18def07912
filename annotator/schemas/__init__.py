"""Task schemas: what annotators may mark, which fields they fill in, what gets rated.

A schema is a YAML file in the spirit of Thresh typologies (Heineman et al. 2023): a list of
edit types (each spanning the original, the simplification, or both), their fields, the
item-level rating fields and the pre-highlighters that run for the project. The built-in
schemas live next to this module; a user may point at their own file instead.

Loading validates the whole file and raises :class:`SchemaError` naming the file, the key
and what was expected, so a lead can fix a typo without reading a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from annotator.core.vocabulary import RATING_LEVELS, SIDES

BUILTIN_DIR = Path(__file__).parent
FIELD_TYPES = ("text", "choice", "ordinal", "multichoice")
PREHIGHLIGHTERS = (
    "trailing",
    "leaked_instruction",
    "repetition",
    "semantic_outlier",
    "deletion",
    "oversimplification",
)


class SchemaError(ValueError):
    """A schema file that does not say what the tool needs."""

    def __init__(self, path: str, key: str, expected: str, got: Any = None):
        self.path, self.key, self.expected = path, key, expected
        got_text = "" if got is None else f", got {got!r}"
        super().__init__(f"{path}: key '{key}': expected {expected}{got_text}")


@dataclass(frozen=True)
class Option:
    value: Any
    label: str
    # Value used for agreement statistics when it differs from the stored one (Devaraj et
    # al. 2022 treat -1, gibberish, as the most severe level: 3).
    agreement_value: Any = None

    @property
    def stat_value(self) -> Any:
        return self.value if self.agreement_value is None else self.agreement_value


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    type: str
    required: bool = False
    options: tuple[Option, ...] = ()
    help: str = ""
    level: str | None = None  # only for rating fields
    placeholder: str = ""

    def option_values(self) -> list[Any]:
        return [o.value for o in self.options]

    def is_valid_value(self, value: Any) -> bool:
        if value is None or value == "":
            return not self.required
        if self.type == "text":
            return isinstance(value, str)
        if self.type == "multichoice":
            return isinstance(value, list) and all(v in self.option_values() for v in value)
        return value in self.option_values()


@dataclass(frozen=True)
class EditType:
    name: str
    label: str
    sides: tuple[str, ...]
    required_sides: tuple[str, ...]
    fields: tuple[FieldSpec, ...] = ()
    description: str = ""
    color: str = "#888888"
    key: str = ""  # keyboard shortcut for "new edit of this type"

    def field(self, name: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True)
class Schema:
    name: str
    title: str
    description: str
    unit: str  # "document" or "sentence": what one imported record is
    edit_types: tuple[EditType, ...] = ()
    ratings: tuple[FieldSpec, ...] = ()
    prehighlighters: tuple[str, ...] = ()
    guideline: str | None = None
    source_text: str = field(default="", repr=False)  # the YAML exactly as loaded

    def edit_type(self, name: str) -> EditType | None:
        return next((e for e in self.edit_types if e.name == name), None)

    def rating(self, name: str, level: str | None = None) -> FieldSpec | None:
        return next(
            (r for r in self.ratings if r.name == name and (level is None or r.level == level)),
            None,
        )


def builtin_names() -> list[str]:
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.yaml"))


def resolve(name_or_path: str) -> Path:
    """A built-in schema name (``infolossqa``) or a path to a YAML file."""
    candidate = BUILTIN_DIR / f"{name_or_path}.yaml"
    if candidate.is_file():
        return candidate
    path = Path(name_or_path)
    if path.is_file():
        return path
    raise SchemaError(
        name_or_path, "schema", f"a built-in schema ({', '.join(builtin_names())}) or a YAML file"
    )


def load_schema(name_or_path: str) -> Schema:
    path = resolve(name_or_path)
    return parse_schema(path.read_text(encoding="utf-8"), str(path))


def parse_schema(text: str, path: str = "<schema>") -> Schema:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "file"
        raise SchemaError(path, where, "valid YAML", str(exc).splitlines()[0]) from None
    return _Parser(path).schema(data, text)


class _Parser:
    """Walks the YAML tree, keeping the dotted key for error messages."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, expected: str, got: Any = None):
        raise SchemaError(self.path, key, expected, got)

    def mapping(self, value, key):
        if not isinstance(value, dict):
            self.fail(key, "a mapping", value)
        return value

    def string(self, value, key, required=True, default=""):
        if value is None and not required:
            return default
        if not isinstance(value, str) or not value.strip():
            self.fail(key, "a non-empty string", value)
        return value

    def identifier(self, value, key):
        value = self.string(value, key)
        if not value.replace("_", "").replace("-", "").isalnum():
            self.fail(key, "a name of letters, digits, '_' or '-'", value)
        return value

    def known_keys(self, data: dict, key: str, allowed: set[str]):
        for k in data:
            if k not in allowed:
                self.fail(f"{key}.{k}" if key else k, f"one of {sorted(allowed)}", "unknown key")

    def schema(self, data, text) -> Schema:
        data = self.mapping(data, "(top level)")
        self.known_keys(
            data,
            "",
            {"name", "title", "description", "unit", "edit_types", "ratings",
             "prehighlighters", "guideline"},
        )
        name = self.identifier(data.get("name"), "name")
        unit = data.get("unit", "document")
        if unit not in ("document", "sentence"):
            self.fail("unit", "'document' or 'sentence'", unit)
        edit_types = self.edit_types(data.get("edit_types", []))
        ratings = tuple(
            self.field_spec(r, f"ratings[{i}]", rating=True)
            for i, r in enumerate(self.list_of(data.get("ratings", []), "ratings"))
        )
        seen = set()
        for i, r in enumerate(ratings):
            if (r.name, r.level) in seen:
                self.fail(f"ratings[{i}].name", "a name unique within its level", r.name)
            seen.add((r.name, r.level))
        if not edit_types and not ratings:
            self.fail("edit_types", "at least one edit type or rating field")
        pre = self.list_of(data.get("prehighlighters", []), "prehighlighters")
        for i, p in enumerate(pre):
            if p not in PREHIGHLIGHTERS:
                self.fail(f"prehighlighters[{i}]", f"one of {list(PREHIGHLIGHTERS)}", p)
        return Schema(
            name=name,
            title=self.string(data.get("title"), "title", required=False, default=name),
            description=self.string(data.get("description"), "description", False),
            unit=unit,
            edit_types=edit_types,
            ratings=ratings,
            prehighlighters=tuple(pre),
            guideline=self.string(data.get("guideline"), "guideline", required=False) or None,
            source_text=text,
        )

    def list_of(self, value, key):
        if not isinstance(value, list):
            self.fail(key, "a list", value)
        return value

    def edit_types(self, value) -> tuple[EditType, ...]:
        result, names = [], set()
        for i, item in enumerate(self.list_of(value, "edit_types")):
            key = f"edit_types[{i}]"
            item = self.mapping(item, key)
            self.known_keys(
                item, key,
                {"name", "label", "sides", "required_sides", "fields", "description",
                 "color", "key"},
            )
            name = self.identifier(item.get("name"), f"{key}.name")
            if name in names:
                self.fail(f"{key}.name", "a name used once", name)
            names.add(name)
            sides = self.sides(item.get("sides"), f"{key}.sides")
            required = self.sides(item.get("required_sides", list(sides)), f"{key}.required_sides",
                                  allow_empty=True)
            if not set(required) <= set(sides):
                self.fail(f"{key}.required_sides", f"a subset of sides {list(sides)}", required)
            fields = tuple(
                self.field_spec(f, f"{key}.fields[{j}]")
                for j, f in enumerate(self.list_of(item.get("fields", []), f"{key}.fields"))
            )
            if len({f.name for f in fields}) != len(fields):
                self.fail(f"{key}.fields", "field names used once each")
            color = item.get("color", "#888888")
            if not (isinstance(color, str) and color.startswith("#") and len(color) in (4, 7)):
                self.fail(f"{key}.color", "a colour like '#d9534f'", color)
            result.append(EditType(
                name=name,
                label=self.string(item.get("label"), f"{key}.label", False, name),
                sides=sides,
                required_sides=required,
                fields=fields,
                description=self.string(item.get("description"), f"{key}.description", False),
                color=color,
                key=self.string(item.get("key"), f"{key}.key", False),
            ))
        return tuple(result)

    def sides(self, value, key, allow_empty=False) -> tuple[str, ...]:
        if not isinstance(value, list) or (not value and not allow_empty) or any(
            s not in SIDES for s in value
        ):
            self.fail(key, "a list of 'source' and/or 'target'", value)
        return tuple(dict.fromkeys(value))

    def field_spec(self, value, key, rating=False) -> FieldSpec:
        item = self.mapping(value, key)
        allowed = {"name", "label", "type", "required", "options", "help", "placeholder"}
        if rating:
            allowed.add("level")
        self.known_keys(item, key, allowed)
        ftype = item.get("type", "text")
        if ftype not in FIELD_TYPES:
            self.fail(f"{key}.type", f"one of {list(FIELD_TYPES)}", ftype)
        options = self.options(item.get("options"), f"{key}.options", ftype)
        level = None
        if rating:
            level = item.get("level", "document")
            if level not in RATING_LEVELS:
                self.fail(f"{key}.level", f"one of {list(RATING_LEVELS)}", level)
        required = item.get("required", False)
        if not isinstance(required, bool):
            self.fail(f"{key}.required", "true or false", required)
        name = self.identifier(item.get("name"), f"{key}.name")
        return FieldSpec(
            name=name,
            label=self.string(item.get("label"), f"{key}.label", False, name),
            type=ftype,
            required=required,
            options=options,
            help=self.string(item.get("help"), f"{key}.help", False),
            level=level,
            placeholder=self.string(item.get("placeholder"), f"{key}.placeholder", False),
        )

    def options(self, value, key, ftype) -> tuple[Option, ...]:
        if ftype == "text":
            if value is not None:
                self.fail(key, "no options for a text field", value)
            return ()
        if not isinstance(value, list) or len(value) < 2:
            self.fail(key, f"a list of at least two options for a {ftype} field", value)
        result = []
        for i, opt in enumerate(value):
            okey = f"{key}[{i}]"
            if not isinstance(opt, dict):
                opt = {"value": opt, "label": str(opt)}
            self.known_keys(opt, okey, {"value", "label", "agreement_value"})
            if "value" not in opt or isinstance(opt["value"], (dict, list)) or opt["value"] is None:
                self.fail(f"{okey}.value", "a string or number", opt.get("value"))
            if ftype == "ordinal" and not _is_number(opt["value"]):
                self.fail(f"{okey}.value", "a number (ordinal scales are numeric)", opt["value"])
            if "agreement_value" in opt and not _is_number(opt["agreement_value"]):
                self.fail(f"{okey}.agreement_value", "a number", opt["agreement_value"])
            result.append(Option(
                value=opt["value"],
                label=self.string(opt.get("label", str(opt["value"])), f"{okey}.label"),
                agreement_value=opt.get("agreement_value"),
            ))
        if len({o.value for o in result}) != len(result):
            self.fail(key, "distinct option values")
        return tuple(result)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
