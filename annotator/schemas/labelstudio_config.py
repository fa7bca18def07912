"""A Label Studio labeling config (XML, labelstud.io/tags) read as a task schema.

The config is parsed with label-studio-sdk's ``LabelInterface`` (the parser Label Studio's
own SDK uses), then mapped as follows:

- **the two texts**: the ``<Text>`` objects named (or fed by the data key) ``source`` and
  ``target``; otherwise the ``<Text>`` objects that ``<Labels>`` act on, in config order;
  otherwise the first two ``<Text>`` objects (the recall study compares a reference answer
  with a predicted one). Their task data keys are kept in the schema.
- **edit types**: every ``<Label>`` of a ``<Labels>`` on one of the two texts; a label used on
  both texts is one edit type spanning both sides. The label value is the edit type's label;
  its name is the value made an identifier (``concept (missing)`` -> ``concept_missing``).
  Label Studio never requires a region on a given side, so no side is required.
- **fields of edit types**: controls with ``perRegion="true"`` on a text, for every edit type
  that may span that text.
- **ratings**: every other ``<Choices>`` (``choice="multiple"``: several), ``<Rating>``
  (1..maxRating), ``<Number>`` (min..max) and ``<TextArea>``, one per control, named as the
  control, at level ``document``: one Label Studio task is one item, which is one document
  of the project. This covers controls on Text objects that are not the two texts (the
  question of a QA item).
- **option values**: a ``<Choice>``'s ``alias`` when it has one (that is what Label Studio
  stores and exports), else its value; the shown value becomes the option label.
- ``required="true"`` makes the field required.
- the ``<Header>`` texts (the criteria and questions beside the controls) become the
  project's guideline (:func:`config_guideline`).

The config itself is kept (``labelstudio.config``), so the study's exports are read, and
written back, under its own control names, and ``labelstudio push`` can hand the study's own
config to a server.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

import yaml
from label_studio_sdk.label_interface import LabelInterface

from annotator.schemas import Schema, SchemaError, parse_schema

RATING_TAGS = ("Choices", "Rating", "Number", "TextArea")
# Number controls become ordinal scales; a wider range is no scale to agree on.
MAX_NUMBER_OPTIONS = 101


def identifier(value: str) -> str:
    """A label or control name as a schema name (letters, digits, '_' and '-')."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", value).strip("_") or "label"


def parse_labelstudio_config(text: str, path: str = "<labeling config>") -> Schema:
    """The schema a Label Studio labeling config describes; ``source_text`` is its YAML."""
    data = schema_data(text, path)
    return parse_schema(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100),
                        path)


def read_interface(text: str, path: str) -> LabelInterface:
    try:
        interface = LabelInterface(text)
    except Exception as exc:  # the SDK raises bare parser errors of several kinds
        raise SchemaError(path, "(top level)", "a Label Studio labeling config (<View>...)",
                          str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                          ) from None
    return interface


def main_texts(interface: LabelInterface, path: str) -> dict[str, Any]:
    """side -> the ``<Text>`` object holding that side of the pair."""
    texts = [o for o in interface.objects if o.tag == "Text"]
    by_name = {}
    for o in texts:
        for key in (o.name, data_key(o)):
            by_name.setdefault(key, o)
    if "source" in by_name and "target" in by_name:
        return {"source": by_name["source"], "target": by_name["target"]}
    labelled = []
    for c in interface.controls:
        if c.tag == "Labels":
            for name in c.to_name:
                o = next((t for t in texts if t.name == name), None)
                if o is not None and o not in labelled:
                    labelled.append(o)
    chosen = labelled if len(labelled) == 2 else texts
    if len(chosen) < 2:
        raise SchemaError(path, "Text", "two <Text> objects (the original and its "
                          "simplification)", f"{len(texts)} <Text> object(s)")
    return {"source": chosen[0], "target": chosen[1]}


def data_key(obj) -> str:
    value = obj.value or ""
    return value[1:] if value.startswith("$") else obj.name


