// Each annotator's extent in a unit (issue 42): a unit is one change, which annotators may
// have marked at different granularity (one wide edit, a narrow one inside it, or the change
// split in two). Per side, the unit's window of text (from the first to the last code point
// any of its edits covers) is shown once per annotator, with what that annotator marked in it
// highlighted, so the lead sees every extent at once. Text only: the texts are model output.

import { el } from "./dom.js";
import { sliceText } from "./marks.js";

const SIDE_LABEL = { source: "original", target: "simplification" };

/** [[start, end], ...] sorted and merged (touching intervals join). */
function merged(intervals) {
  const out = [];
  for (const [a, b] of [...intervals].sort((x, y) => x[0] - y[0] || x[1] - y[1])) {
    if (out.length && a <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The unit's edits (constituents included) of each annotator, spans per side. */
function spansBy(state, unit) {
  const by = {};
  for (const id of unit.edit_ids) {
    const edit = state.edits.find((e) => e.id === id);
    for (const s of edit?.spans || []) {
      ((by[edit.annotator] ||= { source: [], target: [] })[s.side]).push([s.start, s.end]);
    }
  }
  return by;
}

/** One annotator's line: the window with their marked parts as <mark>. */
function line(text, window, marked) {
  const parts = [];
  let at = window[0];
  for (const [a, b] of marked) {
    const from = Math.max(a, window[0]), to = Math.min(b, window[1]);
    if (from >= to) continue;
    if (from > at) parts.push(sliceText(text, at, from));
    parts.push(el("mark", {}, sliceText(text, from, to)));
    at = to;
  }
  if (at < window[1]) parts.push(sliceText(text, at, window[1]));
  return parts;
}

/** The extents block of a unit marked at different granularity (null for any other unit:
 *  its edits' quotes already show the one extent they share). */
export function extentBlock(state, unit, chip) {
  if (unit.annotators.length < 2 || !unit.granularity) return null;
  const by = spansBy(state, unit);
  const block = el("div", { class: "extents", role: "group", "aria-label": `each annotator's extent in unit ${unit.number}` },
    el("p", { class: "meta" }, "Marked at different granularity: each annotator's extent"));
  for (const side of ["source", "target"]) {
    const all = Object.values(by).flatMap((s) => s[side]);
    if (!all.length) continue;
    const window = [Math.min(...all.map((s) => s[0])), Math.max(...all.map((s) => s[1]))];
    for (const name of unit.annotators) {
      const marked = merged(by[name]?.[side] || []);
      block.append(el("div", { class: "extent-row", "data-annotator": name, "data-side": side },
        chip(name), el("span", { class: "meta side" }, ` ${SIDE_LABEL[side]}: `),
        el("span", { class: "extent-text" }, ...line(state.document[side], window, marked))));
    }
  }
  return block;
}
