// The two texts of the adjudication view: every annotator's spans (one colour and one
// underline offset each) and the pre-highlights (dimmed) drawn by the shared mark renderer
// in code points; a selection in a text becomes a span in code points, snapped to words
// exactly as on the annotation page.

import { renderMarkedText } from "./marks.js";
import { rangeToOffsets, snapToWords } from "./offsets.js";
import { suggestionSpans } from "./spans.js";

const cpsBySide = {};
// What the texts were last drawn from, and the spans of the open merge form: the merge
// preview and the texts' "merging" highlight are drawn from the same span list (issue 43:
// they used to show different spans).
let drawn = null;
let mergeSpans = [];

/** Marks on one side: {start, end, annotator, editId} for edits, {suggestion} for
 * pre-highlights. */
export function marksFor(side, state) {
  const marks = [];
  for (const edit of state.edits) {
    for (const s of edit.spans) {
      if (s.side === side) marks.push({ start: s.start, end: s.end, annotator: edit.annotator, editId: edit.id });
    }
  }
  for (const s of mergeSpans) {
    if (s.side === side) marks.push({ start: s.start, end: s.end, merge: true });
  }
  for (const sug of state.suggestions) {
    for (const s of suggestionSpans(sug, side)) {
      marks.push({ start: s.start, end: s.end, suggestion: sug });
    }
  }
  return marks;
}

/** Draw one side's text with its marks into `container` (a `.adj-text[data-side]`). */
export function renderText(container, text, marks, colours) {
  const decorate = (seg, covering) => {
    const annotators = [...new Set(covering.filter((m) => m.annotator).map((m) => m.annotator))].sort();
    const suggestions = covering.filter((m) => m.suggestion);
    const titles = [];
    if (annotators.length) {
      seg.classList.add("marked");
      seg.dataset.edits = covering.filter((m) => m.editId).map((m) => m.editId).join(" ");
      seg.dataset.annotators = annotators.join(" ");
      // One underline per annotator at its own depth: the cue is position, not colour alone.
      seg.style.boxShadow = annotators.map((n, k) => `inset 0 -${3 * (k + 1)}px 0 ${colours[n]}`).join(", ");
      seg.style.paddingBottom = `${3 * annotators.length - 2}px`;
      titles.push(`marked by ${annotators.join(", ")}`);
    }
    if (covering.some((m) => m.merge)) {
      seg.classList.add("merging");
      titles.push("the merged edit's span");
    }
    if (suggestions.length) {
      seg.classList.add("pre");
      titles.push("pre-highlight: " + suggestions.map((m) => m.suggestion.explanation || m.suggestion.kind).join("; "));
    }
    if (titles.length) seg.title = titles.join(" · ");
  };
  const { cps } = renderMarkedText(container, text, marks, { decorate });
  cpsBySide[container.dataset.side] = cps;
}

/** Draw both texts of the view (edits, pre-highlights and the open merge's spans). */
export function drawTexts(state, colours) {
  drawn = { state, colours };
  for (const side of ["source", "target"]) {
    renderText(document.getElementById(`text-${side}`), state.document[side], marksFor(side, state), colours);
  }
}

/** The spans of the open merge form (none: no form open); the texts are drawn again. */
export function showMergeSpans(spans) {
  mergeSpans = spans.map((s) => ({ side: s.side, start: s.start, end: s.end }));
  if (drawn) drawTexts(drawn.state, drawn.colours);
}

/** The current selection inside one text panel as {side, start, end} in code points
 * (snapped to whole words), or null. */
export function selectedSpan() {
  const sel = window.getSelection();
  if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
  const range = sel.getRangeAt(0);
  const node = range.startContainer.nodeType === Node.TEXT_NODE ? range.startContainer.parentElement : range.startContainer;
  const panel = node?.closest?.(".adj-text");
  if (!panel) return null;
  const offsets = rangeToOffsets(panel, range);
  if (!offsets) return null;
  const snapped = snapToWords(cpsBySide[panel.dataset.side] || [], offsets[0], offsets[1]);
  return snapped ? { side: panel.dataset.side, start: snapped[0], end: snapped[1] } : null;
}

/** Emphasise the segments of the given edits; with `scroll`, bring the first into view
 * inside its (sticky, scrolling) text panel. */
export function highlightEdits(ids, on, { scroll = false } = {}) {
  let first = null;
  for (const seg of document.querySelectorAll(".adj-text .seg.marked")) {
    const mine = on && seg.dataset.edits.split(" ").some((id) => ids.includes(Number(id)));
    seg.classList.toggle("focus", mine);
    if (mine && !first) first = seg;
  }
  if (scroll && first) first.scrollIntoView({ block: "nearest" });
}
