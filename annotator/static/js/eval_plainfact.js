// PlainFact sentence typing: per simplified sentence its type, functional role and the
// original sentences it comes from (or "external"), the alignment pre-filled as a
// suggestion. A third annotator (tie-break) sees only the items routed to them.

import { el } from "./dom.js";
import { boot, radios, renderHighlighted } from "./eval_common.js";
import { ratingKey } from "./keys.js";
import { sliceText } from "./marks.js";

const ctx = await boot();
const { data } = ctx;
const specs = Object.fromEntries(data.schema.ratings.map((r) => [r.name, r]));
const tiebreak = new Set(data.tiebreak);
const wanted = (i, field) => !tiebreak.size || tiebreak.has(ratingKey("sentence", i, field));
const doc = data.document;

// The original as numbered sentences, so relation numbers are easy to read.
document.getElementById("text-source").replaceChildren(...doc.source_sentences.map((span, i) =>
  el("p", { class: "numbered", dataset: { number: i + 1 } }, el("span", { class: "num" }, `${i + 1}`), sliceText(doc.source, ...span))));
renderHighlighted(document.getElementById("text-target"), doc.target, []);

function relationBox(i) {
  const saved = ctx.rating("sentence", String(i), "relation");
  const suggested = data.suggestions[i];
  const value = new Set(saved ? saved.value : suggested);
  const box = el("div", { class: "relation", dataset: { suggested: saved ? "false" : "true", field: "relation" } });
  const note = el("p", { class: "refused small", role: "alert" });
  const choices = ["external", ...doc.source_sentences.map((_, k) => k + 1)];
  const commit = () => {
    box.dataset.suggested = "false";
    box.querySelector(".suggested-note")?.remove();  // confirmed or changed: no longer a suggestion
    ctx.save("sentence", String(i), "relation", choices.filter((c) => value.has(c)));
  };
  box.append(el("span", { class: "criterion-label" }, "Relation"), ...choices.map((c) => {
    const input = el("input", { type: "checkbox", value: String(c), checked: value.has(c), disabled: ctx.locked() });
    input.addEventListener("change", () => {
      // "external" says the sentence is not from the original: it never goes with numbers
      // (the server refuses the pair as well).
      const clash = input.checked && (c === "external" ? [...value].some((v) => v !== "external") : value.has("external"));
      if (clash) {
        input.checked = false;
        note.textContent = c === "external"
          ? "“external” means this sentence is not from the original: untick the sentence numbers first."
          : "Untick “external” first: a sentence based on the original is not external.";
        return;
      }
      note.textContent = "";
      input.checked ? value.add(c) : value.delete(c);
      commit();
    });
    return el("label", { class: "rel-choice" }, input, el("span", {}, String(c)));
  }));
  if (!saved && !ctx.locked()) {
    const accept = el("button", { type: "button", class: "small accept" }, "Confirm suggestion");
    accept.addEventListener("click", () => commit());
    box.append(el("span", { class: "suggested-note" }, el("span", { class: "muted small" }, " suggested "), accept));
  }
  box.append(note);
  return box;
}

const rows = doc.target_sentences.map((span, i) => {
  const row = el("div", { class: "pf-row", dataset: { sentence: i } },
    el("p", { class: "pf-text" }, el("span", { class: "num" }, `${i + 1}`), sliceText(doc.target, ...span)));
  for (const field of ["type", "role"]) {
    if (!wanted(i, field)) continue;
    row.append(el("div", { class: "criterion", dataset: { field } }, el("span", { class: "criterion-label" }, specs[field].label),
      radios(specs[field], `${field}-${i}`, ctx.rating("sentence", String(i), field)?.value, ctx.locked(),
        (value) => ctx.save("sentence", String(i), field, value))));
  }
  if (wanted(i, "relation")) row.append(relationBox(i));
  return row.childElementCount > 1 ? row : null;
}).filter(Boolean);
document.getElementById("sentences").replaceChildren(...rows);
ctx.jumpTo = (m) => {
  const [, item, field] = (m.key || "").split("|");
  const row = document.querySelector(`.pf-row[data-sentence="${CSS.escape(item ?? "")}"]`);
  const target = row?.querySelector(`[data-field="${CSS.escape(field ?? "")}"]`) || row;
  if (!target) return;
  target.scrollIntoView({ block: "center" });
  (target.querySelector("input:checked") || target.querySelector("input") || target).focus();
};
window.evalPage = ctx;
