// The adjudication history as a lead reads it: what was decided (in words, with whose
// edits), on which unit or rating item, by whom, and when in local time; no database ids
// and no raw ISO timestamps (issue 35). Retracted decisions stay listed, crossed out, with
// who undid them.

import { el } from "./dom.js";
import { decisionSummary } from "./adjudicate_edits.js";
import { readableTime } from "./local_time.js";

const KIND_WORDS = {
  regroup: "units grouped", undo: "undo", complete: "marked adjudicated", reopen: "reopened",
  route: "routed to a third annotator", rating: "rating set", majority: "rating by majority",
  tiebreak: "rating by tie-break",
};

/** What a decision was about: its unit's number, or the rating item(s) it resolved. */
function subject(state, d) {
  if (!d.item_key) return "";
  const unit = state.units.find((u) => u.key === d.item_key);
  if (unit) return `unit ${unit.number}`;
  if (d.item_key.startsWith("edits:")) return "a unit regrouped since";
  return d.item_key.split(";").map((key) => key.split("|").filter(Boolean).join(" ")).join(", ");
}

function what(state, d) {
  return KIND_WORDS[d.kind] || decisionSummary(state, d);
}

export function renderHistory(list, state) {
  const byId = new Map(state.history.map((d) => [d.id, d]));
  list.replaceChildren(...state.history.map((d) => {
    const undoneBy = d.retracted_by_id ? byId.get(d.retracted_by_id) : null;
    const parts = [what(state, d), subject(state, d), d.user || "automatic", readableTime(d.created_at), `round ${d.round}`]
      .filter(Boolean).join(" · ");
    return el("li", { class: d.retracted_by_id ? "retracted" : "", dataset: { kind: d.kind } },
      el("span", { class: "what" }, parts), d.note ? ` — ${d.note}` : "",
      d.retracted_by_id ? ` (undone${undoneBy ? ` by ${undoneBy.user || "automatic rules"}` : ""})` : "");
  }));
}
