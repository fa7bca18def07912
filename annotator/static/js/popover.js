// The small menu that appears after selecting text: which kind of edit the span starts, or
// why it cannot join the open edit.

import { el, fill } from "./dom.js";
import { paintSwatch } from "./highlights.js";
import { clearSelection } from "./selection.js";

const sideWord = (s) => (s === "source" ? "original" : "simplification");

export function makePopover(ctx) {
  const hidePopover = () => { ctx.els.popover.hidden = true; };

  function showPopover({ side, start, end, rect }, note, addTo = null) {
    const types = ctx.state.schema.edit_types.filter((t) => t.sides.includes(side));
    const pop = ctx.els.popover;
    if (!types.length && !addTo) {
      // A schema without edit types (PLABA rates sentences) makes no edits: selecting text
      // is just reading, answered by nothing (a toast here told of a tool that is absent).
      if (ctx.state.schema.edit_types.length) ctx.notify("No edit type of this schema marks this side.");
      return;
    }
    const join = addTo && el("button", { type: "button", class: "pop-choice pop-add", onclick: () => {
      hidePopover();
      ctx.addSpan(addTo.edit, side, start, end);
      clearSelection();
    } }, `Add to ${addTo.label}`);
    fill(pop,
      note ? el("p", { class: "small muted" }, note) : null,
      join,
      el("p", { class: "small" }, "New edit with this span:"),
      ...types.map((t) => {
        const b = el("button", { type: "button", class: "pop-choice", dataset: { type: t.name }, onclick: () => {
          hidePopover();
          const edit = ctx.edits.create(t.name, { spans: [{ side, start, end }] });
          clearSelection();
          ctx.openEdit(edit.key);
          ctx.revealForm();
        } }, el("span", { class: "swatch" }), t.label, t.key ? el("kbd", {}, t.key) : null);
        paintSwatch(b.querySelector(".swatch"), ctx.state.schema, t.name);
        return b;
      }),
      el("button", { type: "button", class: "ghost small", onclick: hidePopover }, "Cancel"));
    pop.hidden = false;
    pop.style.left = `${Math.min(rect.right + 6, window.innerWidth - pop.offsetWidth - 10)}px`;
    pop.style.top = `${Math.min(rect.bottom + 6, window.innerHeight - pop.offsetHeight - 10)}px`;
    pop.onkeydown = (e) => {
      const t = types.find((x) => x.key === e.key);
      if (t) { e.preventDefault(); e.stopPropagation(); pop.querySelector(`[data-type="${t.name}"]`).click(); }
    };
    pop.querySelector("button").focus({ preventScroll: true });
  }

  function onSelect(sel) {
    if (ctx.locked()) return;
    const active = ctx.edits.find(ctx.state.activeKey);
    if (active) {
      const type = ctx.state.typesByName[active.edit_type];
      // Ask rather than add: a selection made while an edit is open used to join that edit
      // without a word (issue 35). Joining stays the first, focused choice (Enter).
      if (type.sides.includes(sel.side)) { showPopover(sel, null, { edit: active, label: `the open ${type.label} edit` }); return; }
      showPopover(sel, `${type.label} spans lie only in the ${type.sides.map((s) => sideWord(s)).join(" and ")}.`);
      return;
    }
    showPopover(sel);
  }

  function onClick(seg) {
    hidePopover();
    const keys = (seg.dataset.edits || "").split(" ").filter(Boolean);
    if (keys.length) {
      const at = keys.indexOf(ctx.state.activeKey);
      ctx.openEdit(keys[(at + 1) % keys.length]);
      return;
    }
    const suggs = (seg.dataset.suggs || "").split(" ").filter(Boolean).map(Number);
    if (suggs.length) ctx.suggestions.focus(suggs[0], { scroll: false });
  }

  document.addEventListener("mousedown", (e) => { if (!ctx.els.popover.contains(e.target)) hidePopover(); });
  return { onSelect, onClick, hide: hidePopover, get open() { return !ctx.els.popover.hidden; } };
}