def schema_data(text: str, path: str) -> dict[str, Any]:
    interface = read_interface(text, path)
    texts = main_texts(interface, path)
    side_of = {o.name: side for side, o in texts.items()}
    edit_types: dict[str, dict[str, Any]] = {}  # edit type name -> YAML entry
    for c in interface.controls:
        if c.tag != "Labels":
            continue
        sides = [side_of.get(n) for n in c.to_name]
        if None in sides:
            raise SchemaError(path, f"Labels[@name={c.name}].toName", "one of the two texts "
                              f"({texts['source'].name}, {texts['target'].name})",
                              ",".join(c.to_name))
        for value in c.labels:
            name = identifier(value)
            entry = edit_types.setdefault(name, {"name": name, "label": value, "sides": [],
                                                 "required_sides": []})
            if entry["label"] != value:
                raise SchemaError(path, f"Labels[@name={c.name}]", "label values that stay "
                                  "distinct as names", f"{value!r} and {entry['label']!r}")
            color = c.labels_attrs[value].attr.get("background", "")
            if re.fullmatch(r"#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{3}", color or ""):
                entry.setdefault("color", color)
            for side in sides:
                if side not in entry["sides"]:
                    entry["sides"].append(side)
    ratings = []
    for c in interface.controls:
        if c.tag == "Labels":
            continue
        if c.tag not in RATING_TAGS:
            raise SchemaError(path, f"{c.tag}[@name={c.name}]", "Labels, "
                              + ", ".join(RATING_TAGS), c.tag)
        spec = field_data(c, path)
        if c.attr.get("perRegion") == "true":
            sides = {side_of.get(n) for n in c.to_name}
            users = [e for e in edit_types.values() if sides & set(e["sides"])]
            if None in sides or not users:
                raise SchemaError(path, f"{c.tag}[@name={c.name}].toName", "a text with "
                                  "<Labels> (a per-region control)", ",".join(c.to_name))
            for e in users:
                e.setdefault("fields", []).append(spec)
        else:
            ratings.append({**spec, "level": "document"})
    name = identifier(PurePath(path).stem) if path.endswith(".xml") else "labelstudio"
    data: dict[str, Any] = {
        "name": name,
        "title": f"{name} (Label Studio labeling config)",
        "description": f"Read from the Label Studio labeling config {PurePath(path).name}.",
        "unit": "document",
    }
    guideline = config_guideline(interface)
    if guideline:
        data["guideline"] = guideline
    if edit_types:
        data["edit_types"] = list(edit_types.values())
    if ratings:
        data["ratings"] = ratings
    data["labelstudio"] = {"config": text, "source": data_key(texts["source"]),
                           "target": data_key(texts["target"])}
    return data


def config_guideline(interface: LabelInterface) -> str:
    """The config's ``<Header>`` texts, in order, as Markdown headings (``size`` is the
    level, Label Studio's default 4): the criteria and questions a study writes beside its
    controls (InfoLossQA's "1. Givenness", "How is the question phrased?"). Left out: a
    header that titles the object after it (``Original`` above ``<Text name="source">``,
    shown by this tool's own page) and one that shows task data (``$doc_id``). Empty when
    nothing is left."""
    objects = {o.tag for o in interface.objects}
    lines = []
    # The SDK keeps the parsed XML only as ``_tree`` (no public accessor); the config was
    # parsed once, by the SDK, in read_interface.
    for header in interface._tree.iter("Header"):
        text = " ".join((header.get("value") or header.text or "").split())
        following = header.getnext()
        while following is not None and not isinstance(following.tag, str):
            following = following.getnext()  # comments between
        if not text or re.search(r"\$\w", text) or (following is not None
                                                     and following.tag in objects):
            continue
        level = int(header.get("size")) if (header.get("size") or "").isdigit() else 4
        lines.append(f"{'#' * min(max(level, 1), 6)} {text}")
    return "\n\n".join(lines)


def field_data(c, path: str) -> dict[str, Any]:
    """A control as one field entry of our schema YAML."""
    spec: dict[str, Any] = {"name": identifier(c.name), "label": c.name}
    if spec["name"] != c.name:
        raise SchemaError(path, f"{c.tag}[@name={c.name}]", "a control name of letters, "
                          "digits, '_' or '-'", c.name)
    if c.attr.get("required") == "true":
        spec["required"] = True
    if c.tag == "TextArea":
        spec["type"] = "text"
        if c.attr.get("placeholder"):
            spec["placeholder"] = c.attr["placeholder"]
    elif c.tag == "Choices":
        spec["type"] = "multichoice" if c.attr.get("choice") == "multiple" else "choice"
        spec["options"] = [{"value": str(key), "label": str(choice.attr.get("value", key))}
                           for key, choice in c.labels_attrs.items()]
    elif c.tag == "Rating":
        top = _int(c.attr.get("maxRating", "5"), c, "maxRating", path)
        spec["type"] = "ordinal"
        spec["options"] = [{"value": n, "label": str(n)} for n in range(1, top + 1)]
    else:  # Number
        low = _int(c.attr.get("min"), c, "min", path)
        high = _int(c.attr.get("max"), c, "max", path)
        if not 0 < high - low < MAX_NUMBER_OPTIONS:
            raise SchemaError(path, f"Number[@name={c.name}]", "min < max, at most "
                              f"{MAX_NUMBER_OPTIONS} values apart", f"{low}..{high}")
        spec["type"] = "ordinal"
        spec["options"] = [{"value": n, "label": str(n)} for n in range(low, high + 1)]
    return spec


def _int(value, c, attr: str, path: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise SchemaError(path, f"{c.tag}[@name={c.name}].{attr}", "a whole number",
                          value) from None
