"""Where a project's annotations sit in Label Studio tasks and results: one lookup for the
importer and the exporters, whatever config the project uses.

A project made from a Label Studio labeling config (``schema.labelstudio``) keeps that
config: the texts come from its own data keys, regions from its own ``<Labels>``, answers
from its own control names (see :mod:`annotator.schemas.labelstudio_config`). Any other
project uses the config generated from its schema
(:func:`~annotator.interop.labelstudio_config.labeling_config`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.core.vocabulary import SIDES
from annotator.interop.labelstudio_config import (
    DATA_KEYS,
    Control,
    edit_field_controls,
    labeling_config,
    parse,
    rating_controls,
)
from annotator.schemas import Schema
from annotator.schemas.labelstudio_config import identifier, main_texts

# Keys a Label Studio JSON-MIN row carries about the annotation rather than the task data.
ANNOTATION_KEYS = ("id", "annotator", "annotation_id", "created_at", "updated_at",
                   "lead_time")


@dataclass
class Layout:
    xml: str
    own_config: bool  # the study's own config (True) or one generated from our schema
    text_keys: dict[str, str]  # side -> task data key
    objects: dict[str, str]  # side -> Text object name
    # Labels control -> side; (Labels control, label value) -> edit type, and back.
    region_side: dict[str, str] = field(default_factory=dict)
    edit_type_of: dict[tuple[str, str], str] = field(default_factory=dict)
    label_of: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    # per-region control -> {edit type: field}; (edit type, field, side) -> control.
    region_fields: dict[str, dict[str, str]] = field(default_factory=dict)
    region_control: dict[tuple[str, str, str], Control] = field(default_factory=dict)
    # per-task control -> (level, field); (level, field) -> control.
    task_rating: dict[str, tuple[str, str]] = field(default_factory=dict)
    rating_control: dict[tuple[str, str], Control] = field(default_factory=dict)
    controls: dict[str, Control] = field(default_factory=dict)  # every answer control
    labels: dict[str, list[str]] = field(default_factory=dict)  # Labels control -> values

    def legacy_text_keys(self) -> list[dict[str, str]]:
        """Data keys to try for the texts, in order: ours, then the earlier ``source`` /
        ``target`` of files written before the key clash was found."""
        keys = [self.text_keys]
        if not self.own_config:
            keys.append({"source": "source", "target": "target"})
        return keys


# Layouts by the schema's text: parsing a config is slow and a schema never changes in place.
_CACHE: dict[tuple[str, str], Layout] = {}


def layout(schema: Schema) -> Layout:
    key = (schema.name, schema.source_text)
    if key not in _CACHE:
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = _layout(schema)
    return _CACHE[key]


def _layout(schema: Schema) -> Layout:
    ls = schema.labelstudio
    if ls:
        xml, own = ls["config"], True
        interface = parse(xml)
        texts = main_texts(interface, schema.name)
        result = Layout(xml, True, {"source": ls["source"], "target": ls["target"]},
                        {side: o.name for side, o in texts.items()})
    else:
        xml, own = labeling_config(schema), False
        interface = parse(xml)
        result = Layout(xml, False, dict(DATA_KEYS), {side: side for side in SIDES})
    side_of_object = {name: side for side, name in result.objects.items()}
    for c in interface.controls:
        if c.tag != "Labels":
            continue
        side = side_of_object[c.to_name[0]]
        result.region_side[c.name] = side
        result.labels[c.name] = list(c.labels)
        for value in c.labels:
            edit_type = identifier(value) if own else value
            result.edit_type_of[(c.name, value)] = edit_type
            result.label_of.setdefault((edit_type, side), (c.name, value))
    if own:
        for e in schema.edit_types:
            for f in e.fields:
                for side in e.sides:
                    control = Control(f.name, _tag(interface, f.name), f, True)
                    result.region_control[(e.name, f.name, side)] = control
                    result.region_fields.setdefault(f.name, {})[e.name] = f.name
                    result.controls[f.name] = control
        for r in schema.ratings:
            control = Control(r.name, _tag(interface, r.name), r, False, r.level)
            result.task_rating[r.name] = (r.level, r.name)
            result.rating_control[(r.level, r.name)] = control
            result.controls[r.name] = control
    else:
        for (edit_type, name, side), control in edit_field_controls(schema).items():
            result.region_control[(edit_type, name, side)] = control
            result.region_fields.setdefault(control.name, {})[edit_type] = name
            result.controls[control.name] = control
        for (level, name), control in rating_controls(schema).items():
            result.task_rating[control.name] = (level, name)
            result.rating_control[(level, name)] = control
            result.controls[control.name] = control
    return result


def _tag(interface, name: str) -> str:
    return next(c.tag for c in interface.controls if c.name == name)
