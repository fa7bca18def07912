// Rating generated QA pairs: one item at a time, its evidence highlighted in the original
// and its rationale in the simplification, the nine criteria with a rationale box that is
// required (marked, and checked on "done") for negative ratings.

import { el } from "./dom.js";
import { focusCriterion } from "./eval_chrome.js";
import { boot, pager, radios, renderHighlighted } from "./eval_common.js";

// Options that are not negative (no rationale needed); mirrors annotator/evaluation/criteria.py.
const NOT_NEGATIVE = {
  givenness: ["good"], localization: ["good", "na"], jargon: ["none", "explained_answer", "explained_text"],
  standalone: ["yes"], answerable_original: ["single", "several"], answerable_simplification: ["not"],
  answer_accuracy: ["yes"], evidence_accuracy: ["yes"], hallucination: ["none"],
};
const negative = (field, value) => value != null && NOT_NEGATIVE[field] && !NOT_NEGATIVE[field].includes(value);

const ctx = await boot();
const { data } = ctx;
const specs = data.schema.ratings.filter((r) => r.level === "qa");
const card = document.getElementById("qa-card");
const form = document.getElementById("criteria");
const src = document.getElementById("text-source");
const tgt = document.getElementById("text-target");

function show(i) {
  const item = data.items[i];
  const key = String(item.id);
  renderHighlighted(src, data.document.source, item.evidence_spans.map(([s, e]) => [s, e, "hl-evidence"]));
  renderHighlighted(tgt, data.document.target, item.rationale_spans.map(([s, e]) => [s, e, "hl-rationale"]));
  card.replaceChildren(
    el("div", { class: "qa-kind" }, item.category === "deletion" ? "Deletion (evidence only)" : "Oversimplification"),
    el("p", { class: "qa-q" }, el("b", {}, "Q: "), item.question),
    el("p", { class: "qa-a" }, el("b", {}, "A: "), item.answer));
  form.replaceChildren(...specs.map((spec) => {
    const r = ctx.rating("qa", key, spec.name);
    const why = el("input", { type: "text", class: "why", placeholder: "Rationale", "aria-label": `Rationale: ${spec.label}`,
      disabled: ctx.locked(), dataset: { field: spec.name } });
    why.value = r?.rationale ?? "";
    const row = el("div", { class: "criterion", dataset: { field: spec.name } });
    const mark = () => row.classList.toggle("needs-why", negative(spec.name, ctx.rating("qa", key, spec.name)?.value));
    const group = radios(spec, `c-${spec.name}`, r?.value, ctx.locked(), async (value) => {
      await ctx.save("qa", key, spec.name, value, why.value || null);
      mark();
      if (negative(spec.name, value) && !why.value) why.focus();
    });
    why.addEventListener("change", () => {
      const current = ctx.rating("qa", key, spec.name);
      ctx.save("qa", key, spec.name, current?.value ?? null, why.value || null);
    });
    row.append(el("div", { class: "criterion-label" }, spec.label), group, why);
    mark();
    return row;
  }));
}

const nav = pager(data.items.length, show);
ctx.onLock = () => show(nav.current());
ctx.step = (delta) => nav.go(nav.current() + delta);
ctx.jumpTo = (m) => {
  nav.go(data.items.findIndex((item) => String(item.id) === m.item));
  focusCriterion(form, m.field, m.rationale);
};
window.evalPage = ctx;
