// "Compare all": every annotator's edits of the document side by side, one row per unit
// (matched and unmatched), one column per annotator, as curation views in Label Studio
// and INCEpTION show them. Rows are focusable; the page moves between them with j / k.

import { el } from "./dom.js";
import { decisionSummary, editDetails, typeSpec } from "./adjudicate_edits.js";

export function renderCompare(container, state) {
  const names = state.annotators.map((a) => a.name);
  const head = el("tr", {}, el("th", { scope: "col" }, "Unit"),
    ...state.annotators.map((a) => {
      const chip = el("span", { class: "chip" }, a.name);
      chip.style.background = a.colour;
      return el("th", { scope: "col" }, chip);
    }),
    el("th", { scope: "col" }, "Decision"));
  const body = el("tbody");
  for (const unit of state.units) {
    const edits = unit.edit_ids.map((id) => state.edits.find((e) => e.id === id));
    const cells = names.map((name) => {
      const mine = edits.filter((e) => e.annotator === name);
      return el("td", { "data-annotator": name },
        mine.length ? mine.map((e) => el("div", { class: "compare-edit" }, el("strong", {}, typeSpec(state, e.edit_type).label), editDetails(state, e)))
          : el("span", { class: "empty" }, "no edit"));
    });
    const decided = unit.decision ? `${decisionSummary(state, unit.decision)} by ${unit.decision.user || "automatic rules"}` : "open";
    body.append(el("tr", { class: `compare-row ${unit.decision ? "decided" : "undecided"}`, "data-unit": unit.key, tabindex: 0,
      "aria-label": `unit ${unit.number}, ${unit.matched ? "matched" : "unmatched"}, ${decided}` },
      el("th", { scope: "row" }, `${unit.number}`, el("div", { class: "meta" }, unit.matched ? "" : "unmatched")),
      ...cells, el("td", { class: "compare-decision" }, decided)));
  }
  container.replaceChildren(state.units.length
    ? el("table", { class: "grid compare", id: "adj-compare-table" }, el("thead", {}, head), body)
    : el("p", { class: "empty" }, "No edits in this document."));
}
