// The adjudication view: the texts stay beside the units (sticky), the candidate units
// (or the compare-all table), ratings and history; every decision is one POST
// (X-CSRFToken header via api.js) answered with the new state. Keyboard: j / k move
// between units, c switches to the compare-all table and back.

import { request } from "./api.js";
import { el, disableBecause, showMessage, typing } from "./dom.js";
import { decisionSummary, editDetails, editNumbers, goldEdit, typeSpec } from "./adjudicate_edits.js";
import { closeMerge, offerSelection, openMerge } from "./adjudicate_merge.js";
import { renderCompare } from "./adjudicate_compare.js";
import { renderHistory } from "./adjudicate_history.js";
import { drawTexts, highlightEdits, selectedSpan } from "./adjudicate_text.js";
import { extentBlock } from "./adjudicate_extent.js";
import { renderRatings } from "./adjudicate_ratings.js";

const root = document.getElementById("adjudicate");
let state = null;
let compare = false;

const showError = (message) => showMessage(document.getElementById("adj-error"), message);

const said = (message) => showMessage(document.getElementById("adj-said"), message);

export async function decide(body) {
  showError("");
  said("");
  try {
    const next = await request("POST", root.dataset.decideUrl, body);
    render(next);
    if (next.automatic) said(automaticSummary(next.automatic));
    // Adjudicated: the way on is the next open document of the queue (issue 35).
    if (body.action === "complete") {
      if (next.next_in_queue == null) said("Nothing else is open in the queue.");
      else document.getElementById("adj-next").focus();
    }
  } catch (err) {
    showError(err.message);
  }
}

/** What "Apply automatic rules" did, in words: a click that changed nothing said nothing. */
function automaticSummary(a) {
  const parts = [];
  const n = (count, what) => `${count} ${what}${count === 1 ? "" : "s"}`;
  if (a.units_accepted) parts.push(`${n(a.units_accepted, "unit")} accepted${a.units_merged ? ` (${a.units_merged} merged)` : ""}`);
  if (a.units_rejected) parts.push(`${n(a.units_rejected, "unit")} rejected`);
  if (a.ratings_resolved) parts.push(`${n(a.ratings_resolved, "rating")} resolved by majority`);
  if (!parts.length) return "Automatic rules: nothing to apply. What is still open needs your decision.";
  return `Automatic rules applied: ${parts.join(", ")}.${a.completed ? " The document is adjudicated." : ""}`;
}

const colours = () => Object.fromEntries(state.annotators.map((a) => [a.name, a.colour]));
const editById = (id) => state.edits.find((e) => e.id === id);
const open = () => state.state.status === "open" && state.state.ready;
const noteOf = (unit) => document.querySelector(`.unit[data-unit="${unit.key}"] .note`)?.value || "";

function chip(name) {
  const c = el("span", { class: "chip" }, name);
  c.style.background = colours()[name];
  return c;
}

// A composite edit (SALSA's structure, split) is decided with its constituents: they are
// listed inside its row, with no buttons of their own (the server refuses them alone too).
const constituentsOf = (unit, edit) => unit.edit_ids.map(editById).filter((e) => e.parent_id === edit.id);
const topLevel = (unit) => unit.edit_ids.map(editById).filter((e) => !unit.edit_ids.includes(e.parent_id));

function constituentList(parts) {
  return el("div", { class: "constituents" },
    el("p", { class: "meta" }, `${parts.length} constituent edit(s), decided with it:`),
    ...parts.map((p) => el("div", { class: "constituent", "data-edit": String(p.id) },
      el("strong", {}, typeSpec(state, p.edit_type).label), editDetails(state, p))));
}

function editRow(unit, edit, numbers) {
  const spec = typeSpec(state, edit.edit_type);
  const parts = constituentsOf(unit, edit);
  const row = el("div", { class: "edit", "data-edit": String(edit.id), "data-annotator": edit.annotator },
    chip(edit.annotator), el("strong", {}, ` ${spec.label} `), el("span", { class: "meta" }, `${edit.annotator}'s edit ${numbers[edit.id]}`),
    editDetails(state, edit), parts.length ? constituentList(parts) : null);
  if (open() && !unit.decision) {
    row.append(el("div", { class: "edit-actions" },
      el("button", { type: "button", class: "accept", onclick: () => decide({ action: "accept", edit_ids: unit.edit_ids, edit_id: edit.id, note: noteOf(unit) }) }, `Accept ${edit.annotator}'s${parts.length ? ` (with ${parts.length} constituents)` : ""}`),
      el("button", { type: "button", class: "merge", onclick: (e) => openMerge(e.target.closest(".unit"), unit, edit, { state, decide, noteOf }) }, "Merge from this"),
      moveSelect(unit, edit)));
  }
  return row;
}

