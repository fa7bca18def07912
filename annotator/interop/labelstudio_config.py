"""A Label Studio labeling config (XML, labelstud.io/tags) generated from a task schema.

Layout: the original (``<Text name="source" value="$original">``) with a ``<Labels
name="source_labels">`` holding every edit type that may span it, the simplification
(``<Text name="target" value="$simplification">``) with ``<Labels name="target_labels">``;
then one per-region control for each edit field and side, named ``<side>_<field>``
(``<TextArea>`` for text such as question and answer, ``<Rating>`` for ordinal scales 1..n,
``<Choices>`` otherwise; multichoice allows several) and one control per item-level rating
field, named ``<level>_<field>``. Choice values are the schema's option values as strings,
with the option label as hint.

The XML is parsed back with ``label_studio_sdk.label_interface.LabelInterface`` (the
SDK's config parser) both to check what we generate and, on import, to look up each
result's control: its tag type, its object and the labels or choices it offers.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from label_studio_sdk.label_interface import LabelInterface

from annotator.core.vocabulary import SIDES
from annotator.schemas import FieldSpec, Schema

SIDE_TITLES = {"source": "Original", "target": "Simplification"}
# Task data keys of the two texts. Not "source": inside Label Studio's page that key is
# taken, and <Text value="$source"> shows the whole task instead of the text.
DATA_KEYS = {"source": "original", "target": "simplification"}


@dataclass(frozen=True)
class Control:
    name: str
    tag: str  # Labels | TextArea | Choices | Rating
    spec: FieldSpec | None  # the schema field behind it (None for Labels)
    per_region: bool
    level: str | None = None  # rating level for item-level controls


def uses_rating_tag(spec: FieldSpec) -> bool:
    values = spec.option_values()
    return spec.type == "ordinal" and values == list(range(1, len(values) + 1))


def _tag_for(spec: FieldSpec) -> str:
    if spec.type == "text":
        return "TextArea"
    return "Rating" if uses_rating_tag(spec) else "Choices"


def edit_field_controls(schema: Schema) -> dict[tuple[str, str, str], Control]:
    """(edit type, field, side) -> per-region control on that side's text.

    Label Studio shows a per-region control only for regions of the object it names, and
    a control naming both texts (``toName="source,target"``) is shown for neither, so each
    side gets its own control: ``<side>_<field>``, or ``<side>_<type>_<field>`` when edit
    types define the same field differently."""
    by_name: dict[str, list] = {}
    for e in schema.edit_types:
        for f in e.fields:
            by_name.setdefault(f.name, []).append((e, f))
    controls = {}
    for name, uses in by_name.items():
        shared = all(f == uses[0][1] for _, f in uses)
        for e, f in uses:
            for side in e.sides:
                base = name if shared else f"{e.name}_{name}"
                controls[(e.name, f.name, side)] = Control(f"{side}_{base}", _tag_for(f), f,
                                                           True)
    return controls


def rating_controls(schema: Schema) -> dict[tuple[str, str], Control]:
    """(level, field) -> control named ``<level>_<field>``."""
    return {(r.level, r.name): Control(f"{r.level}_{r.name}", _tag_for(r), r, False, r.level)
            for r in schema.ratings}


def labeling_config(schema: Schema) -> str:
    view = ET.Element("View")
    ET.SubElement(view, "Header", value=schema.title)
    for side in SIDES:
        ET.SubElement(view, "Header", value=SIDE_TITLES[side], size="5")
        ET.SubElement(view, "Text", name=side, value=f"${DATA_KEYS[side]}",
                      granularity="symbol")
        types = [e for e in schema.edit_types if side in e.sides]
        if types:
            labels = ET.SubElement(view, "Labels", name=f"{side}_labels", toName=side)
            for e in types:
                ET.SubElement(labels, "Label", value=e.name, background=e.color,
                              hint=e.label)
    controls: dict[str, tuple[Control, str]] = {}
    labels_of: dict[str, set[str]] = {}
    for (edit_type, _, side), control in edit_field_controls(schema).items():
        controls.setdefault(control.name, (control, side))
        labels_of.setdefault(control.name, set()).add(edit_type)
    for control, side in controls.values():
        only = labels_of[control.name]
        _control_element(view, control, side, next(iter(only)) if len(only) == 1 else None)
    for control in rating_controls(schema).values():
        _control_element(view, control, "source")
    xml = ET.tostring(view, encoding="unicode")
    parse(xml)  # the SDK's parser must accept what we hand to Label Studio
    return xml


def _control_element(view: ET.Element, control: Control, to_name: str,
                     label: str | None = None) -> None:
    """``label``: the one edit type the control belongs to, when it is not shared."""
    spec = control.spec
    attrs: dict[str, Any] = {"name": control.name, "toName": to_name}
    if control.per_region:
        attrs["perRegion"] = "true"
        # Shown while a region of this side is selected, so one side's heading does not
        # stand empty beside the other's inputs; a control of one label only while a region
        # with that label is, so a region shows one Question/Answer pair, its own.
        visible = {"visibleWhen": "region-selected", "whenTagName": f"{to_name}_labels"}
        if label is not None:
            visible["whenLabelValue"] = label
        view = ET.SubElement(view, "View", **visible)
    ET.SubElement(view, "Header", value=spec.label, size="6")
    if spec.required:
        attrs["required"] = "true"
    if control.tag == "TextArea":
        ET.SubElement(view, "TextArea", **attrs, editable="true", maxSubmissions="1")
    elif control.tag == "Rating":
        ET.SubElement(view, "Rating", **attrs, maxRating=str(len(spec.options)))
    else:
        if spec.type == "multichoice":
            attrs["choice"] = "multiple"
        choices = ET.SubElement(view, "Choices", **attrs, showInline="true")
        for option in spec.options:
            ET.SubElement(choices, "Choice", value=str(option.value), hint=option.label)


def parse(xml: str) -> LabelInterface:
    interface = LabelInterface(xml)
    interface.validate()  # raises on a config Label Studio would refuse
    return interface


def value_to_result(control: Control, value: Any) -> tuple[str, dict]:
    """Our field value -> (result type, result value) of a Label Studio result."""
    if control.tag == "TextArea":
        return "textarea", {"text": [value]}
    if control.tag == "Rating":
        return "rating", {"rating": value}
    if control.tag == "Number":
        return "number", {"number": value}
    values = value if isinstance(value, list) else [value]
    return "choices", {"choices": [str(v) for v in values]}
