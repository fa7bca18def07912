// Keyboard shortcuts and the help overlay (?). Single keys work while no text field has the
// focus; Escape, Ctrl+S and Ctrl+Enter work everywhere.

import { el } from "./edit_form.js";

const typing = (target) => target && (target.isContentEditable ||
  ["TEXTAREA", "SELECT"].includes(target.tagName) ||
  (target.tagName === "INPUT" && !["radio", "checkbox", "button"].includes(target.type)));

export function shortcuts(ctx) {
  const reserved = new Set(["j", "k", "a", "x", "q", "w", "?", "/", "n", "p"]);
  const list = [
    { keys: ["j"], label: "Next suggestion", run: () => ctx.suggestions.step(1) },
    { keys: ["k"], label: "Previous suggestion", run: () => ctx.suggestions.step(-1) },
    { keys: ["a"], label: "Accept the current suggestion (creates a pre-filled edit)", run: () => ctx.suggestions.accept() },
    { keys: ["x"], label: "Dismiss the current suggestion", run: () => ctx.suggestions.dismiss() },
  ];
  for (const type of ctx.state.schema.edit_types) {
    if (type.key && !reserved.has(type.key)) {
      list.push({ keys: [type.key], label: `New ${type.label.toLowerCase()} edit`, run: () => ctx.newEdit(type.name) });
    }
  }
  list.push(
    { keys: ["n"], label: "Open the next edit", run: () => ctx.stepEdit(1) },
    { keys: ["p"], label: "Open the previous edit", run: () => ctx.stepEdit(-1) },
    { keys: ["q"], label: "Focus the question (first text field)", run: () => ctx.focusField("question") },
    { keys: ["w"], label: "Focus the answer (second text field)", run: () => ctx.focusField("answer") },
    { keys: ["/"], label: "Search the guidelines", run: () => ctx.guidelines.open(true) },
    { keys: ["?"], label: "Show this help", run: () => toggleHelp(ctx, true) },
    { keys: ["Ctrl", "S"], label: "Save now", any: true, ctrl: "s", run: () => ctx.saveNow() },
    { keys: ["Ctrl", "Enter"], label: "Mark the document done", any: true, ctrl: "Enter", run: () => ctx.markDone() },
    { keys: ["Esc"], label: "Close help, menu or the open edit; leave a text field", any: true, run: () => ctx.escape() },
  );
  return list;
}

export function watchKeyboard(ctx) {
  const list = shortcuts(ctx);
  buildHelp(ctx, list);
  document.addEventListener("keydown", (event) => {
    const mod = event.ctrlKey || event.metaKey;
    for (const s of list) {
      if (s.ctrl) {
        if (mod && event.key.toLowerCase() === s.ctrl.toLowerCase()) { event.preventDefault(); s.run(); return; }
        continue;
      }
      if (s.keys[0] === "Esc") {
        if (event.key === "Escape") { s.run(event); return; }
        continue;
      }
      if (mod || event.altKey || typing(event.target)) continue;
      if (event.key === s.keys[0]) { event.preventDefault(); s.run(); return; }
    }
  });
  return list;
}

function buildHelp(ctx, list) {
  const box = ctx.els.help;
  const rows = list.map((s) => el("tr", {},
    el("td", {}, s.keys.map((k, i) => [i ? " + " : "", el("kbd", {}, k)])), el("td", {}, s.label)));
  box.querySelector(".help-body").replaceChildren(
    el("table", { class: "keys" }, el("tbody", {}, rows)),
    el("p", { class: "help" }, "Mouse: select words in either text to add a span to the open edit (or to start a new one); " +
      "click a highlight to open its edit; hover a highlight for its explanation. Without a mouse: " +
      "accept suggestions, or add whole sentences as spans with the “+ sentence” menu in the edit form. " +
      "Ratings are radio groups: Tab to reach them, arrow keys to choose."));
}

export function toggleHelp(ctx, show) {
  const box = ctx.els.help;
  box.hidden = !show;
  if (show) {
    ctx.lastFocus = document.activeElement;
    box.querySelector("button").focus();
  } else if (ctx.lastFocus && ctx.lastFocus.isConnected) {
    ctx.lastFocus.focus();
  }
}
