// Rendering one side of the pair from the JSON (never from HTML): sentences with numbers in
// the margin, section headings, and text segments cut at every highlight boundary by the
// one segmentation of marks.js (<span class="seg" data-a data-b>, textContent only).

import { cutPoints, cutSegments } from "./marks.js";
import { cpLength } from "./offsets.js";

// The Python side (annotator/align/headings.py) keeps the same labels out of suggestion
// spans: change both together.
const HEADING = /(?:^|\n)[ \t]*([A-Z][A-Za-z]+(?:[ /&-][A-Za-z]+){0,3}):|(?<=[.!?]\s+)([A-Z]{2,}(?:[ /&-][A-Z]{2,}){0,3}):/g;

/** Code-point ranges of section labels: "BACKGROUND:", "Results:" starting a line, or a
 *  label in capitals right after a sentence ("... disease. METHODS: In this trial"). */
export function headingRanges(text) {
  const ranges = [];
  for (const m of text.matchAll(HEADING)) {
    const label = m[1] ?? m[2];
    const startUnits = m.index + m[0].length - label.length - 1;
    const start = cpLength(text.slice(0, startUnits));
    ranges.push([start, start + cpLength(label) + 1]);
  }
  return ranges;
}

/**
 * Render a text into `container`.
 * model: {cps, sentences: [[s, e]], boundaries: Iterable<number>, headings: [[s, e]],
 *         after: (sentenceIndex) => Element|null}
 * Returns {segments: [{el, a, b}], sentenceEls: [Element]}.
 */
export function renderText(container, model) {
  const { cps, sentences } = model;
  const n = cps.length;
  const headings = model.headings || [];
  const regions = [];
  let pos = 0;
  sentences.forEach(([s, e], i) => {
    if (s > pos) regions.push({ a: pos, b: s, index: null });
    regions.push({ a: s, b: e, index: i });
    pos = Math.max(pos, e);
  });
  if (pos < n || !regions.length) regions.push({ a: pos, b: n, index: null });
  const points = cutPoints(n, [...(model.boundaries || []), ...headings.flat(), ...regions.flatMap((r) => [r.a, r.b])]);
  const inHeading = (a) => headings.some(([s, e]) => a >= s && a < e);
  // A "sentence" that is only a heading ("BACKGROUND:" split off on a line of its own, as
  // the original's splitter does) is drawn as a heading and gets no number: the headings
  // of both texts are treated alike and the numbers count sentences (issue 43).
  const headingOnly = ([s, e]) => {
    for (let i = s; i < e; i++) if (!inHeading(i) && cps[i].trim()) return false;
    return true;
  };
  let number = 0;

  const frag = document.createDocumentFragment();
  const segments = [];
  const sentenceEls = [];
  for (const region of regions) {
    const holder = document.createElement("span");
    if (region.index !== null) {
      holder.className = "sentence";
      holder.dataset.i = String(region.index);
      if (headingOnly([region.a, region.b])) holder.classList.add("heading-only");
      else holder.dataset.number = String(++number);
      sentenceEls[region.index] = holder;
    } else {
      holder.className = "gap";
    }
    for (const seg of cutSegments(cps, points, region.a, region.b)) {
      if (inHeading(seg.a)) seg.el.classList.add("heading");
      holder.appendChild(seg.el);
      segments.push(seg);
    }
    frag.appendChild(holder);
    if (region.index !== null && model.after) {
      const extra = model.after(region.index);
      if (extra) frag.appendChild(extra);
    }
  }
  if (model.after && !sentences.length) {
    const extra = model.after(-1);
    if (extra) frag.appendChild(extra);
  }
  container.replaceChildren(frag);
  return { segments, sentenceEls };
}

/** Sentence numbers in the gutter, next to the line each sentence starts on. */
export function layoutGutter(gutter, textEl, sentenceEls) {
  const base = textEl.getBoundingClientRect().top;
  const rows = [];
  sentenceEls.forEach((el) => {
    if (!el || !el.dataset.number) return;  // a heading on its own has no number
    const first = el.getClientRects()[0];
    if (!first) return;
    const top = first.top - base;
    const number = Number(el.dataset.number);
    const row = rows.find((r) => Math.abs(r.top - top) < 4);
    if (row) row.numbers.push(number);
    else rows.push({ top, numbers: [number], height: first.height });
  });
  const frag = document.createDocumentFragment();
  for (const row of rows) {
    const label = document.createElement("span");
    label.className = "num";
    label.textContent = row.numbers.length > 2
      ? `${row.numbers[0]}–${row.numbers[row.numbers.length - 1]}` : row.numbers.join("·");
    label.style.top = `${row.top}px`;
    label.style.lineHeight = `${row.height}px`;
    frag.appendChild(label);
  }
  gutter.replaceChildren(frag);
}
