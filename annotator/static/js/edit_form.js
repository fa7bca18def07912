// The edit form (fields from the schema, spans, live guidance) and the list of edits.

import { el, fill } from "./dom.js";
import { guidance } from "./guidance.js";
import { paintSwatch } from "./highlights.js";
import { codePoints, cpSlice } from "./offsets.js";

const SIDE_LABEL = { source: "Original", target: "Simplification" };

/** The text of a span on one line, cut to `max` code points (an emoji or 𝛼 is never cut
 *  in half). */
export function snippet(ctx, span, max = 60) {
  const text = cpSlice(ctx.state.cps[span.side], span.start, span.end).replace(/\s+/g, " ");
  const cps = codePoints(text);
  return cps.length > max ? cps.slice(0, max - 1).join("") + "…" : text;
}

/** An edit's number among this annotator's saved edits of the document (#1 = their first),
 *  never the database id, which would reveal how much the other annotators wrote. The
 *  server numbers them the same way in the list of what is missing. */
export function editNumber(ctx, edit) {
  if (edit.id == null) return null;
  return 1 + ctx.state.edits.filter((e) => e.id != null && e.id < edit.id).length;
}

/** Short summary of an edit for the list and for the missing list. */
export function editTitle(ctx, edit) {
  const type = ctx.state.typesByName[edit.edit_type];
  const number = editNumber(ctx, edit);
  return `${type ? type.label : edit.edit_type}${number ? " #" + number : " (new)"}`;
}

/** The label the schema gives a choice value (`leaked_instruction` -> "Leaked model
 *  instruction"); the value itself if the schema has no such option. */
export function optionLabel(type, fieldName, value) {
  const field = (type?.fields || []).find((f) => f.name === fieldName);
  const labelOf = (v) => field?.options.find((o) => o.value === v)?.label ?? String(v);
  return Array.isArray(value) ? value.map(labelOf).join(", ") : labelOf(value);
}

/** Whether a field is asked given the answers so far: a conditional (sub-)question only
 * when the field it depends on holds one of its values, and that field is asked too. */
export function fieldApplies(type, field, values) {
  const seen = new Set();
  while (field && field.when && !seen.has(field.name)) {
    seen.add(field.name);
    const [parent, allowed] = field.when;
    if (!allowed.includes(values[parent])) return false;
    field = type.fields.find((f) => f.name === parent);
  }
  return Boolean(field);
}

/** Show only the questions that apply; forget answers to questions that no longer do (the
 * server refuses a sub-answer whose condition does not hold). */
function applyConditions(ctx, container, edit, type) {
  for (const field of type.fields) {
    const applies = fieldApplies(type, field, edit.fields);
    const box = container.querySelector(`.field[data-name="${CSS.escape(field.name)}"]`);
    if (box) box.hidden = !applies;
    if (!applies && field.name in edit.fields) ctx.edits.setField(edit, field.name, "", 0);
  }
}

export function renderEditList(ctx, container) {
  const { state } = ctx;
  // No edit types (PLABA): no list of edits and no "select text" hint for a tool the
  // schema does not have (issue 35).
  container.hidden = !state.schema.edit_types.length;
  if (container.hidden) { container.replaceChildren(); return; }
  const items = state.edits.map((edit) => {
    const type = state.typesByName[edit.edit_type] || {};
    const text = edit.fields.question || (edit.fields.category ? optionLabel(type, "category", edit.fields.category) : null) ||
      (edit.fields.error ? optionLabel(type, "error", edit.fields.error) : null) ||
      (edit.spans[0] ? `“${snippet(ctx, edit.spans[0], 48)}”` : "no spans yet");
    const incomplete = (type.fields || []).some((f) => f.required && fieldApplies(type, f, edit.fields) &&
      (edit.fields[f.name] ?? "") === "") ||
      (type.required_sides || []).some((side) => !edit.spans.some((s) => s.side === side));
    const button = el("button", {
      type: "button", class: `edit-item${edit.key === state.activeKey ? " current" : ""}`,
      dataset: { key: edit.key }, "aria-pressed": edit.key === state.activeKey ? "true" : "false",
      onclick: () => ctx.openEdit(edit.key),
      onmouseenter: () => ctx.emphasize(edit.key, true), onmouseleave: () => ctx.emphasize(edit.key, false),
      onfocus: () => ctx.emphasize(edit.key, true), onblur: () => ctx.emphasize(edit.key, false),
    }, el("span", { class: "swatch" }), el("span", { class: "edit-name" }, editTitle(ctx, edit)),
    incomplete ? el("span", { class: "badge", title: "Required information missing" }, "incomplete") : null,
    el("span", { class: "edit-text" }, text));
    paintSwatch(button.querySelector(".swatch"), state.schema, edit.edit_type);
    return el("li", {}, button);
  });
  container.replaceChildren(
    el("h3", {}, `Your edits (${state.edits.length})`),
    items.length ? el("ol", { class: "edit-list" }, items)
      : el("p", { class: "hint" }, `No edits yet. Select text in either panel${state.suggestions.length ? ", or accept a suggestion" : ""}.`),
  );
}

