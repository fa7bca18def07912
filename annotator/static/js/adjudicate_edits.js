// How an edit reads in the adjudication view: fields in the schema's order (question
// before answer), choices by their labels ("2 · major", not "2"), spans as the quoted text
// they cover. Used for the annotators' edits, the compare-all table, the merge preview and
// the gold edits a decision produced (shown as they will be released).

import { el } from "./dom.js";
import { sliceText } from "./marks.js";

const SIDE_LABEL = { source: "original", target: "simplification" };

export function typeSpec(state, name) {
  return state.schema.edit_types.find((t) => t.name === name) || { name, label: name, sides: ["source", "target"], fields: [] };
}

/** A field value as a reader should see it: the option label beside ordinal values. */
export function valueText(field, value) {
  if (value === null || value === undefined || value === "") return "";
  const choices = field?.options || [];
  const label = (v) => {
    const c = choices.find((o) => JSON.stringify(o.value) === JSON.stringify(v));
    if (!c) return String(v);
    return String(c.label) === String(v) ? String(v) : `${c.value} · ${c.label}`;
  };
  return Array.isArray(value) ? value.map(label).join(", ") : label(value);
}

/** Fields of an edit, schema order first, unknown keys after (never silently dropped). */
export function orderedFields(spec, fields) {
  const known = spec.fields.filter((f) => fields[f.name] !== undefined && fields[f.name] !== null && fields[f.name] !== "");
  const extra = Object.keys(fields).filter((k) => !spec.fields.some((f) => f.name === k))
    .map((k) => ({ name: k, label: k, options: [] }));
  return [...known, ...extra].map((f) => ({ field: f, value: fields[f.name] }));
}

export function spanTexts(state, spans, side) {
  return spans.filter((s) => s.side === side).map((s) => sliceText(state.document[side], s.start, s.end));
}

/** A <dl> of an edit's fields and quoted spans. */
export function editDetails(state, edit) {
  const spec = typeSpec(state, edit.edit_type);
  const list = el("dl", { class: "fields" });
  for (const { field, value } of orderedFields(spec, edit.fields || {})) {
    list.append(el("dt", {}, field.label), el("dd", { class: `field-${field.name}` }, valueText(field, value)));
  }
  for (const side of ["source", "target"]) {
    const texts = spanTexts(state, edit.spans || [], side);
    if (texts.length) list.append(el("dt", {}, SIDE_LABEL[side]), el("dd", { class: `quote quote-${side}` }, texts.map((t) => `“${t}”`).join(" … ")));
  }
  return list;
}

/** Per-annotator edit numbers within the document ("ana's edit 2"), not database ids. */
export function editNumbers(state) {
  const seen = {}, numbers = {};
  for (const e of [...state.edits].sort((a, b) => a.id - b.id)) {
    seen[e.annotator] = (seen[e.annotator] || 0) + 1;
    numbers[e.id] = seen[e.annotator];
  }
  return numbers;
}

const possessive = (names) => {
  const list = names.map((n) => `${n}'s`);
  return list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}` : list[0] || "";
};

/** "accept ben's edit", "merge of ana's and ben's edits (from ben's)", "reject". */
export function decisionSummary(state, decision) {
  const by = (ids) => [...new Set(ids.map((id) => state.edits.find((e) => e.id === id)?.annotator).filter(Boolean))];
  const outcomes = decision.after || [];
  if (decision.kind === "accept" && outcomes.length) return `accept ${possessive(by(outcomes[0].source_edit_ids))} edit`;
  if (decision.kind === "merge" && outcomes.length) {
    const base = outcomes[0].based_on ? ` (from ${possessive(by([outcomes[0].based_on]))})` : "";
    return `merge of ${possessive(by(decision.source_edit_ids))} edits${base}`;
  }
  if (decision.kind === "keep_both") return `keep ${possessive(by(outcomes.flatMap((o) => o.source_edit_ids)))} edits`;
  return decision.kind.replace("_", " ");
}

/** A gold edit as it will be released: type, fields and span texts. */
export function goldEdit(state, outcome, heading = "Gold edit") {
  const spec = typeSpec(state, outcome.edit_type);
  return el("div", { class: "gold-edit", role: "group", "aria-label": heading },
    el("h4", {}, `${heading}: ${spec.label}`), editDetails(state, outcome));
}
