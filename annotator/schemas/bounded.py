"""Reading a schema file within bounds, whatever its kind (issue 41).

A schema file comes from a lead's upload as often as from disk, and the readers behind it
(PyYAML's composer, the schema walkers, lxml inside label-studio-sdk) grow with what the
file says, not with its size: a 370-byte YAML alias bomb (``&a [lol, ...]``,
``&b [*a, *a, ...]``, nine levels) names 9^9 values, ``title: [[[...]]]`` 10,000 deep
exhausts Python's recursion, an XML entity bomb ("billion laughs") expands the same way.
So, before anything is expanded:

- the text is at most ``max_schema_bytes`` long (:func:`check_size`);
- YAML is composed by :class:`BoundedYamlLoader`, which counts every value as it is
  composed, an alias counting the values of what it names, and stops at
  ``max_schema_depth`` levels or ``max_schema_values`` values: an alias bomb is refused
  while its nodes are still shared, never expanded;
- XML with a DOCTYPE (where entities are declared) is refused at the declaration, and its
  elements are counted and their depth measured by a streaming parser before
  label-studio-sdk builds its tree (:func:`check_xml`).

Every limit comes from :mod:`annotator.core.limits`, so the command line and the web
agree; a refusal names the limit and its environment variable.
"""

from __future__ import annotations

import re
from typing import Any
from xml.parsers import expat

import yaml
from yaml.events import AliasEvent

from annotator.core.limits import Limits, current_limits


class SchemaOutOfBounds(ValueError):
    """A schema file the bounded reader refuses (beyond a limit, or a YAML value that
    contains itself): ``where`` (``line N`` or ``file``), what is allowed, and what the file
    has. The schema readers turn it into a SchemaError."""

    def __init__(self, where: str, expected: str, found: str):
        self.where, self.expected, self.found = where, expected, found
        super().__init__(f"{where}: expected {expected}, found {found}")


def check_byte_size(size: int, limits: Limits | None = None) -> None:
    """Refuse a file of ``size`` bytes beyond the limit (a file is refused unread)."""
    limit = (limits or current_limits()).max_schema_bytes
    if size > limit:
        raise SchemaOutOfBounds("file", f"at most {limit:,} bytes "
                                "(ANNOTATOR_MAX_SCHEMA_BYTES)", f"{size:,} bytes")


def check_size(text: str, limits: Limits | None = None) -> None:
    limits = limits or current_limits()
    # A text of more characters than the limit has more bytes too: not encoded to count.
    check_byte_size(len(text) if len(text) > limits.max_schema_bytes
                    else len(text.encode("utf-8")), limits)


def depth_refusal(where: str, limit: int) -> SchemaOutOfBounds:
    return SchemaOutOfBounds(where, f"at most {limit} levels of nesting "
                             "(ANNOTATOR_MAX_SCHEMA_DEPTH)", "deeper nesting")


def values_refusal(where: str, limit: int, what: str) -> SchemaOutOfBounds:
    return SchemaOutOfBounds(where, f"at most {limit:,} {what} (ANNOTATOR_MAX_SCHEMA_VALUES)",
                             f"more {what}")


class BoundedYamlLoader(yaml.SafeLoader):
    """Safe YAML with YAML 1.2 booleans (``yes``, ``no``, ``on``, ``off`` stay strings: an
    option named ``yes`` must not become ``True``), composed within the schema limits.

    Aliases are allowed (the built-in schemas share option lists with ``&name`` /
    ``*name``), but each counts as the values it names, nested where it is used: an alias
    bomb is refused at the line where what it names passes the limit, while its nodes are
    still shared (nothing expanded), and a 10,000-deep list at its 33rd level, before
    PyYAML's recursive composer could exhaust the stack."""

    def __init__(self, stream, limits: Limits | None = None):
        super().__init__(stream)
        self.limits = limits or current_limits()
        self.depth = 0  # levels open where the composer is
        self.values = 0  # values composed so far, aliases expanded
        self.deepest = 0  # deepest level reached so far, aliases expanded
        # node -> (values, levels) it holds with aliases expanded: what an alias adds
        self.extent: dict[int, tuple[int, int]] = {}

    def where(self) -> str:
        mark = self.peek_event().start_mark
        return f"line {mark.line + 1}"

    def count(self, values: int, reached: int) -> None:
        self.values += values
        self.deepest = max(self.deepest, reached)
        if reached > self.limits.max_schema_depth:
            raise depth_refusal(self.where(), self.limits.max_schema_depth)
        if self.values > self.limits.max_schema_values:
            raise values_refusal(self.where(), self.limits.max_schema_values,
                                 "values (aliases expanded)")

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            target = self.anchors.get(self.peek_event().anchor)
            if target is not None:  # an unknown alias: PyYAML's own error, with its line
                if id(target) not in self.extent:  # named while it is being composed
                    raise SchemaOutOfBounds(self.where(),
                                            "no alias inside the value it names",
                                            "a value that contains itself")
                values, levels = self.extent[id(target)]
                self.count(values, self.depth + levels)
            return super().compose_node(parent, index)
        self.depth += 1
        before_values, before_deepest = self.values, self.deepest
        self.deepest = self.depth
        self.count(1, self.depth)
        node = super().compose_node(parent, index)
        self.extent[id(node)] = (self.values - before_values, self.deepest - self.depth + 1)
        self.deepest = max(before_deepest, self.deepest)
        self.depth -= 1
        return node


BoundedYamlLoader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
BoundedYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))


def load_yaml(text: str, limits: Limits | None = None) -> Any:
    """The YAML ``text`` as Python values, within the limits (raises SchemaOutOfBounds, or
    yaml.YAMLError for text that is no YAML)."""
    limits = limits or current_limits()
    check_size(text, limits)
    loader = BoundedYamlLoader(text, limits)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def check_xml(text: str, limits: Limits | None = None) -> None:
    """Refuse an XML text with a DOCTYPE (where entities are declared: internal ones expand,
    "billion laughs"; external ones read files or URLs; a labeling config needs neither),
    more elements or deeper nesting than the limits. Streamed by expat, which builds
    nothing; the refusal comes at the declaration or element, before anything is expanded.
    Malformed XML passes: the config's own parser reports it with its line."""
    limits = limits or current_limits()
    check_size(text, limits)
    parser = expat.ParserCreate()
    state = {"depth": 0, "elements": 0}

    def where() -> str:
        return f"line {parser.CurrentLineNumber}"

    def doctype(name, *_rest):
        raise SchemaOutOfBounds(where(), "a labeling config without a DOCTYPE (its "
                                "entities could expand without bound)",
                                f"<!DOCTYPE {name[:40]}")

    def start(_name, _attributes):
        state["depth"] += 1
        state["elements"] += 1
        if state["depth"] > limits.max_schema_depth:
            raise depth_refusal(where(), limits.max_schema_depth)
        if state["elements"] > limits.max_schema_values:
            raise values_refusal(where(), limits.max_schema_values, "elements")

    def end(_name):
        state["depth"] -= 1

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except expat.ExpatError:
        return
