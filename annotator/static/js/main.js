// The annotation page: loads the assignment as JSON, renders both texts from it (textContent
// only), and wires the modules together. `window.annotator` exposes the state for tests.

import { api } from "./api.js";
import { Saver, STATE_LABELS } from "./autosave.js";
import { el, disableBecause } from "./dom.js";
import { editTitle, renderEditForm, renderEditList, renderSpans } from "./edit_form.js";
import { localEdit, makeEdits } from "./edits.js";
import { emphasize, paint, paintSwatch, sideLayers } from "./highlights.js";
import { makeGuidelines } from "./guidelines.js";
import { toggleHelp, watchKeyboard } from "./keyboard.js";
import { watchCaret } from "./caret.js";
import { codePoints } from "./offsets.js";
import { makeRatings } from "./ratings.js";
import { headingRanges, layoutGutter, renderText } from "./render.js";
import { alignmentMaps, reveal, syncScroll } from "./scroll.js";
import { makePopover } from "./popover.js";
import { watchSelection } from "./selection.js";
import { makeStatus } from "./status.js";
import { editFromSuggestion, LOW_PRIORITY_KINDS, makeSuggestions, watchTooltips } from "./suggestions.js";
import { startTimer } from "./timer.js";
import { makeHistory } from "./undo.js";

const root = document.getElementById("annotate");
const $ = (sel) => root.querySelector(sel);
const SIDES = ["source", "target"];

const ctx = {
  id: Number(root.dataset.assignment),
  els: {
    text: { source: $(".text[data-side=source]"), target: $(".text[data-side=target]") },
    scroller: { source: $(".scroller[data-side=source]"), target: $(".scroller[data-side=target]") },
    gutter: { source: $(".gutter[data-side=source]"), target: $(".gutter[data-side=target]") },
    kinds: $("#kind-toggles"), card: $("#suggestion-card"), form: $("#edit-form"), list: $("#edit-list"),
    docRatings: $("#document-ratings"), missing: $("#missing"), banner: $("#banner"), notice: $("#notice"),
    help: $("#help"), tooltip: $("#tooltip"), popover: $("#popover"), guidelines: $("#tab-guidelines"),
    saveState: $("#save-state"), timer: $("#timer"), status: $("#status"), done: $("#btn-done"),
    skip: $("#btn-skip"), next: $("#btn-next"),
    newButtons: $("#new-edit"), sync: $("#sync-scroll"), undo: $("#btn-undo"), redo: $("#btn-redo"),
  },
  maps: {}, sentenceEls: {}, segments: {}, formKey: null, allowLeave: false,
};

function buildState(data) {
  const doc = data.document;
  const state = {
    assignment: data.assignment, readOnly: data.read_only, doc, schema: data.schema,
    typesByName: Object.fromEntries(data.schema.edit_types.map((t) => [t.name, t])),
    cps: { source: codePoints(doc.source), target: codePoints(doc.target) },
    sentences: { source: doc.source_sentences || [], target: doc.target_sentences || [] },
    headings: { source: headingRanges(doc.source), target: headingRanges(doc.target) },
    edits: data.edits.map(localEdit),
    ratings: new Map(data.ratings.map((r) => [r.key, { ...r }])),
    // Low-priority kinds (mid-text insertions, short tails) start hidden; one click shows them.
    // Suggestions the schema has no edit type for (PLABA rates sentences, it has no edits)
    // could never be accepted: they are not shown at all.
    suggestions: data.suggestions.filter((s) => editFromSuggestion(s, data.schema)),
    next: data.next_assignment ?? null,
    limits: data.limits || {}, hiddenKinds: new Set(LOW_PRIORITY_KINDS), activeKey: null, focusSugg: null,
  };
  return state;
}

