// Highlight layers over the rendered segments: suggestions as a soft tint per kind, edits as
// stacked underlines (one lane per overlapping edit, so overlaps stay distinguishable) in
// the colour of their edit type. Hovering an edit outlines all its spans on both sides.

export const KIND_LABELS = {
  deletion: "Deletion", oversimplification: "Oversimplification", trailing: "Trailing content",
  leaked_instruction: "Leaked instruction", repetition: "Repetition",
  semantic_outlier: "Semantic outlier",
};

export function kindLabel(kind) {
  return KIND_LABELS[kind] || kind.replace(/_/g, " ");
}

/** Suggestions still to handle whose kind is switched on. */
export function visibleSuggestions(state) {
  return state.suggestions.filter((s) => !s.action && !state.hiddenKinds.has(s.kind));
}

/** Layers on one side: {boundaries, edits: [{key, start, end, color, lane}], suggs: [...]} */
export function sideLayers(state, side) {
  const edits = [];
  for (const edit of state.edits) {
    const color = state.typesByName[edit.edit_type]?.color || "#6b7280";
    for (const span of edit.spans) {
      if (span.side === side) edits.push({ key: edit.key, start: span.start, end: span.end, color });
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
  const key = side === "source" ? "source_spans" : "target_spans";
  const suggs = [];
  for (const s of visibleSuggestions(state)) {
    for (const [start, end] of s[key] || []) suggs.push({ id: s.id, kind: s.kind, start, end });
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
        images.push(`linear-gradient(${e.color}, ${e.color})`);
        positions.push(`0 calc(100% - ${e.lane * 4}px)`);
        sizes.push("100% 2.5px");
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
