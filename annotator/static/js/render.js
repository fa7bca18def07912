// Rendering one side of the pair from the JSON (never from HTML): sentences with numbers in
// the margin, section headings, and text segments cut at every highlight boundary. Each
// segment is a <span class="seg" data-a data-b> holding one text node (textContent only).

import { cpLength } from "./offsets.js";

const HEADING = /(^|\n)[ \t]*([A-Z][A-Za-z]+(?:[ /&-][A-Za-z]+){0,3}):/g;

/** Code-point ranges of section labels ("BACKGROUND:", "Results:") that start a line. */
export function headingRanges(text) {
  const ranges = [];
  for (const m of text.matchAll(HEADING)) {
    const startUnits = m.index + m[0].length - m[2].length - 1;
    const start = cpLength(text.slice(0, startUnits));
    ranges.push([start, start + cpLength(m[2]) + 1]);
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
  const cuts = new Set([0, n]);
  for (const b of model.boundaries || []) if (b > 0 && b < n) cuts.add(b);
  for (const [s, e] of model.headings || []) { cuts.add(s); cuts.add(e); }
  const regions = [];
  let pos = 0;
  sentences.forEach(([s, e], i) => {
    if (s > pos) regions.push({ a: pos, b: s, index: null });
    regions.push({ a: s, b: e, index: i });
    pos = Math.max(pos, e);
  });
  if (pos < n || !regions.length) regions.push({ a: pos, b: n, index: null });
  for (const r of regions) { cuts.add(r.a); cuts.add(r.b); }
  const sorted = [...cuts].filter((c) => c >= 0 && c <= n).sort((x, y) => x - y);
  const inHeading = (a) => (model.headings || []).some(([s, e]) => a >= s && a < e);

  const frag = document.createDocumentFragment();
  const segments = [];
  const sentenceEls = [];
  let k = 0;
  for (const region of regions) {
    const holder = document.createElement("span");
    if (region.index !== null) {
      holder.className = "sentence";
      holder.dataset.i = String(region.index);
      holder.dataset.number = String(region.index + 1);
      sentenceEls[region.index] = holder;
    } else {
      holder.className = "gap";
    }
    while (k < sorted.length - 1 && sorted[k + 1] <= region.a) k++;
    for (let j = k; j < sorted.length - 1 && sorted[j] < region.b; j++) {
      const a = Math.max(sorted[j], region.a), b = Math.min(sorted[j + 1], region.b);
      if (b <= a) continue;
      const seg = document.createElement("span");
      seg.className = inHeading(a) ? "seg heading" : "seg";
      seg.dataset.a = String(a);
      seg.dataset.b = String(b);
      seg.textContent = cps.slice(a, b).join("");
      holder.appendChild(seg);
      segments.push({ el: seg, a, b });
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
  sentenceEls.forEach((el, i) => {
    if (!el) return;
    const first = el.getClientRects()[0];
    if (!first) return;
    const top = first.top - base;
    const row = rows.find((r) => Math.abs(r.top - top) < 4);
    if (row) row.numbers.push(i + 1);
    else rows.push({ top, numbers: [i + 1], height: first.height });
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