function moveSelect(unit, edit) {
  const select = el("select", { class: "move", "aria-label": `move ${edit.annotator}'s edit to another unit` }, el("option", { value: "" }, "move to…"));
  for (const other of state.units) if (other.key !== unit.key && !other.decision) select.append(el("option", { value: other.key }, `unit ${other.number}`));
  if (unit.edit_ids.length > 1) select.append(el("option", { value: "new" }, "a unit of its own"));
  select.addEventListener("change", () => {
    if (!select.value) return;
    const groups = state.units.map((u) => u.edit_ids.filter((id) => id !== edit.id));
    if (select.value === "new") groups.push([edit.id]);
    else groups[state.units.findIndex((u) => u.key === select.value)].push(edit.id);
    decide({ action: "regroup", groups: groups.filter((g) => g.length), note: "moved by hand" });
  });
  return select;
}

function unitCard(unit, numbers) {
  const score = [unit.iou !== null ? `token IoU ${unit.iou.toFixed(2)}` : "", unit.similarity !== null && unit.similarity !== undefined ? `question similarity ${unit.similarity.toFixed(2)}` : ""].filter(Boolean).join(" · ");
  const card = el("article", { class: `unit ${unit.decision ? "decided" : "undecided"}`, "data-unit": unit.key, tabindex: 0, "aria-label": `unit ${unit.number}` },
    el("h3", {}, `Unit ${unit.number} `, el("span", { class: "meta" }, score)));
  const focus = (on) => highlightEdits(unit.edit_ids, on, { scroll: on });
  card.addEventListener("mouseenter", () => highlightEdits(unit.edit_ids, true));
  card.addEventListener("mouseleave", () => highlightEdits(unit.edit_ids, false));
  card.addEventListener("focusin", () => focus(true));
  const extents = extentBlock(state, unit, chip);
  if (extents) card.append(extents);
  for (const edit of topLevel(unit)) card.append(editRow(unit, edit, numbers));
  const disputed = Object.entries(unit.fields).filter(([, v]) => !["unanimous", "missing"].includes(v.status));
  if (disputed.length) {
    const spec = typeSpec(state, editById(unit.edit_ids[0]).edit_type);
    const label = (name) => spec.fields.find((f) => f.name === name)?.label || name;
    card.append(el("p", { class: "meta differs" }, "differs: " + disputed.map(([k, v]) => `${label(k)} (${v.status.replace("_", " ")}${v.value !== null && v.value !== undefined ? `, majority ${v.value}` : ""})`).join(", ")));
  }
  if (unit.decision) {
    const d = unit.decision;
    card.append(el("p", { class: "decision" }, `Decided: ${decisionSummary(state, d)} by ${d.user || "automatic rules"}${d.note ? ` — ${d.note}` : ""} `,
      open() ? el("button", { type: "button", class: "undo", onclick: () => decide({ action: "undo", decision_id: d.id }) }, "Undo") : null));
    for (const outcome of d.after || []) card.append(goldEdit(state, outcome, "Released as"));
  } else if (open()) {
    card.append(el("div", { class: "unit-actions" },
      el("input", { class: "note", placeholder: "note (optional)", size: 30, "aria-label": `note on unit ${unit.number}` }),
      topLevel(unit).length > 1 ? el("button", { type: "button", class: "keep-both", onclick: () => decide({ action: "keep_both", edit_ids: unit.edit_ids, note: noteOf(unit) }) }, "Keep both") : null,
      el("button", { type: "button", class: "reject danger", onclick: () => decide({ action: "reject", edit_ids: unit.edit_ids, note: noteOf(unit) }) }, "Reject")));
  }
  return card;
}

