// Pre-highlights: per-kind toggles, navigation (j/k), the card of the focused suggestion,
// hover tooltips, and accept (-> a pre-filled edit) / dismiss, both recorded on the server.

import { api } from "./api.js";
import { el, fill } from "./dom.js";
import { optionLabel, snippet } from "./edit_form.js";
import { kindLabel, suggestionCounts, suggestionKinds, suggestionLabel, suggestionScores, visibleSuggestions } from "./highlights.js";
import { suggestionSpans } from "./spans.js";
import { snapshot } from "./undo.js";

/** Kinds shown only on request: the alignment engine reports them, but they are rarely
 *  errors (rewording inside a sentence, a word or two trailing). */
export const LOW_PRIORITY_KINDS = ["insertion", "trailing_noise"];

/** The edit a suggestion turns into: {type, spans, fields}, or null if the schema has none.
 *  The schema names the edit type of each kind (`suggestion_types`); other kinds take the
 *  first edit type that spans the same sides. Choice fields take the suggestion's category
 *  (set by the alignment engine) or its kind when that is one of the options. */
export function editFromSuggestion(s, schema) {
  const sides = [s.source_spans?.length ? "source" : null, s.target_spans?.length ? "target" : null].filter(Boolean);
  const types = schema.edit_types;
  const type = types.find((t) => t.name === (schema.suggestion_types || {})[s.kind])
    || types.find((t) => sides.every((side) => t.sides.includes(side)))
    || types.find((t) => sides.some((side) => t.sides.includes(side)));
  if (!type) return null;
  const spans = [];
  for (const side of type.sides) {
    spans.push(...suggestionSpans(s, side));
  }
  const fields = {};
  for (const f of type.fields) {
    if (f.type !== "choice" && f.type !== "multichoice") continue;
    const values = f.options.map((o) => o.value);
    const pick = [s.category, s.kind].find((v) => v && values.includes(v));
    if (pick) fields[f.name] = f.type === "multichoice" ? [pick] : pick;
  }
  return { type: type.name, spans, fields };
}

