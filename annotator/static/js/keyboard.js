// Keyboard shortcuts and the help overlay (?). Single keys work while no text field has the
// focus; Escape, Ctrl+S and Ctrl+Enter work everywhere; Ctrl+Z / Ctrl+Shift+Z undo and redo
// the page's actions outside text fields (inside one they stay the field's own undo).
// The evaluation pages use the same binding and help table with their own list.

import { el, typing } from "./dom.js";
import { handled, handledAfter } from "./handled.js";

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
    { keys: ["Shift", "→ / ←"], label: "In a focused text: select word by word (Enter opens the new-edit menu)", info: true },
    { keys: ["/"], label: "Search the guidelines", run: () => ctx.guidelines.open(true) },
    { keys: ["?"], label: "Show this help", run: () => toggleHelp(ctx, true) },
    { keys: ["Ctrl", "Z"], label: "Undo (span, field, type, accept / dismiss, delete)", ctrl: "z", outsideFields: true, run: () => ctx.history.undo() },
    { keys: ["Ctrl", "Shift", "Z"], label: "Redo", ctrl: "z", shift: true, outsideFields: true, run: () => ctx.history.redo() },
    { keys: ["Ctrl", "S"], label: "Save now", ctrl: "s", run: () => ctx.saveNow() },
    { keys: ["Ctrl", "Enter"], label: "Mark the document done", ctrl: "Enter", run: () => ctx.markDone() },
    { keys: ["Esc"], label: "Close help, menu or the open edit; leave a text field", run: () => ctx.escape() },
  );
  return list;
}

/** Listen for the shortcuts of `list` on the document. Each key is counted as handled
 * (handled.js) once its shortcut's work is done, or at once when it runs none. */
export function bindShortcuts(list) {
  document.addEventListener("keydown", (event) => {
    const mod = event.ctrlKey || event.metaKey;
    for (const s of list) {
      if (s.info) continue;
      if (s.ctrl) {
        if (!mod || event.key.toLowerCase() !== s.ctrl.toLowerCase()) continue;
        if (s.ctrl.length === 1 && Boolean(s.shift) !== event.shiftKey) continue;
        if (s.outsideFields && typing(event.target)) { handled("key"); return; }
        event.preventDefault();
        handledAfter("key", s.run());
        return;
      }
      if (s.keys[0] === "Esc") {
        if (event.key === "Escape") { handledAfter("key", s.run(event)); return; }
        continue;
      }
      if (mod || event.altKey || typing(event.target)) continue;
      if (event.key === s.keys[0]) { event.preventDefault(); handledAfter("key", s.run()); return; }
    }
    handled("key");
  });
}

export function watchKeyboard(ctx) {
  const list = shortcuts(ctx);
  buildHelp(ctx.els.help, list, "Mouse: select words in either text to add a span to the open edit (or to start a new one); " +
    "click a highlight to open its edit; hover a highlight for its explanation. Without a mouse: " +
    "Tab to a text, Shift+→ selects word by word, Enter offers the edit types; or accept suggestions, " +
    "or add whole sentences as spans with the “+ sentence” menu in the edit form. " +
    "Ratings are radio groups: Tab to reach them, arrow keys to choose.");
  bindShortcuts(list);
  return list;
}

/** The table of keys in the help overlay `box` (its `.help-body`), and a closing note. */
export function buildHelp(box, list, note) {
  const rows = list.map((s) => el("tr", {},
    el("td", {}, s.keys.map((k, i) => [i ? " + " : "", el("kbd", {}, k)])), el("td", {}, s.label)));
  box.querySelector(".help-body").replaceChildren(
    el("table", { class: "keys" }, el("tbody", {}, rows)),
    note ? el("p", { class: "help" }, note) : null);
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