function render(next) {
  const focused = document.activeElement?.closest?.("[data-unit]")?.dataset.unit;
  state = next;
  closeMerge();
  const c = colours();
  drawTexts(state, c);
  const legend = document.getElementById("adj-legend");
  legend.replaceChildren("Annotators: ");
  for (const a of state.annotators) legend.append(chip(a.name), " ");
  legend.append(el("span", { class: "pre" }, "pre-highlight"));
  const s = state.state;
  document.getElementById("adj-status").textContent = !s.ready ? "Not every annotator has finished this document."
    : s.status === "complete" ? `Adjudicated (round ${s.round}).` : `Open · round ${s.round} · ${state.open.total} decision(s) open: ${state.open.summary}`;
  const notReady = !s.ready ? "Not every annotator has finished this document yet." : "";
  const adjudicated = s.status === "complete" ? "This document is adjudicated: reopen it to decide again." : "";
  disableBecause(document.getElementById("adj-complete"), notReady || adjudicated
    || (state.open.total > 0 ? `${state.open.total} decision(s) are still open: ${state.open.summary}` : ""));
  disableBecause(document.getElementById("adj-auto"), notReady || adjudicated);
  showReopen();
  const nextLink = document.getElementById("adj-next");
  nextLink.hidden = s.status !== "complete" || state.next_in_queue == null;
  if (state.next_in_queue != null) nextLink.href = root.dataset.documentUrl.replace(/\/0$/, `/${state.next_in_queue}`);
  const numbers = editNumbers(state);
  const units = document.getElementById("adj-units");
  const unmatched = document.getElementById("adj-unmatched");
  units.replaceChildren(...state.units.filter((u) => u.matched).map((u) => unitCard(u, numbers)));
  unmatched.replaceChildren(...state.units.filter((u) => !u.matched).map((u) => unitCard(u, numbers)));
  if (!units.children.length) units.append(el("p", { class: "empty" }, "No edits of different annotators overlap."));
  if (!unmatched.children.length) unmatched.append(el("p", { class: "empty" }, "None."));
  renderCompare(document.getElementById("adj-compare"), state);
  renderRatings(document.getElementById("adj-ratings"), state, { decide, open: open() });
  renderHistory(document.getElementById("adj-history"), state);
  if (focused) document.querySelector(`${compare ? ".compare-row" : ".unit"}[data-unit="${focused}"]`)?.focus({ preventScroll: true });
}

/** Reopen opens an adjudicated document again; on one still open it only starts over
 *  (with "start over" ticked), so it is off, saying why, until then (issue 43). */
function showReopen() {
  if (!state) return;
  const s = state.state;
  const reset = document.getElementById("adj-reset").checked;
  disableBecause(document.getElementById("adj-reopen"),
    !s.ready ? "Not every annotator has finished this document yet: there is nothing to reopen."
      : s.status !== "complete" && !reset ? "Not adjudicated yet: nothing to reopen. Tick “start over” to retract every decision and regroup the units."
        : "");
}

function setCompare(on) {
  compare = on;
  document.getElementById("adj-cards").hidden = on;
  document.getElementById("adj-compare-view").hidden = !on;
  const toggle = document.getElementById("adj-compare-toggle");
  toggle.setAttribute("aria-pressed", String(on));
  toggle.textContent = on ? "Back to units" : "Compare all annotators";
}

/** j / k: the next / previous unit (card, or row of the compare-all table). */
function step(delta) {
  const items = [...document.querySelectorAll(compare ? "#adj-compare .compare-row" : "#adj-cards .unit")];
  if (!items.length) return;
  const current = items.indexOf(document.activeElement?.closest?.("[data-unit]"));
  const next = items[current < 0 ? (delta > 0 ? 0 : items.length - 1) : Math.max(0, Math.min(items.length - 1, current + delta))];
  next.focus();
  next.scrollIntoView({ block: "nearest" });
  const unit = state.units.find((u) => u.key === next.dataset.unit);
  if (unit) highlightEdits(unit.edit_ids, true, { scroll: true });
}

document.addEventListener("keydown", (event) => {
  if (!state || typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "j") { step(1); event.preventDefault(); }
  else if (event.key === "k") { step(-1); event.preventDefault(); }
  else if (event.key === "c") { setCompare(!compare); event.preventDefault(); }
  else if (event.key === "Enter" && compare && event.target.classList?.contains("compare-row")) {
    const key = event.target.dataset.unit;
    setCompare(false);
    document.querySelector(`.unit[data-unit="${key}"]`)?.focus();
    event.preventDefault();
  }
});

// A selection in a text sets a span of the open merge form.
const takeSelection = () => setTimeout(() => {
  const span = selectedSpan();
  if (span && offerSelection(span)) window.getSelection()?.removeAllRanges();
}, 0);
for (const side of ["source", "target"]) {
  const text = document.getElementById(`text-${side}`);
  text.addEventListener("mouseup", takeSelection);
  text.addEventListener("keyup", (e) => { if (e.shiftKey) takeSelection(); });
}

document.getElementById("adj-compare-toggle").addEventListener("click", () => setCompare(!compare));
document.getElementById("adj-auto").addEventListener("click", () => decide({ action: "auto" }));
document.getElementById("adj-complete").addEventListener("click", () => decide({ action: "complete" }));
document.getElementById("adj-reset").addEventListener("change", showReopen);
document.getElementById("adj-reopen").addEventListener("click", () => decide({ action: "reopen", reset: document.getElementById("adj-reset").checked }));
// Opening the view freezes the candidate units (an explicit POST; GET state never writes).
request("POST", root.dataset.groupingUrl).then(render, (err) => showError(err.message));
