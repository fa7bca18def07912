// Character offsets. The server counts Unicode code points (Python string indices); the DOM
// counts UTF-16 code units. Every text node we render sits inside a segment element that
// carries its code-point start (data-a) and end (data-b), so a DOM position converts to a
// code-point offset by counting the code points before it inside its segment.

/** Code points of a string (astral characters such as "𝛼" or emoji count as one). */
export function codePoints(text) {
  return Array.from(text);
}

/** Number of code points in a UTF-16 string. */
export function cpLength(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The substring between two code-point offsets, given the code point array. */
export function cpSlice(cps, start, end) {
  return cps.slice(start, end).join("");
}

function segmentOf(node) {
  const el = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
  return el ? el.closest(".seg") : null;
}

/** Code-point offset of a DOM boundary point (node, offset) inside a rendered text. */
export function pointToOffset(container, node, offset) {
  if (node.nodeType === Node.TEXT_NODE) {
    const seg = segmentOf(node);
    if (seg && container.contains(seg)) {
      return Number(seg.dataset.a) + cpLength(node.data.slice(0, offset));
    }
  } else {
    const seg = node.closest ? node.closest(".seg") : null;
    if (seg && container.contains(seg)) {
      return offset === 0 ? Number(seg.dataset.a) : Number(seg.dataset.b);
    }
  }
  // An element boundary: the first segment at or after the point, else the last before it.
  const segs = container.querySelectorAll(".seg");
  if (!segs.length) return 0;
  const probe = document.createRange();
  probe.setStart(node, offset);
  for (const seg of segs) {
    if (probe.comparePoint(seg, 0) <= 0) return Number(seg.dataset.a);
  }
  return Number(segs[segs.length - 1].dataset.b);
}

/** [start, end] code-point offsets of a DOM Range clipped to a rendered text, or null. */
export function rangeToOffsets(container, range) {
  if (!range || range.collapsed) return null;
  const inside = (n) => container.contains(n);
  let start, end;
  if (inside(range.startContainer)) start = pointToOffset(container, range.startContainer, range.startOffset);
  else if (range.comparePoint(container, 0) >= 0) start = 0;
  else return null;
  if (inside(range.endContainer)) end = pointToOffset(container, range.endContainer, range.endOffset);
  else if (range.comparePoint(container, container.childNodes.length) <= 0) {
    const segs = container.querySelectorAll(".seg");
    end = segs.length ? Number(segs[segs.length - 1].dataset.b) : 0;
  } else return null;
  return end > start ? [start, end] : null;
}

const WORD = /[\p{L}\p{N}\p{M}]/u;
const JOIN = /[\p{L}\p{N}\p{M}'’\-]/u; // inside a word: hyphens and apostrophes keep it whole

/** Widen [start, end) to whole words and trim surrounding space and punctuation-only edges. */
export function snapToWords(cps, start, end) {
  let s = start, e = end;
  while (s < e && /\s/u.test(cps[s])) s++;
  while (e > s && /\s/u.test(cps[e - 1])) e--;
  if (s >= e) return null;
  if (WORD.test(cps[s])) while (s > 0 && JOIN.test(cps[s - 1]) && !edgeDash(cps, s - 1)) s--;
  if (WORD.test(cps[e - 1])) while (e < cps.length && JOIN.test(cps[e]) && !edgeDash(cps, e)) e++;
  return [s, e];
}

// A hyphen or apostrophe joins words only when a word character sits on both sides of it.
function edgeDash(cps, i) {
  if (WORD.test(cps[i])) return false;
  return !(i > 0 && WORD.test(cps[i - 1]) && i + 1 < cps.length && WORD.test(cps[i + 1]));
}

/** A DOM Range covering code points [start, end) of a rendered text (for tests and scrolling). */
export function offsetsToRange(container, start, end) {
  const range = document.createRange();
  let startSet = false;
  for (const seg of container.querySelectorAll(".seg")) {
    const a = Number(seg.dataset.a), b = Number(seg.dataset.b);
    const node = seg.firstChild;
    if (!node) continue;
    if (!startSet && start >= a && start < b) {
      range.setStart(node, utf16Index(node.data, start - a));
      startSet = true;
    }
    if (startSet && end > a && end <= b) {
      range.setEnd(node, utf16Index(node.data, end - a));
      return range;
    }
  }
  return startSet ? range : null;
}

function utf16Index(text, cpOffset) {
  let i = 0;
  for (let n = 0; n < cpOffset && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return i;
}
