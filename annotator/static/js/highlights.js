// Highlight layers over the rendered segments: suggestions as a soft tint per kind, edits as
// stacked underlines (one lane per overlapping edit, so overlaps stay distinguishable) in
// the colour of their edit type. Hovering an edit outlines all its spans on both sides.
// Colour is never the only cue: each suggestion kind has its own underline style (CSS,
// `.sg-<kind>`) and each edit type its own bar pattern (thick, double, thick-thin, thin);
// marked segments carry an accessible name ("Deletion suggestion; Oversimplification #2: …").

import { suggestionSpans } from "./spans.js";

export const KIND_LABELS = {
  deletion: "Deletion", oversimplification: "Oversimplification", trailing: "Trailing content",
  leaked_instruction: "Leaked instruction", repetition: "Repetition",
  semantic_outlier: "Semantic outlier", insertion: "Insertion", trailing_noise: "Short trailing text",
};

// The height of an edit's bar (its patterns below are drawn within it); lanes stack 1px apart.
const EDIT_BAR_PX = 4;

/** The bar drawn under an edit of the schema's n-th type: a pattern as well as a colour.
 *  Every pattern is made of solid lines (one thick, two thin, thick over thin, one thin):
 *  dashes belong to pending suggestions, so a saved edit never looks like one (issue 43). */
export function editPattern(color, n) {
  switch (n % 4) {
    case 1: return `linear-gradient(${color} 0 1.3px, transparent 1.3px 2.7px, ${color} 2.7px 4px)`;
    case 2: return `linear-gradient(${color} 0 2.4px, transparent 2.4px 3.2px, ${color} 3.2px 4px)`;
    case 3: return `linear-gradient(transparent 0 2.2px, ${color} 2.2px 4px)`;
    default: return `linear-gradient(${color}, ${color})`;
  }
}

export function kindLabel(kind) {
  return KIND_LABELS[kind] || kind.replace(/_/g, " ");
}

/** What a suggestion is called: its kind, or "Deletion or oversimplification" for a loss
 *  box carrying both kinds (`kind_scores`, the primary kind first; accepting it creates an
 *  edit of the primary kind, whose type stays changeable). */
export function suggestionLabel(s) {
  const kinds = suggestionKinds(s);
  if (kinds.length < 2) return kindLabel(s.kind);
  return kinds.map((k, i) => (i ? kindLabel(k).toLowerCase() : kindLabel(k))).join(" or ");
}

/** Its score: "score 0.42", or each kind's probability ("oversimplification 0.42 · deletion 0.31"). */
export function suggestionScores(s) {
  const kinds = suggestionKinds(s);
  if (kinds.length < 2) return `score ${Number(s.score).toFixed(2)}`;
  return kinds.map((k) => `${kindLabel(k).toLowerCase()} ${Number(s.kind_scores[k]).toFixed(2)}`).join(" · ");
}

/** The kinds a suggestion carries, its own kind first (a stored JSON object keeps no order). */
export function suggestionKinds(s) {
  return [s.kind, ...Object.keys(s.kind_scores || {}).filter((k) => k !== s.kind)];
}

/** Suggestions still to handle with a kind switched on (a box carrying two kinds shows
 *  while either is on: a lead who looks at deletions only sees every likely deletion). */
export function visibleSuggestions(state) {
  return state.suggestions.filter((s) => !s.action
    && suggestionKinds(s).some((kind) => !state.hiddenKinds.has(kind)));
}

/** The one count of the page's suggestion figures (issue 43: "10 suggestions to review"
 *  beside toggles adding up to 14, and "9 to review" on a document marked done):
 *  ``open`` suggestions nobody acted on, ``visible`` those of them with a kind switched on,
 *  ``twoKinds`` the visible ones carrying two kinds (each counts under both toggles), and
 *  ``perKind`` the open suggestions carrying each kind (a toggle's number). */
export function suggestionCounts(state) {
  const open = state.suggestions.filter((s) => !s.action);
  const visible = visibleSuggestions(state);
  const perKind = new Map();
  for (const s of open) for (const kind of suggestionKinds(s)) perKind.set(kind, (perKind.get(kind) || 0) + 1);
  return { open: open.length, visible: visible.length, perKind,
    twoKinds: visible.filter((s) => suggestionKinds(s).length > 1).length };
}

/** Colour a type's swatch (buttons, menu, edit list) with the pattern of its bar. */
export function paintSwatch(node, schema, typeName) {
  const i = schema.edit_types.findIndex((t) => t.name === typeName);
  node.style.backgroundImage = editPattern(schema.edit_types[i]?.color || "#6b7280", Math.max(0, i));
}

