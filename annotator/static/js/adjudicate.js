// The adjudication view: candidate units, ratings, history; every decision is one POST
// (X-CSRFToken header via api.js) answered with the new state.

import { request } from "./api.js";
import { highlightEdits, marksFor, renderText, selectionOffsets } from "./adjudicate_text.js";
import { renderRatings } from "./adjudicate_ratings.js";

const root = document.getElementById("adjudicate");
let state = null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function showError(message) {
  const box = document.getElementById("adj-error");
  box.textContent = message || "";
  box.hidden = !message;
}

export async function decide(body) {
  showError("");
  try {
    render(await request("POST", root.dataset.decideUrl, body));
  } catch (err) {
    showError(err.message);
  }
}

const colours = () => Object.fromEntries(state.annotators.map((a) => [a.name, a.colour]));
const editById = (id) => state.edits.find((e) => e.id === id);
const open = () => state.state.status === "open" && state.state.ready;

function spanText(edit, side) {
  const text = state.document[side];
  return edit.spans.filter((s) => s.side === side).map((s) => text.slice(s.start, s.end));
}

function editRow(unit, edit) {
  const chip = el("span", { class: "chip", title: edit.annotator }, edit.annotator);
  chip.style.background = colours()[edit.annotator];
  const fields = el("dl", { class: "fields" });
  for (const [name, value] of Object.entries(edit.fields)) fields.append(el("dt", {}, name), el("dd", {}, String(value)));
  for (const side of ["source", "target"]) {
    const texts = spanText(edit, side);
    if (texts.length) fields.append(el("dt", {}, side === "source" ? "original" : "simplification"), el("dd", { class: "quote" }, texts.map((t) => `“${t}”`).join(" … ")));
  }
  const row = el("div", { class: "edit", "data-edit": String(edit.id) }, chip, el("strong", {}, ` ${edit.edit_type} `), el("span", { class: "meta" }, `#${edit.id}`), fields);
  if (open() && !unit.decision) {
    row.append(el("button", { type: "button", class: "accept", onclick: () => decide({ action: "accept", edit_ids: unit.edit_ids, edit_id: edit.id, note: noteOf(unit) }) }, `Accept ${edit.annotator}'s`));
    row.append(el("button", { type: "button", class: "merge", onclick: () => mergeForm(unit, edit) }, "Merge from this"));
    row.append(moveSelect(unit, edit));
  }
  return row;
}

