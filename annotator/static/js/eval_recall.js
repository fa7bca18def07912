// Comparing a reference QA with a model QA of the same document: both side by side with
// their evidence / rationale highlighted in the texts; fully / partially / not recalled.

import { el } from "./dom.js";
import { focusCriterion } from "./eval_chrome.js";
import { boot, pager, radios, renderHighlighted, snippet } from "./eval_common.js";

const ctx = await boot();
const { data } = ctx;
const recall = data.schema.ratings.find((r) => r.name === "recall");
const form = document.getElementById("recall-form");

function qaCard(node, title, qa) {
  node.replaceChildren(el("h3", {}, title),
    el("p", { class: "qa-q" }, el("b", {}, "Q: "), qa.question),
    el("p", { class: "qa-a" }, el("b", {}, "A: "), qa.answer),
    qa.evidence_spans.length ? el("p", { class: "qa-ev" }, el("b", {}, "Evidence: "), snippet(data.document.source, qa.evidence_spans)) : null);
}

function show(i) {
  const pair = data.pairs[i];
  const marks = (qa, side, cls) => qa[side].map(([s, e]) => [s, e, cls]);
  renderHighlighted(document.getElementById("text-source"), data.document.source,
    [...marks(pair.reference, "evidence_spans", "hl-ref"), ...marks(pair.prediction, "evidence_spans", "hl-model")]);
  renderHighlighted(document.getElementById("text-target"), data.document.target,
    [...marks(pair.reference, "rationale_spans", "hl-ref"), ...marks(pair.prediction, "rationale_spans", "hl-model")]);
  qaCard(document.getElementById("ref-card"), "Reference QA", pair.reference);
  qaCard(document.getElementById("model-card"), `Model QA (similarity ${pair.similarity})`, pair.prediction);
  const comment = el("input", { type: "text", class: "why", placeholder: "Comment", "aria-label": "Comment", disabled: ctx.locked() });
  comment.value = ctx.rating("qa", pair.item, "comment")?.value ?? "";
  comment.addEventListener("change", () => ctx.save("qa", pair.item, "comment", comment.value || null));
  form.replaceChildren(el("div", { class: "criterion", dataset: { field: "recall" } },
    el("div", { class: "criterion-label" }, recall.label),
    radios(recall, "recall", ctx.rating("qa", pair.item, "recall")?.value, ctx.locked(),
      (value) => ctx.save("qa", pair.item, "recall", value))), comment);
}

const nav = pager(data.pairs.length, show);
ctx.onLock = () => show(nav.current());
ctx.step = (delta) => nav.go(nav.current() + delta);
ctx.jumpTo = (m) => {
  nav.go(data.pairs.findIndex((pair) => pair.item === m.item));
  focusCriterion(form, m.field, false);
};
window.evalPage = ctx;
