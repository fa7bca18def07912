// What every evaluation page shares with the annotation page around its own controls:
// active time, the guideline tab with search, the keyboard help (?) and shortcuts, and
// the list of what blocks "done", each entry a button that jumps to its item.

import { api } from "./api.js";
import { el } from "./dom.js";
import { makeGuidelines } from "./guidelines.js";
import { bindShortcuts, buildHelp, toggleHelp } from "./keyboard.js";
import { startTimer } from "./timer.js";

/** Wire the chrome around a booted evaluation page `ctx` (see eval_common.boot). */
export function wireChrome(ctx) {
  const root = document.getElementById("eval");
  const $ = (sel) => root.querySelector(sel);
  ctx.els = { help: $("#help"), guidelines: $("#tab-guidelines"), missing: $("#missing"), timer: $("#timer") };

  ctx.showTab = (name) => {
    for (const tab of root.querySelectorAll("[role=tab]")) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      $(`#tab-${tab.dataset.tab}`).hidden = !on;
    }
    if (name === "guidelines") ctx.guidelines.load();
  };
  ctx.guidelines = makeGuidelines(ctx);
  for (const tab of root.querySelectorAll("[role=tab]")) tab.addEventListener("click", () => ctx.showTab(tab.dataset.tab));

  const done = $("#btn-done");
  const list = [
    { keys: ["j"], label: "Next item", run: () => ctx.step(1) },
    { keys: ["k"], label: "Previous item", run: () => ctx.step(-1) },
    { keys: ["← / →"], label: "Inside a group of options: choose the previous / next option", info: true },
    { keys: ["Tab"], label: "Next group of options or rationale box", info: true },
    { keys: ["/"], label: "Search the guidelines", run: () => ctx.guidelines.open(true) },
    { keys: ["?"], label: "Show this help", run: () => toggleHelp(ctx, true) },
    { keys: ["Ctrl", "Enter"], label: "Mark the document done", ctrl: "Enter", run: () => { if (!done.hidden) done.click(); } },
    { keys: ["Esc"], label: "Close help; leave a text field", run: () => escape() },
  ];
  const escape = () => {
    if (!ctx.els.help.hidden) { toggleHelp(ctx, false); return; }
    const active = document.activeElement;
    if (active && active !== document.body) active.blur();
  };
  buildHelp(ctx.els.help, list, "Ratings save as soon as you choose them; a rationale saves when you leave its box.");
  bindShortcuts(list);
  $("#btn-help").addEventListener("click", () => toggleHelp(ctx, true));
  $("#help .close").addEventListener("click", () => toggleHelp(ctx, false));

  const { data } = ctx;
  if (!data.read_only && data.assignment.status !== "done") {
    ctx.timer = startTimer({
      initial: data.assignment.seconds_spent || 0,
      report: (seconds, options) => api.time(ctx.id, seconds, options),
      display: (text, active) => { ctx.els.timer.textContent = text; ctx.els.timer.classList.toggle("idle", !active); },
    });
  } else {
    ctx.els.timer.textContent = `${Math.round((data.assignment.seconds_spent || 0) / 60)} min`;
  }

  // Default navigation: the rows of the page (PlainFact's sentences); paged modes override.
  ctx.step ||= (delta) => {
    const rows = [...root.querySelectorAll(".pf-row")];
    if (!rows.length) return;
    const at = rows.findIndex((r) => r.contains(document.activeElement));
    const next = rows[Math.max(0, Math.min(rows.length - 1, at < 0 ? 0 : at + delta))];
    next.scrollIntoView({ block: "center" });
    next.querySelector("input:not([disabled])")?.focus();
  };
}

/** Show what blocks "done": the server's message and every entry as a jump button. */
export function showMissing(ctx, message, missing) {
  const box = ctx.els.missing;
  box.replaceChildren(el("strong", {}, message),
    el("ul", {}, missing.map((m) => el("li", {}, el("button", { type: "button", class: "link",
      onclick: () => ctx.jumpTo(m) }, m.message)))));
  box.hidden = false;
  box.querySelector("li button")?.focus();
}

/** Focus the control of criterion `field` inside `container` (its rationale box if asked). */
export function focusCriterion(container, field, rationale) {
  const row = container.querySelector(`.criterion[data-field="${CSS.escape(field)}"]`);
  if (!row) return false;
  row.scrollIntoView({ block: "center" });
  const target = rationale ? row.querySelector("input.why")
    : row.querySelector("input:checked") || row.querySelector("input");
  (target || row).focus();
  return true;
}