Object.assign(ctx, {
  locked: () => ctx.state.readOnly || ctx.closed() || ctx.saver.conflicted,
  // Done or skipped: the annotator's work on it is set aside until they reopen it.
  closed: () => ["done", "skipped"].includes(ctx.state.assignment.status),
  syncEnabled: () => ctx.els.sync.checked,
  notify(message) {
    const n = ctx.els.notice;
    n.textContent = message;
    n.hidden = false;
    clearTimeout(ctx.noticeTimer);
    ctx.noticeTimer = setTimeout(() => { n.hidden = true; }, 6000);
  },
  setSaveState(s) {
    const node = ctx.els.saveState;
    node.dataset.state = s;
    node.textContent = STATE_LABELS[s] || s;
  },
  setAssignment(a) {
    if (!a) return;
    ctx.state.assignment = { ...ctx.state.assignment, ...a, seconds_spent: ctx.state.assignment.seconds_spent };
    const status = ctx.els.status;
    status.className = `status ${a.status}`;
    status.textContent = a.status.replace("_", " ");
  },
  afterSave(edit, isNew) {
    if (isNew) ctx.repaint(); // its number (and the names of its highlights) is known now
    if (edit.key === ctx.state.activeKey) {
      const head = ctx.els.form.querySelector(".form-head h3");
      if (head) head.textContent = editTitle(ctx, edit);
      const problems = ctx.els.form.querySelector(".problems");
      if (problems) problems.textContent = "";
    }
    ctx.refreshList();
  },
  refreshList: () => { renderEditList(ctx, ctx.els.list); ctx.status?.refresh(); },
  onHistory() {
    // Off, and why, on hover (issue 43).
    const off = ctx.saver.conflicted ? "the document changed elsewhere; reload it first"
      : ctx.closed() ? `the document is ${ctx.state.assignment.status}; reopen it to change it` : "";
    disableBecause(ctx.els.undo, off || (ctx.history.canUndo ? "" : "nothing to undo yet"), "Undo (Ctrl+Z)");
    disableBecause(ctx.els.redo, off || (ctx.history.canRedo ? "" : "nothing to redo"), "Redo (Ctrl+Shift+Z)");
    ctx.els.undo.hidden = ctx.els.redo.hidden = ctx.state.readOnly;
  },
  emphasize: (key, on) => emphasize(Object.values(ctx.maps), key, on),
  render() {
    const { state } = ctx;
    for (const side of SIDES) {
      const layers = sideLayers(state, side);
      const out = renderText(ctx.els.text[side], {
        cps: state.cps[side], sentences: state.sentences[side], boundaries: layers.boundaries,
        headings: state.headings[side], after: side === "target" ? ctx.ratings.after : null,
      });
      ctx.segments[side] = out.segments;
      ctx.sentenceEls[side] = out.sentenceEls;
      ctx.maps[side] = paint(out.segments, layers, state);
      layoutGutter(ctx.els.gutter[side], ctx.els.text[side], out.sentenceEls);
    }
    const active = ctx.edits.find(state.activeKey);
    if (!active) renderEditForm(ctx, ctx.els.form, null);
    else if (ctx.formKey !== active.key) renderEditForm(ctx, ctx.els.form, active);
    else renderSpans(ctx, ctx.els.form.querySelector(".spans"), active);
    ctx.formKey = active ? active.key : null;
    ctx.refreshList();
    ctx.suggestions.renderToggles();
    ctx.suggestions.renderCard();
  },
  repaint() {
    for (const side of SIDES) ctx.maps[side] = paint(ctx.segments[side], sideLayers(ctx.state, side), ctx.state);
  },
  relayout() {
    for (const side of SIDES) layoutGutter(ctx.els.gutter[side], ctx.els.text[side], ctx.sentenceEls[side]);
  },
  openEdit(key, { focusField = null } = {}) {
    const previous = ctx.edits.find(ctx.state.activeKey);
    if (previous && previous.key !== key) dropIfEmpty(previous);
    ctx.state.activeKey = key;
    ctx.formKey = null;
    ctx.render();
    ctx.showTab("annotate");
    const edit = ctx.edits.find(key);
    const first = edit && edit.spans[0];
    if (first) reveal(ctx.els.scroller[first.side], ctx.maps[first.side].byEdit.get(key)?.[0]);
    if (focusField) ctx.focusField(focusField);
    else ctx.els.form.querySelector(".form-head h3")?.setAttribute("tabindex", "-1");
  },
  closeEdit() {
    const edit = ctx.edits.find(ctx.state.activeKey);
    if (edit) { ctx.saver.start(edit.key); dropIfEmpty(edit); }
    ctx.state.activeKey = null;
    ctx.render();
  },
  newEdit(typeName) {
    if (ctx.locked()) return;
    const edit = ctx.edits.create(typeName);
    ctx.openEdit(edit.key);
    const type = ctx.state.typesByName[typeName];
    const sides = type.sides.map((s) => (s === "source" ? "original" : "simplification")).join(" and ");
    ctx.notify(type.sides.length ? `New ${type.label.toLowerCase()}: select text in the ${sides} to add spans.`
      : `New ${type.label.toLowerCase()} about the whole pair: fill in its fields.`);
    const form = ctx.els.form;
    (form.querySelector(".span-row select") || form.querySelector("textarea"))?.focus();
  },
  stepEdit(delta) {
    const list = ctx.state.edits;
    if (!list.length) return;
    const at = list.findIndex((e) => e.key === ctx.state.activeKey);
    const next = at < 0 ? (delta > 0 ? 0 : list.length - 1) : (at + delta + list.length) % list.length;
    ctx.openEdit(list[next].key);
    ctx.els.list.querySelector(`[data-key="${list[next].key}"]`)?.focus();
  },
  /** Bring the open edit's form into view in the sidebar and focus its first field: a new
   *  edit made from a selection opened below the fold with nothing focused (issue 35). */
  revealForm() {
    const form = ctx.els.form;
    if (form.hidden) return;
    form.scrollIntoView({ block: "start", behavior: "instant" });
    const first = form.querySelector(".fields .field:not([hidden]) :is(textarea, input)") ||
      form.querySelector(".span-row select");
    first?.focus({ preventScroll: true });
  },
  focusField(name) {
    const form = ctx.els.form;
    let field = form.querySelector(`[data-field="${name}"]`);
    if (!field) {
      const texts = form.querySelectorAll("textarea");
      field = name === "answer" ? texts[1] : texts[0];
    }
    if (field) { field.focus(); if (field.select && field.value) field.setSelectionRange(field.value.length, field.value.length); }
  },
  addSpan(edit, side, start, end) {
    const type = ctx.state.typesByName[edit.edit_type];
    if (!type.sides.includes(side)) return false;
    ctx.edits.addSpan(edit, side, start, end);
    ctx.render();
    return true;
  },
  async deleteEdit(edit) {
    try {
      await ctx.edits.remove(edit);
      if (ctx.state.activeKey === edit.key) ctx.state.activeKey = null;
      ctx.render();
      ctx.notify("Edit deleted.");
    } catch (err) {
      if (err.status === 409) ctx.conflict(err); else ctx.notify(`Could not delete: ${err.message}`);
    }
  },
  scrollToSuggestion(id) {
    for (const side of SIDES) {
      const segs = ctx.maps[side].bySugg.get(id);
      if (segs && segs.length) reveal(ctx.els.scroller[side], segs[0]);
    }
  },
  conflict(err) {
    ctx.saver.conflicted = true;
    ctx.setSaveState("conflict");
    ctx.status.conflictBanner(err);
    ctx.refreshLock();
  },
  refreshLock() {
    const locked = ctx.locked();
    root.classList.toggle("locked", locked);
    const done = ctx.closed();
    ctx.els.done.textContent = done ? "Reopen" : "Mark done";
    ctx.els.done.hidden = ctx.state.readOnly || ctx.saver.conflicted;
    ctx.els.skip.hidden = done || ctx.els.done.hidden;
    // Once this one is done or skipped, the way on is the next document to do (issue 35).
    const next = ctx.state.next;
    ctx.els.next.hidden = !done || next == null || ctx.state.readOnly;
    ctx.els.next.href = next == null ? "#" : `/assignments/${next}`;
    ctx.els.newButtons.hidden = locked || !ctx.state.schema.edit_types.length;
    ctx.onHistory();
    // Time counts while the document is open to work on: again after a Reopen.
    if (done || ctx.state.readOnly) ctx.timer?.stop(); else ctx.timer?.resume();
    ctx.ratings.reset();
    ctx.ratings.renderDocumentLevel(ctx.els.docRatings);
    ctx.formKey = null;
    ctx.render();
  },
  saveNow() { ctx.saver.flushAll().then(() => ctx.notify(STATE_LABELS[ctx.saver.state])); },
  markDone() {
    if (ctx.state.readOnly || ctx.saver.conflicted) return;
    if (ctx.closed()) return;
    return ctx.status.markDone();
  },
  escape() {
    if (!ctx.els.help.hidden) { toggleHelp(ctx, false); return; }
    if (ctx.popover.open) { ctx.popover.hide(); return; }
    const active = document.activeElement;
    if (active && active !== document.body && active !== document.documentElement) { active.blur(); return; }
    if (ctx.state.activeKey) ctx.closeEdit();
    else if (ctx.state.focusSugg) ctx.suggestions.focus(null, { scroll: false });
    ctx.tips?.hide();
  },
  showTab(name) {
    for (const tab of root.querySelectorAll("[role=tab]")) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      root.querySelector(`#tab-${tab.dataset.tab}`).hidden = !on;
    }
    if (name === "guidelines") ctx.guidelines.load();
  },
});

