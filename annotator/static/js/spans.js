// Spans in the browser ({side, start, end}, offsets in code points): the order they are
// kept and shown in, adding one to an edit's list, and a suggestion's spans of one side.
// Pure functions, no DOM; shared by the edit operations (edits.js), undo / redo (undo.js),
// suggestions and highlights of the annotation page, and the adjudication view.

/** Original before simplification, then by start, then by end. */
export function compareSpans(x, y) {
  if (x.side !== y.side) return x.side === "source" ? -1 : 1;
  return x.start - y.start || x.end - y.end;
}

/** Sort a list of spans in place (see compareSpans) and return it. */
export function sortSpans(spans) {
  return spans.sort(compareSpans);
}

/**
 * `spans` with [start, end) on `side` added, sorted: a new span that covers or touches
 * spans of the same side merges with them into one. null when exactly that span is
 * already there (nothing to change).
 */
export function withSpan(spans, side, start, end) {
  if (spans.some((s) => s.side === side && s.start === start && s.end === end)) return null;
  const merged = { side, start, end };
  const kept = spans.filter((s) => {
    if (s.side !== side || s.end < merged.start || s.start > merged.end) return true;
    merged.start = Math.min(merged.start, s.start);
    merged.end = Math.max(merged.end, s.end);
    return false;
  });
  return sortSpans([...kept, merged]);
}

/** A suggestion's spans on one side as [{side, start, end}] (the payload keeps them as
 * [start, end] pairs under source_spans / target_spans; {start, end} objects are read too). */
export function suggestionSpans(suggestion, side) {
  const list = (side === "source" ? suggestion.source_spans : suggestion.target_spans) || [];
  return list.map((s) => (Array.isArray(s) ? { side, start: s[0], end: s[1] } : { side, start: s.start, end: s.end }));
}
