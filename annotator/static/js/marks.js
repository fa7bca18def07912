// One mark renderer: a text cut into segments at every mark boundary, offsets in Unicode
// code points (the server's unit, see offsets.js). Each segment is a
// <span class="seg" data-a data-b> holding one text node, so offsets.js converts DOM
// selections back to code points. The text is untrusted: it is set through textContent only.

import { codePoints } from "./offsets.js";

/**
 * Render `text` into `container` with `marks` ([{start, end, ...}] in code points).
 * `decorate(seg, covering)` styles a segment given the marks that cover it entirely.
 * Returns {cps, segments: [{el, a, b, covering}]}.
 */
export function renderMarkedText(container, text, marks, decorate = () => {}) {
  const cps = codePoints(text);
  const n = cps.length;
  const clamp = (x) => Math.max(0, Math.min(n, x));
  const cuts = new Set([0, n]);
  for (const m of marks) { cuts.add(clamp(m.start)); cuts.add(clamp(m.end)); }
  const points = [...cuts].sort((x, y) => x - y);
  const frag = document.createDocumentFragment();
  const segments = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i], b = points[i + 1];
    if (b <= a) continue;
    const covering = marks.filter((m) => m.start <= a && m.end >= b);
    const seg = document.createElement("span");
    seg.className = "seg";
    seg.dataset.a = String(a);
    seg.dataset.b = String(b);
    seg.textContent = cps.slice(a, b).join("");
    if (covering.length) decorate(seg, covering);
    frag.append(seg);
    segments.push({ el: seg, a, b, covering });
  }
  container.replaceChildren(frag);
  return { cps, segments };
}

/** The text between code-point offsets [start, end) of `text`. */
export function sliceText(text, start, end) {
  return codePoints(text).slice(start, end).join("");
}