function dropIfEmpty(edit) {
  if (edit.id == null && !edit.spans.length && !Object.keys(edit.fields).length) {
    ctx.saver.cancel(edit.key);
    ctx.state.edits = ctx.state.edits.filter((e) => e !== edit);
  }
}

async function init() {
  let data;
  try {
    data = await api.load(ctx.id);
  } catch (err) {
    ctx.els.banner.hidden = false;
    ctx.els.banner.textContent = `The annotation data could not be loaded (${err.message}). Reload the page to try again.`;
    return;
  }
  ctx.state = buildState(data);
  ctx.saver = new Saver({
    onState: (s) => ctx.setSaveState(s),
    onConflict: (err) => ctx.conflict(err),
    onInvalid: (key, err) => {
      const problems = (err.data.problems || []).map((p) => `${p.field}: ${p.message}`).join("; ");
      const box = ctx.els.form.querySelector(".problems");
      if (box) box.textContent = `Not saved: ${problems || err.message}`;
    },
  });
  ctx.history = makeHistory(ctx);
  ctx.edits = makeEdits(ctx);
  ctx.suggestions = makeSuggestions(ctx);
  ctx.ratings = makeRatings(ctx);
  ctx.status = makeStatus(ctx);
  ctx.guidelines = makeGuidelines(ctx);
  ctx.alignment = alignmentMaps(ctx.state.doc, ctx.state.sentences.source.length, ctx.state.sentences.target.length);
  if (ctx.state.readOnly) {
    const b = ctx.els.banner;
    b.hidden = false;
    b.className = "banner info";
    b.textContent = `Read-only: you are viewing ${ctx.state.assignment.user}'s annotations.`;
  }
  renderNewButtons();
  const legend = ctx.ratings.legend();
  if (legend) $("#rating-legend").textContent = `Rating scale: ${legend}`;
  ctx.setAssignment(ctx.state.assignment);
  ctx.setSaveState("saved");
  ctx.refreshLock();
  ctx.popover = makePopover(ctx);
  watchSelection(ctx.els.text, (side) => ctx.state.cps[side], ctx.popover);
  watchCaret(ctx, ctx.els.scroller, ctx.els.text, (sel) => ctx.popover.onSelect(sel));
  ctx.tips = watchTooltips(ctx, Object.values(ctx.els.text));
  syncScroll(ctx, ctx.els.scroller);
  watchKeyboard(ctx);
  wireChrome();
  if (!ctx.state.readOnly) {
    ctx.timer = startTimer({
      initial: ctx.state.assignment.seconds_spent || 0,
      report: (seconds, options) => api.time(ctx.id, seconds, options),
      display: (text, active) => { ctx.els.timer.textContent = text; ctx.els.timer.classList.toggle("idle", !active); },
    });
    if (ctx.closed()) ctx.timer.stop(); // counts from a Reopen on
  } else {
    ctx.els.timer.textContent = `${Math.round((ctx.state.assignment.seconds_spent || 0) / 60)} min`;
  }
  new ResizeObserver(() => ctx.relayout()).observe(ctx.els.text.source.parentElement);
  root.dataset.readyMs = String(Math.round(performance.now()));
  root.dataset.ready = "1";
  window.annotator = ctx;
}

