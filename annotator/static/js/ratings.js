// Item-level ratings as compact radio groups (native radios: Tab to reach, arrows to
// change) next to the sentence or sentence pair they rate; document ratings in the sidebar.

import { api } from "./api.js";
import { el } from "./dom.js";
import { ratingKey } from "./keys.js";

/** (level, item) pairs the document offers, with where to show them. */
export function ratingItems(state) {
  const levels = new Set(state.schema.ratings.map((r) => r.level));
  const items = [];
  const nTarget = state.sentences.target.length;
  if (levels.has("document")) items.push({ level: "document", item: "", label: "Whole document", after: null });
  if (levels.has("sentence")) {
    state.sentences.target.forEach((_, i) => items.push({ level: "sentence", item: String(i), label: `Sentence ${i + 1}`, after: i }));
  }
  if (levels.has("pair")) {
    const pairs = state.doc.sentence_pairs;
    if (pairs && pairs.length) {
      pairs.forEach(([s, t], i) => items.push({ level: "pair", item: String(i),
        label: `Pair ${i + 1} · original ${s + 1} ↔ simplification ${t + 1}`, after: t }));
    } else {
      items.push({ level: "pair", item: "0", label: "The whole pair", after: nTarget ? nTarget - 1 : -1 });
    }
  }
  return items;
}

export function makeRatings(ctx) {
  const { state } = ctx;
  const cache = new Map();

  const persist = async (level, item, field) => {
    const r = state.ratings.get(ratingKey(level, item, field));
    const result = await api.rate(ctx.id, { level, item, field, value: r.value ?? null,
      version: r.version ?? null });
    r.id = result.rating.id;
    r.version = result.rating.version;
    ctx.setAssignment(result.assignment);
  };

  const set = (level, item, field, value, delay) => {
    const key = ratingKey(level, item, field);
    const r = state.ratings.get(key) || { level, item, field, value: null, version: null };
    r.value = value;
    state.ratings.set(key, r);
    ctx.saver.schedule(key, () => persist(level, item, field), delay);
    if (delay === 0) ctx.saver.start(key);
  };

  const control = (spec, entry) => {
    const key = ratingKey(entry.level, entry.item, spec.name);
    const current = state.ratings.get(key)?.value;
    const locked = ctx.locked();
    if (spec.type === "text") {
      const input = el("input", { type: "text", class: "rating-text", placeholder: spec.placeholder || spec.label, "aria-label": `${spec.label} (${entry.label})`,
        disabled: locked, dataset: { rating: key } });
      input.value = current ?? "";
      input.addEventListener("input", () => set(entry.level, entry.item, spec.name, input.value || null));
      input.addEventListener("blur", () => ctx.saver.start(key));
      return el("div", { class: "rating-field textual" }, input);
    }
    const name = `rate-${entry.level}-${entry.item}-${spec.name}`;
    return el("div", { class: "rating-field", role: "radiogroup", "aria-label": `${spec.label} (${entry.label})`, dataset: { rating: key } },
      el("span", { class: "rating-label" }, spec.label, spec.required ? el("span", { class: "req" }, "*") : null),
      el("span", { class: "seg-control" }, spec.options.map((opt, i) => {
        const input = el("input", { type: "radio", name, value: String(i), checked: current === opt.value, disabled: locked });
        input.addEventListener("change", () => set(entry.level, entry.item, spec.name, opt.value, 0));
        return el("label", { title: opt.label }, input, el("span", {}, String(opt.value === "yes" || opt.value === "no" ? opt.label : opt.value)));
      })));
  };

  const block = (entry) => {
    const specs = state.schema.ratings.filter((r) => r.level === entry.level);
    const node = el("div", { class: "rating-row", contenteditable: "false", dataset: { level: entry.level, item: entry.item } },
      el("div", { class: "rating-item" }, entry.label),
      el("div", { class: "rating-fields" }, specs.map((spec) => control(spec, entry))));
    return node;
  };

  /** Element to show after target sentence i (or -1 for an unsplit text), or null. */
  const after = (i) => {
    const entries = ratingItems(state).filter((e) => e.after === i);
    if (!entries.length) return null;
    const wrap = el("div", { class: "ratings-after" });
    for (const entry of entries) {
      const k = `${entry.level}|${entry.item}`;
      if (!cache.has(k)) cache.set(k, block(entry));
      wrap.append(cache.get(k));
    }
    return wrap;
  };

  const renderDocumentLevel = (container) => {
    const entries = ratingItems(state).filter((e) => e.after === null);
    container.replaceChildren(...entries.map(block));
    container.hidden = !entries.length;
  };

  const legend = () => {
    const ordinal = state.schema.ratings.find((r) => r.type === "ordinal");
    return ordinal ? ordinal.options.map((o) => `${o.value} = ${o.label}`).join(" · ") : "";
  };

  return { after, renderDocumentLevel, legend, reset: () => cache.clear() };
}
