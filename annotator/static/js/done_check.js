// Before "Mark done": every problem at once (issue 43: it reported one at a time, the
// missing answer only after "Mark done anyway" failed). What blocks comes from the server
// (GET /api/assignments/<id>/missing: required answers, spans and ratings, the mode's done
// rule); what only warns from the page (suggestions not reviewed, the guidance warnings on
// questions and answers). Each entry is a link to the place to fix it.

import { el } from "./dom.js";
import { snippet } from "./edit_form.js";
import { guidance } from "./guidance.js";
import { suggestionLabel, visibleSuggestions } from "./highlights.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The page's warnings: {suggestions: [{id, message}], guidance: [{key, field, message}]}.
 *  Guidance the annotator dismissed under a field is not repeated here. */
export function doneWarnings(ctx) {
  const { state } = ctx;
  const suggestions = visibleSuggestions(state).map((s) => {
    const span = [...(s.source_spans || []).map(([a, b]) => ({ side: "source", start: a, end: b })),
      ...(s.target_spans || []).map(([a, b]) => ({ side: "target", start: a, end: b }))][0];
    return { id: s.id, message: `${suggestionLabel(s)}${span ? `: “${snippet(ctx, span, 48)}”` : ""}` };
  });
  const saved = state.edits.filter((e) => e.id != null).map((e) => e.id).sort((x, y) => x - y);
  const dismissed = state.dismissedWarnings || new Set();
  const notes = [];
  for (const edit of [...state.edits].sort((x, y) => saved.indexOf(x.id) - saved.indexOf(y.id))) {
    const type = state.typesByName[edit.edit_type];
    if (!type || edit.id == null) continue;
    const found = guidance(edit, type, state.cps.target);
    for (const [field, messages] of Object.entries(found)) {
      const label = (type.fields || []).find((f) => f.name === field)?.label || field;
      for (const w of messages) {
        if (dismissed.has(`${edit.key}|${field}|${w}`)) continue;
        notes.push({ key: edit.key, field, message: `${type.label} #${saved.indexOf(edit.id) + 1}: ${label}: ${w}` });
      }
    }
  }
  return { suggestions, guidance: notes };
}

/** Open the place a problem is about and put the focus there. */
export function goToProblem(ctx, p) {
  if (p.suggestion != null) {
    ctx.suggestions.focus(p.suggestion);
    ctx.els.card.querySelector("button.primary")?.focus();
    return;
  }
  if (p.key && p.field) { // a guidance warning: the edit's field
    ctx.openEdit(p.key, { focusField: p.field });
    return;
  }
  const m = p.missing;
  if (m.edit_id) {
    const edit = ctx.state.edits.find((e) => e.id === m.edit_id);
    if (!edit) return;
    const side = m.field.startsWith("spans.") ? m.field.slice(6) : null;
    ctx.openEdit(edit.key, { focusField: side ? null : m.field });
    if (side) ctx.els.form.querySelector(`.span-row[data-side=${side}] select`)?.focus();
    return;
  }
  if (m.key) { // a missing rating: the server names its item key
    const group = document.querySelector(`[data-rating="${CSS.escape(m.key)}"]`);
    if (group) {
      group.scrollIntoView({ block: "center" });
      (group.querySelector("input, select, textarea") || group).focus();
    }
  }
}

/** The list of problems as DOM children of the #missing box: a heading that counts each
 *  group, then one list per group. ``actions``: {hide(), anyway() | null}. */
export function problemList(ctx, missing, warnings, actions) {
  const { suggestions, guidance: notes } = warnings;
  const head = [];
  if (missing.length) head.push(`Not done yet — ${plural(missing.length, "thing")} missing`);
  if (suggestions.length) head.push(`${plural(suggestions.length, "suggestion")} not reviewed yet`);
  if (notes.length) head.push(`${plural(notes.length, "warning")} on your answers`);
  const item = (p) => el("li", { class: p.level }, el("button", { type: "button", class: "link",
    onclick: () => goToProblem(ctx, p) }, p.message));
  const group = (title, entries) => (entries.length
    ? [el("p", { class: "small group" }, title), el("ul", {}, entries.map(item))] : []);
  return [
    el("div", { class: "missing-head" }, el("strong", {}, head.join(" · ")),
      el("button", { type: "button", class: "ghost small", onclick: actions.hide }, "Hide")),
    ...group("Blocks “done”:", missing.map((m) => ({ level: "blocks", message: m.message, missing: m }))),
    ...group("Not reviewed: accept (a) or dismiss (x) each, so the pre-highlighters' precision can be measured:",
      suggestions.map((s) => ({ level: "warns", message: s.message, suggestion: s.id }))),
    ...group("Warnings (check, fix or dismiss them under the field):",
      notes.map((n) => ({ level: "warns", message: n.message, key: n.key, field: n.field }))),
    actions.anyway && !missing.length
      ? el("div", { class: "card-actions" }, el("button", { type: "button", class: "ghost small", onclick: actions.anyway },
        "Mark done anyway"))
      : null,
  ].filter(Boolean);
}