export function makeSuggestions(ctx) {
  const { state } = ctx;
  const find = (id) => state.suggestions.find((s) => s.id === id);

  const focus = (id, { scroll = true } = {}) => {
    state.focusSugg = id;
    ctx.repaint();
    renderCard();
    if (scroll && id != null) ctx.scrollToSuggestion(id);
  };

  const step = (delta) => {
    ctx.tips?.hide();  // the card shows the same; a tooltip would cover the form
    const list = visibleSuggestions(state);
    if (!list.length) { focus(null); ctx.notify("No suggestions left to review."); return; }
    const at = list.findIndex((s) => s.id === state.focusSugg);
    const next = at < 0 ? (delta > 0 ? 0 : list.length - 1) : (at + delta + list.length) % list.length;
    focus(list[next].id);
  };

  const accept = async (id = state.focusSugg) => {
    const s = find(id);
    if (!s || s.action || ctx.locked()) return;
    const made = editFromSuggestion(s, state.schema);
    if (!made) { ctx.notify("This project's schema has no edit type for this suggestion."); return; }
    ctx.tips?.hide();
    const edit = ctx.edits.create(made.type, { spans: made.spans, fields: made.fields, suggestion_id: s.id, now: true, track: false });
    s.action = "accepted";
    ctx.history?.record({ label: `${kindLabel(s.kind).toLowerCase()} suggestion accepted`, changes: [
      { type: "edit", key: edit.key, before: null, after: snapshot(edit) },
      { type: "suggestion", id: s.id, before: null, after: "accepted", editKey: edit.key }] });
    state.focusSugg = null;
    ctx.openEdit(edit.key, { focusField: "question" });
    ctx.render();
    await ctx.saver.start(edit.key);
    if (edit.id != null) {
      await api.suggestion(ctx.id, s.id, { action: "accepted", edit_id: edit.id }).catch((e) => ctx.notify(e.message));
    }
  };

  const dismiss = async (id = state.focusSugg) => {
    const s = find(id);
    if (!s || s.action || ctx.locked()) return;
    const list = visibleSuggestions(state);
    const after = list[list.findIndex((x) => x.id === id) + 1];
    ctx.tips?.hide();
    s.action = "dismissed";
    ctx.history?.record({ label: `${kindLabel(s.kind).toLowerCase()} suggestion dismissed`,
      changes: [{ type: "suggestion", id: s.id, before: null, after: "dismissed" }] });
    state.focusSugg = after ? after.id : null;
    ctx.render();
    renderCard();
    try {
      await api.suggestion(ctx.id, s.id, { action: "dismissed" });
    } catch (e) {
      s.action = null;
      ctx.render();
      ctx.notify(`Could not dismiss: ${e.message}`);
    }
  };

  const renderToggles = () => {
    const box = ctx.els.kinds;
    const kinds = [...new Set(state.suggestions.flatMap(suggestionKinds))];
    if (!kinds.length) { box.replaceChildren(); return; }
    const counts = suggestionCounts(state);
    box.replaceChildren(el("span", { class: "kinds-label" }, "Suggestions"), ...kinds.map((kind) => {
      const open = counts.perKind.get(kind) || 0;
      const input = el("input", { type: "checkbox", checked: !state.hiddenKinds.has(kind), dataset: { kind } });
      input.addEventListener("change", () => {
        if (input.checked) state.hiddenKinds.delete(kind); else state.hiddenKinds.add(kind);
        if (state.focusSugg && !visibleSuggestions(state).some((s) => s.id === state.focusSugg)) state.focusSugg = null;
        ctx.render();
      });
      const title = `Show or hide ${kindLabel(kind).toLowerCase()} suggestions: ${open} not acted on carry this kind`
        + " (a suggestion with two kinds counts under both)";
      return el("label", { class: `kind-toggle sg-${kind}`, title },
        input, el("span", { class: "dot", "aria-hidden": "true" }, "ab"), `${kindLabel(kind)} `, el("span", { class: "count" }, String(open)));
    }));
  };

  const renderCard = () => {
    const box = ctx.els.card;
    const list = visibleSuggestions(state);
    const s = find(state.focusSugg);
    if (!s || s.action || ctx.closed()) {
      box.replaceChildren(...[summary()].filter(Boolean));
      box.classList.remove("open");
      return;
    }
    const quote = (side, spans) => spans.map(([a, b]) => el("blockquote", { class: `q-${side}` },
      el("span", { class: "q-side" }, side === "source" ? "Original" : "Simplification"), `“${snippet(ctx, { side, start: a, end: b }, 140)}”`));
    box.classList.add("open");
    fill(box,
      el("div", { class: "card-head" },
        el("span", { class: `kind-badge sg-${s.kind}` }, suggestionLabel(s)),
        el("span", { class: "muted" }, `${list.findIndex((x) => x.id === s.id) + 1} of ${list.length}`)),
      el("p", { class: "explanation" }, s.explanation || "(no explanation)"),
      el("p", { class: "muted small" }, `${suggestionScores(s)} · ${s.method}${s.category ? " · " + categoryLabel(s) : ""}`),
      ...quote("source", s.source_spans || []), ...quote("target", s.target_spans || []),
      ctx.locked() ? null : el("div", { class: "card-actions" },
        el("button", { type: "button", class: "primary small", onclick: () => accept(s.id) }, "Accept ", el("kbd", {}, "a")),
        el("button", { type: "button", class: "ghost small", onclick: () => dismiss(s.id) }, "Dismiss ", el("kbd", {}, "x")),
        el("span", { class: "spacer" }),
        el("button", { type: "button", class: "ghost small", "aria-label": "Previous suggestion", onclick: () => step(-1) }, "‹ ", el("kbd", {}, "k")),
        el("button", { type: "button", class: "ghost small", "aria-label": "Next suggestion", onclick: () => step(1) }, el("kbd", {}, "j"), " ›")),
    );
  };

  /** The card's line when no suggestion is open, from suggestionCounts: on a document
   *  marked done or skipped, the suggestions left are not "to review" (issue 43). */
  const summary = () => {
    const counts = suggestionCounts(state);
    const plural = (n) => `${n} suggestion${n === 1 ? "" : "s"}`;
    const status = state.assignment.status;
    if (ctx.closed()) {
      if (!counts.open) return state.suggestions.length ? el("p", { class: "hint", dataset: { open: "0" } }, "All suggestions reviewed.") : null;
      return el("p", { class: "hint", dataset: { open: String(counts.open) } },
        `${status === "done" ? "Marked done" : "Skipped"} with ${plural(counts.open)} not acted on; reopen the document to review them.`);
    }
    if (counts.visible) {
      const both = counts.twoKinds ? ` (${counts.twoKinds} of them carr${counts.twoKinds === 1 ? "ies" : "y"} two kinds and count under both toggles)` : "";
      return el("p", { class: "hint", dataset: { open: String(counts.visible) } }, `${plural(counts.visible)} to review${both}. Press `, el("kbd", {}, "j"), " to go to the next one.");
    }
    if (counts.open) return el("p", { class: "hint", dataset: { open: "0" } }, `${plural(counts.open)} not acted on, of kinds switched off above.`);
    return state.suggestions.length ? el("p", { class: "hint", dataset: { open: "0" } }, "All suggestions reviewed.") : null;
  };

  /** The schema's label for a suggested category ("Leaked model instruction"). */
  const categoryLabel = (s) => {
    const made = editFromSuggestion(s, state.schema);
    const type = made && state.typesByName[made.type];
    const label = optionLabel(type, "category", s.category);
    return label === s.category ? kindLabel(s.category) : label;
  };

  return { find, focus, step, accept, dismiss, renderToggles, renderCard };
}