/** Layers on one side: {boundaries, edits: [{key, start, end, color, lane}], suggs: [...]} */
export function sideLayers(state, side) {
  const edits = [];
  const typeIndex = Object.fromEntries(state.schema.edit_types.map((t, i) => [t.name, i]));
  const saved = state.edits.filter((e) => e.id != null).map((e) => e.id).sort((x, y) => x - y);
  for (const edit of state.edits) {
    const type = state.typesByName[edit.edit_type];
    const color = type?.color || "#6b7280";
    const number = edit.id != null ? ` #${saved.indexOf(edit.id) + 1}` : " (new)";
    const label = `${type?.label || edit.edit_type}${number}`;
    for (const span of edit.spans) {
      if (span.side === side) edits.push({ key: edit.key, start: span.start, end: span.end, color, label,
        pattern: typeIndex[edit.edit_type] ?? 0 });
    }
  }
  edits.sort((x, y) => x.start - y.start || y.end - x.end);
  const laneEnds = [];
  for (const layer of edits) {
    let lane = laneEnds.findIndex((end) => end <= layer.start);
    if (lane < 0) { lane = laneEnds.length; laneEnds.push(0); }
    laneEnds[lane] = layer.end;
    layer.lane = lane;
  }
  const suggs = [];
  for (const s of visibleSuggestions(state)) {
    for (const { start, end } of suggestionSpans(s, side)) suggs.push({ id: s.id, kind: s.kind, kind_scores: s.kind_scores, start, end });
  }
  const boundaries = new Set();
  for (const l of [...edits, ...suggs]) { boundaries.add(l.start); boundaries.add(l.end); }
  return { boundaries, edits, suggs, lanes: laneEnds.length };
}

function tint(hex, alpha) {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex || "");
  if (!m) return `rgba(107,114,128,${alpha})`;
  const v = parseInt(m[1], 16);
  return `rgba(${(v >> 16) & 255},${(v >> 8) & 255},${v & 255},${alpha})`;
}

/** Style every segment from the layers; returns maps key -> [segment elements]. */
export function paint(segments, layers, state) {
  const byEdit = new Map();
  const bySugg = new Map();
  for (const seg of segments) {
    const edits = layers.edits.filter((l) => l.start <= seg.a && l.end >= seg.b);
    const suggs = layers.suggs.filter((l) => l.start <= seg.a && l.end >= seg.b);
    const el = seg.el;
    el.className = el.classList.contains("heading") ? "seg heading" : "seg";
    el.removeAttribute("style");
    delete el.dataset.edits;
    delete el.dataset.suggs;
    if (!suggs.length && !edits.length) {
      if (el.hasAttribute("role")) { el.removeAttribute("role"); el.removeAttribute("aria-label"); el.removeAttribute("aria-roledescription"); }
      continue;
    }
    const names = [...new Set([...suggs.map((x) => `${suggestionLabel(x)} suggestion`), ...edits.map((x) => x.label)])];
    // A named group (a mark cannot carry a name): screen readers announce what the
    // highlight is, then its text.
    el.setAttribute("role", "group");
    el.setAttribute("aria-roledescription", "highlight");
    el.setAttribute("aria-label", `${names.join("; ")}: ${el.textContent}`);
    if (suggs.length) {
      el.classList.add("sugg", `sg-${suggs[0].kind}`);
      el.dataset.suggs = suggs.map((s) => s.id).join(" ");
      for (const s of suggs) push(bySugg, s.id, el);
      if (suggs.some((s) => s.id === state.focusSugg)) el.classList.add("focus-sugg");
    }
    if (edits.length) {
      el.classList.add("has-edit");
      el.dataset.edits = [...new Set(edits.map((e) => e.key))].join(" ");
      const images = [], positions = [], sizes = [];
      for (const e of edits) {
        images.push(editPattern(e.color, e.pattern));
        positions.push(`0 calc(100% - ${e.lane * (EDIT_BAR_PX + 1)}px)`);
        sizes.push(`100% ${EDIT_BAR_PX}px`);
        push(byEdit, e.key, el);
      }
      el.style.backgroundImage = images.join(", ");
      el.style.backgroundPosition = positions.join(", ");
      el.style.backgroundSize = sizes.join(", ");
      el.style.backgroundRepeat = "no-repeat";
      el.style.backgroundColor = tint(edits[edits.length - 1].color, suggs.length ? 0.22 : 0.12);
      if (edits.some((e) => e.key === state.activeKey)) el.classList.add("active");
    }
  }
  return { byEdit, bySugg };
}

function push(map, key, value) {
  if (!map.has(key)) map.set(key, []);
  map.get(key).push(value);
}

/** Outline (or stop outlining) every span of one edit on both sides. */
export function emphasize(maps, key, on) {
  for (const m of maps) for (const el of m.byEdit.get(key) || []) el.classList.toggle("hl", on);
}
