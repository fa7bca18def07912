// One segmentation for every page that draws a text: the text is cut into segments at
// every boundary (mark starts and ends, sentences, headings), offsets in Unicode code
// points (the server's unit, see offsets.js). Each segment is an element of class "seg"
// with data-a / data-b (its code-point range) holding one text node, so offsets.js turns
// DOM selections back into code points. The text is untrusted: set through textContent only.
//
// Users: render.js (annotation page: sentences, gaps, headings), renderMarkedText below
// (adjudication view, evaluation pages).

import { codePoints } from "./offsets.js";

/** Sorted, distinct cut points of a text of `n` code points: 0, n and every given
 * offset, clamped to [0, n]. */
export function cutPoints(n, offsets) {
  const cuts = new Set([0, n]);
  for (const x of offsets) cuts.add(Math.max(0, Math.min(n, x)));
  return [...cuts].sort((x, y) => x - y);
}

// Index of the last cut point at or before `x` (binary search: a text has one region per
// sentence, each looking up where its segments start).
function lastAtOrBefore(points, x) {
  let lo = 0, hi = points.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (points[mid] <= x) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/**
 * The segments of code points [from, to) of `cps`, cut at the sorted `points`
 * (see cutPoints): one element each, `<span class="seg" data-a data-b>` unless
 * `tagOf(a, b)` names another tag (the evaluation pages' <mark>). Not attached anywhere.
 * Returns [{el, a, b}].
 */
export function cutSegments(cps, points, from = 0, to = cps.length, tagOf = null) {
  const segments = [];
  for (let j = lastAtOrBefore(points, from); j + 1 < points.length && points[j] < to; j++) {
    const a = Math.max(points[j], from), b = Math.min(points[j + 1], to);
    if (b <= a) continue;
    const seg = document.createElement(tagOf ? tagOf(a, b) : "span");
    seg.className = "seg";
    seg.dataset.a = String(a);
    seg.dataset.b = String(b);
    seg.textContent = cps.slice(a, b).join("");
    segments.push({ el: seg, a, b });
  }
  return segments;
}

/**
 * Render `text` into `container` with `marks` ([{start, end, ...}] in code points).
 * `decorate(seg, covering)` styles a segment given the marks that cover it entirely;
 * with `markTag` ("mark"), covered segments are elements of that tag (the highlight's
 * meaning for assistive technology), the others stay spans.
 * Returns {cps, segments: [{el, a, b, covering}]}.
 */
export function renderMarkedText(container, text, marks, { decorate = () => {}, markTag = "span" } = {}) {
  const cps = codePoints(text);
  const points = cutPoints(cps.length, marks.flatMap((m) => [m.start, m.end]));
  const coveringOf = (a, b) => marks.filter((m) => m.start <= a && m.end >= b);
  const tagOf = markTag === "span" ? null : (a, b) => (coveringOf(a, b).length ? markTag : "span");
  const segments = cutSegments(cps, points, 0, cps.length, tagOf);
  const frag = document.createDocumentFragment();
  for (const seg of segments) {
    seg.covering = coveringOf(seg.a, seg.b);
    if (seg.covering.length) decorate(seg.el, seg.covering);
    frag.append(seg.el);
  }
  container.replaceChildren(frag);
  return { cps, segments };
}

/** The text between code-point offsets [start, end) of `text`. */
export function sliceText(text, start, end) {
  return codePoints(text).slice(start, end).join("");
}
