// Overlay every annotator's spans (one colour each) and the pre-highlights (dimmed) on a
// text. The text is untrusted model output: it is only ever set through textContent.

function spanPairs(list) {
  return (list || []).map((s) => (Array.isArray(s) ? { start: s[0], end: s[1] } : s));
}

/** Marks on one side: {start, end, annotator, editId} for edits, {suggestion} for
 * pre-highlights. */
export function marksFor(side, state) {
  const marks = [];
  for (const edit of state.edits) {
    for (const s of edit.spans) {
      if (s.side === side) marks.push({ start: s.start, end: s.end, annotator: edit.annotator, editId: edit.id });
    }
  }
  for (const sug of state.suggestions) {
    for (const s of spanPairs(side === "source" ? sug.source_spans : sug.target_spans)) {
      marks.push({ start: s.start, end: s.end, suggestion: sug });
    }
  }
  return marks;
}

/** Render ``text`` into ``container`` as segments between every mark boundary. */
export function renderText(container, text, marks, colours) {
  container.replaceChildren();
  const cuts = new Set([0, text.length]);
  for (const m of marks) { cuts.add(Math.max(0, Math.min(text.length, m.start))); cuts.add(Math.max(0, Math.min(text.length, m.end))); }
  const points = [...cuts].sort((a, b) => a - b);
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    const covering = marks.filter((m) => m.start <= a && m.end >= b);
    const seg = document.createElement("span");
    seg.className = "seg";
    seg.dataset.start = String(a);
    seg.textContent = text.slice(a, b);
    const annotators = [...new Set(covering.filter((m) => m.annotator).map((m) => m.annotator))].sort();
    const edits = covering.filter((m) => m.editId).map((m) => m.editId);
    const suggestions = covering.filter((m) => m.suggestion);
    if (annotators.length) {
      seg.classList.add("marked");
      seg.dataset.edits = edits.join(" ");
      seg.style.boxShadow = annotators.map((n, k) => `inset 0 -${3 * (k + 1)}px 0 ${colours[n]}`).join(", ");
      seg.style.paddingBottom = `${3 * annotators.length - 2}px`;
      seg.title = `marked by ${annotators.join(", ")}`;
    }
    if (suggestions.length) {
      seg.classList.add("pre");
      seg.title = (seg.title ? seg.title + " · " : "") + "pre-highlight: " + suggestions.map((m) => m.suggestion.explanation || m.suggestion.kind).join("; ");
    }
    container.append(seg);
  }
}

/** Character offsets of the current selection inside one text panel, or null. */
export function selectionOffsets() {
  const sel = window.getSelection();
  if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
  const range = sel.getRangeAt(0);
  const offset = (node, within) => {
    const seg = (node.nodeType === Node.TEXT_NODE ? node.parentElement : node).closest(".seg");
    return seg ? Number(seg.dataset.start) + within : null;
  };
  const panel = range.startContainer.parentElement?.closest(".adj-text");
  if (!panel || panel !== range.endContainer.parentElement?.closest(".adj-text")) return null;
  const start = offset(range.startContainer, range.startOffset);
  const end = offset(range.endContainer, range.endOffset);
  if (start === null || end === null || end <= start) return null;
  return { side: panel.dataset.side, start, end };
}

export function highlightEdits(ids, on) {
  for (const seg of document.querySelectorAll(".seg.marked")) {
    const mine = seg.dataset.edits.split(" ").some((id) => ids.includes(Number(id)));
    seg.classList.toggle("focus", on && mine);
  }
}