function choiceGroup(ctx, edit, field, disabled) {
  const name = `f-${edit.key}-${field.name}`;
  const current = edit.fields[field.name];
  const multi = field.type === "multichoice";
  return el("div", { class: `choices ${field.type}`, role: multi ? "group" : "radiogroup", "aria-label": field.label },
    field.options.map((opt, i) => {
      const checked = multi ? (current || []).includes(opt.value) : current === opt.value;
      const input = el("input", { type: multi ? "checkbox" : "radio", name, value: String(i), checked,
        disabled, dataset: { field: field.name } });
      input.addEventListener("change", () => {
        let value = opt.value;
        if (multi) {
          const inputs = [...input.closest(".choices").querySelectorAll("input")];
          value = inputs.filter((x) => x.checked).map((x) => field.options[Number(x.value)].value);
        }
        ctx.edits.setField(edit, field.name, value, 0);
        const form = input.closest(".fields");
        if (form) applyConditions(ctx, form, edit, ctx.state.typesByName[edit.edit_type]);
        ctx.refreshList();
      });
      return el("label", { class: "choice" }, input, el("span", {}, field.type === "ordinal" ? `${opt.value} · ${opt.label}` : opt.label));
    }));
}

export function renderEditForm(ctx, container, edit) {
  const { state } = ctx;
  if (!edit) { container.replaceChildren(); container.hidden = true; return; }
  container.hidden = false;
  const locked = ctx.locked();
  const type = state.typesByName[edit.edit_type];
  const typeSwitch = state.schema.edit_types.length > 1 ? el("div", { class: "choices types", role: "radiogroup", "aria-label": "Edit type" },
    state.schema.edit_types.map((t) => {
      const input = el("input", { type: "radio", name: `type-${edit.key}`, value: t.name, checked: t.name === edit.edit_type, disabled: locked });
      input.addEventListener("change", () => {
        const dropped = ctx.edits.setType(edit, t.name);
        // Rebuild the form: the description, fields and conditions belong to the new type.
        ctx.formKey = null;
        ctx.render();
        ctx.els.form.querySelector(`.types input[value="${t.name}"]`)?.focus({ preventScroll: true });
        if (dropped) ctx.notify(`${dropped} span(s) removed: ${t.label} spans lie only in the ${t.sides.map((s) => SIDE_LABEL[s].toLowerCase()).join(" and ")}.`);
      });
      return el("label", { class: "choice" }, input, el("span", {}, t.label));
    })) : null;

  const spans = el("div", { class: "spans" });
  const fields = el("div", { class: "fields" });
  for (const field of type.fields) {
    const id = `field-${field.name}`;
    const label = el("label", { for: id, class: "field-label" }, field.label, field.required ? el("span", { class: "req", title: "required" }, " *") : null);
    let control;
    if (field.type === "text") {
      const long = ["question", "answer", "comment"].includes(field.name) || true;
      control = el(long ? "textarea" : "input", { id, rows: field.name === "comment" ? 2 : 2, dataset: { field: field.name },
        disabled: locked, placeholder: field.placeholder || field.help || "", "aria-describedby": `warn-${field.name}` });
      control.value = edit.fields[field.name] || "";
      control.addEventListener("input", () => {
        ctx.edits.setField(edit, field.name, control.value);
        updateWarnings(ctx, container, edit);
        ctx.refreshList();
      });
      control.addEventListener("blur", () => ctx.saver.start(edit.key));
    } else {
      control = choiceGroup(ctx, edit, field, locked);
    }
    fields.append(el("div", { class: `field field-${field.type}`, dataset: { name: field.name } }, label, control,
      field.help && field.type !== "text" ? el("p", { class: "help" }, field.help) : null,
      el("ul", { class: "warnings", id: `warn-${field.name}`, "aria-live": "polite" })));
  }

  fill(container,
    el("div", { class: "form-head" },
      el("h3", {}, editTitle(ctx, edit)),
      el("button", { type: "button", class: "ghost small", title: "Close (Escape)", onclick: () => ctx.closeEdit() }, "Close")),
    typeSwitch,
    type.description ? el("p", { class: "help" }, type.description) : null,
    spans, fields,
    el("p", { class: "problems", role: "alert" }),
    locked ? null : el("div", { class: "form-actions" },
      el("button", { type: "button", class: "danger ghost small", onclick: (e) => confirmDelete(ctx, edit, e.currentTarget, e) }, "Delete edit")),
  );
  renderSpans(ctx, spans, edit);
  applyConditions(ctx, fields, edit, type);
  updateWarnings(ctx, container, edit);
}