function renderNewButtons() {
  const box = ctx.els.newButtons;
  // A schema without edit types (PLABA: ratings only) gets no empty "New edit" heading.
  box.classList.toggle("none", !ctx.state.schema.edit_types.length);
  if (!ctx.state.schema.edit_types.length) { box.replaceChildren(); return; }
  box.replaceChildren(el("span", { class: "kinds-label" }, "New edit"), ...ctx.state.schema.edit_types.map((t) => {
    const b = el("button", { type: "button", class: "ghost small new-type", dataset: { type: t.name }, title: t.description || t.label,
      onclick: () => ctx.newEdit(t.name) }, el("span", { class: "swatch" }), t.label, t.key ? el("kbd", {}, t.key) : null);
    paintSwatch(b.querySelector(".swatch"), ctx.state.schema, t.name);
    return b;
  }));
}

function wireChrome() {
  ctx.els.done.addEventListener("click", () => (ctx.closed() ? ctx.status.reopen() : ctx.markDone()));
  ctx.els.skip.addEventListener("click", () => ctx.status.skip());
  $("#btn-help").addEventListener("click", () => toggleHelp(ctx, true));
  ctx.els.undo.addEventListener("click", () => ctx.history.undo());
  ctx.els.redo.addEventListener("click", () => ctx.history.redo());
  $("#help .close").addEventListener("click", () => toggleHelp(ctx, false));
  for (const tab of root.querySelectorAll("[role=tab]")) tab.addEventListener("click", () => ctx.showTab(tab.dataset.tab));
  window.addEventListener("beforeunload", (e) => {
    if (ctx.allowLeave || !ctx.saver.dirty) return;
    ctx.saver.flushAll({ keepalive: true });
    e.preventDefault();
    e.returnValue = "";
  });
  window.addEventListener("pagehide", () => { if (ctx.saver.dirty) ctx.saver.flushAll({ keepalive: true }); });
}

init();