function moveSelect(unit, edit) {
  const select = el("select", { class: "move", title: "move this edit to another unit" }, el("option", { value: "" }, "move to…"));
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

function noteOf(unit) {
  return document.querySelector(`[data-unit="${unit.key}"] .note`)?.value || "";
}

function mergeForm(unit, base) {
  const card = document.querySelector(`[data-unit="${unit.key}"]`);
  card.querySelector(".merge-form")?.remove();
  const type = state.schema.edit_types.find((t) => t.name === base.edit_type);
  const inputs = {};
  const form = el("div", { class: "merge-form" }, el("h4", {}, `Merge, starting from ${base.annotator}'s edit`));
  for (const f of type.fields) {
    let input;
    if (f.options.length) {
      input = el("select", { name: f.name }, el("option", { value: "" }, "–"));
      for (const o of f.options) input.append(el("option", { value: JSON.stringify(o), selected: base.fields[f.name] === o }, String(o)));
    } else {
      input = el("textarea", { name: f.name, rows: 2, value: base.fields[f.name] || "" });
    }
    inputs[f.name] = input;
    form.append(el("label", {}, f.label, input));
  }
  const spans = el("textarea", { class: "spans", rows: 3, value: base.spans.map((s) => `${s.side} ${s.start} ${s.end}`).join("\n") });
  form.append(el("label", {}, "Spans (side start end, one a line)", spans));
  form.append(el("button", { type: "button", onclick: () => {
    const sel = selectionOffsets();
    if (sel) spans.value = (spans.value.trim() + `\n${sel.side} ${sel.start} ${sel.end}`).trim();
    else showError("Select text in the original or the simplification first.");
  } }, "Add selected text as span"));
  form.append(el("button", { type: "button", class: "save-merge", onclick: () => {
    const fields = {};
    for (const [name, input] of Object.entries(inputs)) {
      if (input.value === "") continue;
      fields[name] = input.tagName === "SELECT" ? JSON.parse(input.value) : input.value;
    }
    const parsed = spans.value.split("\n").map((l) => l.trim().split(/\s+/)).filter((p) => p.length === 3)
      .map(([side, start, end]) => ({ side, start: Number(start), end: Number(end) }));
    decide({ action: "merge", edit_ids: unit.edit_ids, base_id: base.id, edit_type: base.edit_type, fields, spans: parsed, note: noteOf(unit) });
  } }, "Save merged edit"));
  card.append(form);
}

function unitCard(unit) {
  const score = [unit.iou !== null ? `token IoU ${unit.iou.toFixed(2)}` : "", unit.similarity !== null && unit.similarity !== undefined ? `question similarity ${unit.similarity.toFixed(2)}` : ""].filter(Boolean).join(" · ");
  const card = el("article", { class: `unit ${unit.decision ? "decided" : "undecided"}`, "data-unit": unit.key },
    el("h3", {}, `Unit ${unit.number} `, el("span", { class: "meta" }, score)));
  card.addEventListener("mouseenter", () => highlightEdits(unit.edit_ids, true));
  card.addEventListener("mouseleave", () => highlightEdits(unit.edit_ids, false));
  for (const id of unit.edit_ids) card.append(editRow(unit, editById(id)));
  const disputed = Object.entries(unit.fields).filter(([, v]) => !["unanimous", "missing"].includes(v.status));
  if (disputed.length) card.append(el("p", { class: "meta" }, "differs: " + disputed.map(([k, v]) => `${k} (${v.status}${v.value !== null ? `, majority ${v.value}` : ""})`).join(", ")));
  if (unit.decision) {
    const d = unit.decision;
    card.append(el("p", { class: "decision" }, `Decided: ${d.kind.replace("_", " ")} by ${d.user || "automatic rules"}${d.note ? ` — ${d.note}` : ""} `,
      open() ? el("button", { type: "button", class: "undo", onclick: () => decide({ action: "undo", decision_id: d.id }) }, "Undo") : null));
  } else if (open()) {
    card.append(el("div", { class: "unit-actions" },
      el("input", { class: "note", placeholder: "note (optional)", size: 30 }),
      unit.edit_ids.length > 1 ? el("button", { type: "button", class: "keep-both", onclick: () => decide({ action: "keep_both", edit_ids: unit.edit_ids, note: noteOf(unit) }) }, "Keep both") : null,
      el("button", { type: "button", class: "reject", onclick: () => decide({ action: "reject", edit_ids: unit.edit_ids, note: noteOf(unit) }) }, "Reject")));
  }
  return card;
}

function renderHistory() {
  const list = document.getElementById("adj-history");
  list.replaceChildren();
  for (const d of state.history) {
    const what = `#${d.id} ${d.kind}${d.item_key ? ` ${d.item_key}` : ""} · ${d.user || "automatic"} · ${d.created_at} · round ${d.round}`;
    list.append(el("li", { class: d.retracted_by_id ? "retracted" : "" }, what, d.note ? ` — ${d.note}` : "", d.retracted_by_id ? ` (retracted by #${d.retracted_by_id})` : ""));
  }
}

function render(next) {
  state = next;
  const c = colours();
  for (const side of ["source", "target"]) renderText(document.getElementById(`text-${side}`), state.document[side], marksFor(side, state), c);
  const legend = document.getElementById("adj-legend");
  legend.replaceChildren("Annotators: ");
  for (const a of state.annotators) { const chip = el("span", { class: "chip" }, a.name); chip.style.background = a.colour; legend.append(chip, " "); }
  legend.append(el("span", { class: "pre" }, "pre-highlight"));
  const s = state.state;
  document.getElementById("adj-status").textContent = !s.ready ? "Not every annotator has finished this document."
    : s.status === "complete" ? `Adjudicated (round ${s.round}).` : `Open · round ${s.round} · ${state.open.total} decision(s) open: ${state.open.summary}`;
  document.getElementById("adj-complete").disabled = !open() || state.open.total > 0;
  document.getElementById("adj-auto").disabled = !open();
  document.getElementById("adj-reopen").disabled = !s.ready;
  const units = document.getElementById("adj-units");
  const unmatched = document.getElementById("adj-unmatched");
  units.replaceChildren(...state.units.filter((u) => u.matched).map(unitCard));
  unmatched.replaceChildren(...state.units.filter((u) => !u.matched).map(unitCard));
  if (!units.children.length) units.append(el("p", { class: "empty" }, "No edits of different annotators overlap."));
  if (!unmatched.children.length) unmatched.append(el("p", { class: "empty" }, "None."));
  renderRatings(document.getElementById("adj-ratings"), state, { el, decide, open: open() });
  renderHistory();
}

document.getElementById("adj-auto").addEventListener("click", () => decide({ action: "auto" }));
document.getElementById("adj-complete").addEventListener("click", () => decide({ action: "complete" }));
document.getElementById("adj-reopen").addEventListener("click", () => decide({ action: "reopen", reset: document.getElementById("adj-reset").checked }));
// Opening the view freezes the candidate units (an explicit POST; GET state never writes).
request("POST", root.dataset.groupingUrl).then(render, (err) => showError(err.message));