function confirmDelete(ctx, edit, button, event) {
  // The confirming click must be a click of its own: the second half of a double-click
  // (detail 2) is not a decision. Ctrl+Z brings a deleted edit back anyway.
  if (event.detail > 1) return;
  if (button.dataset.armed) { ctx.deleteEdit(edit); return; }
  button.dataset.armed = "1";
  button.textContent = "Click again to delete";
  setTimeout(() => { if (button.isConnected) { delete button.dataset.armed; button.textContent = "Delete edit"; } }, 4000);
}

export function renderSpans(ctx, container, edit) {
  const { state } = ctx;
  const type = state.typesByName[edit.edit_type];
  const locked = ctx.locked();
  if (!type.sides.length) {  // a document-level edit: about the whole pair, no spans
    container.replaceChildren(el("p", { class: "hint document-level" }, "About the whole pair: no spans."));
    return;
  }
  const rows = type.sides.map((side) => {
    const list = edit.spans.map((s, i) => [s, i]).filter(([s]) => s.side === side);
    const required = type.required_sides.includes(side);
    const sentences = state.sentences[side];
    const picker = locked || !sentences.length ? null : el("span", { class: "sentence-picker" },
      el("select", { "aria-label": `Add a whole ${SIDE_LABEL[side].toLowerCase()} sentence as a span`, dataset: { side } },
        el("option", { value: "" }, "+ sentence…"),
        sentences.map(([a, b], i) => el("option", { value: String(i) }, `${i + 1}: ${snippet(ctx, { side, start: a, end: b }, 40)}`))));
    if (picker) {
      const select = picker.querySelector("select");
      select.addEventListener("change", () => {
        if (select.value === "") return;
        const [a, b] = sentences[Number(select.value)];
        ctx.addSpan(edit, side, a, b);
        ctx.els.form.querySelector(`.span-row[data-side=${side}] select`)?.focus();
      });
    }
    return el("div", { class: "span-row", dataset: { side } },
      el("div", { class: "span-side" }, SIDE_LABEL[side], required ? el("span", { class: "req" }, " *") : null),
      el("ul", { class: "chips" },
        list.length ? list.map(([s, i]) => el("li", { class: "chip", dataset: { start: s.start, end: s.end } },
          el("span", {}, `“${snippet(ctx, s)}”`),
          locked ? null : el("button", { type: "button", class: "x", "aria-label": `Remove span “${snippet(ctx, s, 30)}”`,
            onclick: () => { ctx.edits.removeSpan(edit, i); ctx.render(); } }, "×")))
          : el("li", { class: "hint" }, locked ? "none" : `select text in the ${SIDE_LABEL[side].toLowerCase()}`)),
      picker);
  });
  container.replaceChildren(...rows);
}

/** The guidance warnings under each field. Each can be dismissed (issue 35): the annotator
 *  judged it and it stays hidden for this edit while the page is open; a different
 *  warning (other words flagged) shows again. */
export function updateWarnings(ctx, container, edit) {
  const type = ctx.state.typesByName[edit.edit_type];
  const result = guidance(edit, type, ctx.state.cps.target);
  const dismissed = (ctx.state.dismissedWarnings ||= new Set());
  for (const ul of container.querySelectorAll("ul.warnings")) {
    const name = ul.closest(".field").dataset.name;
    const shown = (result[name] || []).filter((w) => !dismissed.has(`${edit.key}|${name}|${w}`));
    ul.replaceChildren(...shown.map((w) => el("li", {}, el("span", {}, w),
      el("button", { type: "button", class: "dismiss-warning", title: "Dismiss this warning", "aria-label": "Dismiss this warning",
        onclick: (event) => {
          dismissed.add(`${edit.key}|${name}|${w}`);
          event.currentTarget.closest("li").remove();
          container.querySelector(`[data-field="${CSS.escape(name)}"]`)?.focus({ preventScroll: true });
        } }, "×"))),
      ...tooLong(ctx, edit.fields[name]));
  }
}

/** The server's text limit (ANNOTATOR_MAX_TEXT_CHARS, sent as ``limits.text``) said while
 * typing: a longer answer would be refused on save, so nothing is cut without a word. */
export function tooLong(ctx, value) {
  const limit = ctx.state.limits?.text;
  if (!limit || typeof value !== "string" || value.length <= limit) return [];
  return [el("li", { class: "too-long" }, `${value.length.toLocaleString()} characters: the limit is ${limit.toLocaleString()}; shorten it to save.`)];
}
