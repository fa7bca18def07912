// Merging a unit into one gold edit: start from one annotator's edit, choose its edit type
// (the schema's types; the fields follow the type), set its spans by selecting text in the
// original or the simplification (as on the annotation page: code points, snapped to
// words), edit its fields, and see the gold edit as it will be released before saving it.

import { el, showMessage } from "./dom.js";
import { goldEdit, spanTexts, typeSpec } from "./adjudicate_edits.js";
import { compareSpans } from "./spans.js";
import { showMergeSpans } from "./adjudicate_text.js";

let active = null; // the open merge form: selections in the texts go to it

/** Called by the page for every new selection in a text; true when a form took it. */
export function offerSelection(span) {
  return active ? active.add(span) : false;
}

export function closeMerge() {
  active = null;
  showMergeSpans([]);
}

/** Open the merge form for `unit`, starting from edit `base`, inside `card`. */
export function openMerge(card, unit, base, { state, decide, noteOf }) {
  card.querySelector(".merge-form")?.remove();
  let spec = typeSpec(state, base.edit_type);
  const spans = base.spans.map((s) => ({ ...s }));
  let inputs = {};
  const fieldBox = el("div", { class: "merge-fields" });
  const sideHelp = el("p", { class: "meta merge-help" });
  const error = el("p", { class: "flash error", role: "alert", hidden: true });
  const spanList = el("ul", { class: "merge-spans", "aria-live": "polite" });
  const preview = el("div", { class: "merge-preview" });
  const form = el("section", { class: "merge-form", "aria-label": `merge, starting from ${base.annotator}'s edit` },
    el("h4", {}, `Merge, starting from ${base.annotator}'s edit`));

  const fields = () => {
    const out = {};
    for (const [name, input] of Object.entries(inputs)) {
      if (input.value === "") continue;
      out[name] = input.tagName === "SELECT" ? JSON.parse(input.value) : input.value;
    }
    return out;
  };
  const sorted = () => [...spans].sort(compareSpans);
  const refresh = () => {
    spanList.replaceChildren();
    for (const side of ["source", "target"]) {
      sorted().filter((s) => s.side === side).forEach((s) => {
        const [text] = spanTexts(state, [s], side);
        spanList.append(el("li", { class: "merge-span", "data-side": side, "data-start": s.start, "data-end": s.end },
          el("span", { class: "side" }, side === "source" ? "original" : "simplification"), " “", el("span", { class: "span-text" }, text), "” ",
          el("button", { type: "button", class: "link remove-span", "aria-label": `remove span “${text}”`, onclick: () => {
            spans.splice(spans.indexOf(s), 1); refresh();
          } }, "remove")));
      });
    }
    if (!spans.length) spanList.append(el("li", { class: "empty" }, "No span yet."));
    // One span list for the preview, the texts' highlight and what is saved.
    const current = sorted();
    preview.replaceChildren(goldEdit(state, { edit_type: spec.name, fields: fields(), spans: current }, "Will be released as"));
    showMergeSpans(current);
  };

  /** The fields of the chosen type, filled from `values` (the base edit's, then what was
   *  typed before a type change: a field both types share keeps its value). */
  const renderFields = (values) => {
    inputs = {};
    fieldBox.replaceChildren();
    for (const f of spec.fields) {
      let input;
      if (f.options && f.options.length) {
        input = el("select", { name: f.name }, el("option", { value: "" }, "–"));
        for (const o of f.options) {
          input.append(el("option", { value: JSON.stringify(o.value), selected: JSON.stringify(values[f.name]) === JSON.stringify(o.value) },
            String(o.label) === String(o.value) ? String(o.label) : `${o.value} · ${o.label}`));
        }
        input.addEventListener("change", refresh);
      } else {
        input = el("textarea", { name: f.name, rows: 2, value: values[f.name] || "" });
        input.addEventListener("input", refresh);
      }
      inputs[f.name] = input;
      fieldBox.append(el("label", {}, f.label + (f.required ? " (required)" : ""), input));
    }
    sideHelp.textContent = `Spans: select text in the ${spec.sides.map((s) => (s === "source" ? "original" : "simplification")).join(" or the ")} to add it, or`;
  };
  const typeChoice = el("select", { name: "edit_type", class: "merge-type" },
    ...state.schema.edit_types.map((t) => el("option", { value: t.name, selected: t.name === spec.name }, t.label)));
  typeChoice.addEventListener("change", () => {
    const kept = { ...base.fields, ...fields() };
    spec = typeSpec(state, typeChoice.value);
    // A side the new type has no spans on loses its spans (the preview shows it).
    for (let i = spans.length - 1; i >= 0; i--) if (!spec.sides.includes(spans[i].side)) spans.splice(i, 1);
    renderFields(kept);
    refresh();
  });
  form.append(el("label", {}, "Edit type", typeChoice), fieldBox);
  renderFields(base.fields);
  // Without a mouse: take over the spans of any edit of the unit.
  const others = unit.edit_ids.map((id) => state.edits.find((e) => e.id === id));
  const copy = el("p", { class: "merge-copy" }, ...others.map((e) => el("button", { type: "button", class: "link copy-spans", onclick: () => {
    for (const s of e.spans) if (spec.sides.includes(s.side)) active?.add({ side: s.side, start: s.start, end: s.end });
  } }, `add ${e.annotator}'s spans`)));
  form.append(sideHelp, copy, spanList, preview, error);
  form.append(el("div", { class: "merge-actions" },
    el("button", { type: "button", class: "save-merge", onclick: () => {
      decide({ action: "merge", edit_ids: unit.edit_ids, base_id: base.id, edit_type: spec.name, fields: fields(), spans: sorted(), note: noteOf(unit) });
    } }, "Save merged edit"),
    el("button", { type: "button", class: "link cancel-merge", onclick: () => { form.remove(); closeMerge(); } }, "Cancel")));
  card.append(form);
  active = {
    add(span) {
      if (!form.isConnected) { active = null; return false; }
      if (!spec.sides.includes(span.side)) {
        showMessage(error, `A ${spec.label.toLowerCase()} has no span in the ${span.side === "source" ? "original" : "simplification"}.`);
        return true;
      }
      showMessage(error, "");
      // A new span replaces the ones it overlaps on the same side (re-selecting widens).
      for (let i = spans.length - 1; i >= 0; i--) {
        const s = spans[i];
        if (s.side === span.side && s.start < span.end && span.start < s.end) spans.splice(i, 1);
      }
      spans.push(span);
      refresh();
      return true;
    },
  };
  refresh();
  (fieldBox.querySelector("select, textarea") || typeChoice).focus();
}