/** Tooltip for highlighted text: explanation and score of suggestions, summary of edits. */
export function watchTooltips(ctx, containers) {
  const tip = ctx.els.tooltip;
  // After j / accept / dismiss the texts are re-rendered under a still mouse, and the browser
  // reports a fresh mouseover: stay quiet until the mouse really moves.
  let quietAt = null;
  let mouse = { x: -1, y: -1 };
  const moved = (e) => {
    mouse = { x: e.clientX, y: e.clientY };
    if (quietAt && Math.hypot(e.clientX - quietAt.x, e.clientY - quietAt.y) > 3) quietAt = null;
  };
  document.addEventListener("mousemove", moved, { passive: true, capture: true });
  const show = (seg, x, y) => {
    const lines = [];
    for (const id of (seg.dataset.suggs || "").split(" ").filter(Boolean)) {
      const s = ctx.suggestions.find(Number(id));
      if (s) lines.push(el("div", { class: "tip-sugg" }, el("strong", {}, suggestionLabel(s)), ` · ${suggestionScores(s)}`, el("br"), s.explanation || ""));
    }
    for (const key of (seg.dataset.edits || "").split(" ").filter(Boolean)) {
      const e = ctx.edits.find(key);
      if (e) lines.push(el("div", { class: "tip-edit" }, el("strong", {}, ctx.state.typesByName[e.edit_type]?.label || e.edit_type), e.fields.question ? ` · ${e.fields.question}` : ""));
    }
    if (!lines.length) { tip.hidden = true; return; }
    tip.replaceChildren(...lines);
    tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = `${Math.min(x + 12, window.innerWidth - w - 8)}px`;
    tip.style.top = `${y + 18 + h > window.innerHeight ? y - h - 10 : y + 18}px`;
  };
  for (const c of containers) {
    c.addEventListener("mouseover", (e) => {
      moved(e);
      const seg = e.target.closest(".seg");
      if (seg && !quietAt && (seg.dataset.suggs || seg.dataset.edits)) show(seg, e.clientX, e.clientY);
      else tip.hidden = true;
      for (const key of (seg?.dataset.edits || "").split(" ").filter(Boolean)) ctx.emphasize(key, true);
    });
    c.addEventListener("mouseout", (e) => {
      const seg = e.target.closest(".seg");
      for (const key of (seg?.dataset.edits || "").split(" ").filter(Boolean)) ctx.emphasize(key, false);
      if (!e.relatedTarget || !c.contains(e.relatedTarget)) tip.hidden = true;
    });
  }
  return { hide: () => { tip.hidden = true; quietAt = { ...mouse }; } };
}
