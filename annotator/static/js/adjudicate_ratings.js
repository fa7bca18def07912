// Ratings in the adjudication view: each annotator's value, the disagreement, the gold
// value; the lead sets a value or routes disputed items to a third annotator.

import { el } from "./dom.js";

const STATUS = { unanimous: "all agree", majority: "majority", tie: "tie", all_different: "all different", missing: "no value" };

export function renderRatings(container, state, { decide, open }) {
  container.replaceChildren();
  if (!state.ratings.length) { container.append(el("p", { class: "empty" }, "No ratings to adjudicate.")); return; }
  const names = state.annotators.map((a) => a.name);
  const head = el("tr", {}, el("th", {}, "Item"), el("th", {}, "Field"), ...names.map((n) => el("th", {}, n)),
    el("th", {}, "Third annotator"), el("th", {}, "Verdict"), el("th", {}, "Gold"), el("th", {}, open ? "Decide" : ""), el("th", {}, open ? "Route" : ""));
  const body = el("tbody");
  for (const r of state.ratings) {
    // Values by their labels ("1 · yes"), as the annotators saw them.
    const label = (v) => {
      const o = r.options.find((x) => JSON.stringify(x.value) === JSON.stringify(v));
      return o && String(o.label) !== String(v) ? `${v} · ${o.label}` : String(v);
    };
    const tie = [...Object.entries(r.tiebreak).map(([n, v]) => `${n}: ${v}`), ...r.pending_tiebreak.map((n) => `${n}: waiting`)].join(", ");
    const gold = r.gold ? `${label(r.gold.value)} (${r.gold.method})` : "";
    const row = el("tr", { class: `rating ${r.gold ? "resolved" : "unresolved"}`, "data-key": r.key },
      el("td", {}, r.level === "document" ? "document" : `${r.level} ${Number(r.item) + 1}`), el("td", {}, r.label),
      ...names.map((n) => el("td", { class: "num" }, r.values[n] === undefined ? "–" : label(r.values[n]))),
      el("td", {}, tie), el("td", { class: `verdict ${r.status}` }, STATUS[r.status] + (r.majority !== null && r.majority !== undefined ? `: ${label(r.majority)}` : "")),
      el("td", { class: "gold" }, gold));
    if (open) {
      const select = el("select", { class: "gold-value", "aria-label": `gold value of ${r.label}` }, el("option", { value: "" }, "–"));
      for (const o of r.options) select.append(el("option", { value: JSON.stringify(o.value) }, `${o.value} · ${o.label}`));
      row.append(el("td", {}, select, el("button", { type: "button", class: "set-rating", onclick: () => {
        if (select.value) decide({ action: "rating", key: r.key, value: JSON.parse(select.value) });
      } }, "Set")));
      const routable = !r.gold && (r.status === "tie" || r.status === "all_different") && !r.pending_tiebreak.length;
      row.append(el("td", {}, routable ? el("input", { type: "checkbox", class: "route", value: r.key, title: "route to a third annotator" }) : ""));
    } else {
      row.append(el("td"), el("td"));
    }
    body.append(row);
  }
  container.append(el("table", { class: "grid ratings" }, el("thead", {}, head), body));
  if (open) {
    const who = el("input", { class: "route-user", placeholder: "annotator (optional)", size: 18, "aria-label": "third annotator (optional)" });
    container.append(el("p", {}, el("button", { type: "button", class: "route-selected", onclick: () => {
      const keys = [...container.querySelectorAll("input.route:checked")].map((c) => c.value);
      if (keys.length) decide({ action: "route", keys, username: who.value.trim(), note: "third annotator breaks the tie" });
    } }, "Route checked items to a third annotator"), " ", who));
  }
  const links = state.tiebreak_assignments;
  if (links.length) container.append(el("p", { class: "meta" }, `Third annotators rate at /tiebreak/${links.join(", /tiebreak/")}`));
}
