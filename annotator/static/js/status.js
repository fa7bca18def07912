// Marking the document done, skipping it or reopening it; the way on to the next document;
// the list of what is missing; banners.

import { api } from "./api.js";
import { el, fill } from "./dom.js";
import { visibleSuggestions } from "./highlights.js";

export function makeStatus(ctx) {
  const { state } = ctx;

  let shownMissing = [];
  const showMissing = (missing, { focus = true } = {}) => {
    const box = ctx.els.missing;
    delete box.dataset.shows;
    if (!missing || !missing.length) { box.hidden = true; box.replaceChildren(); return; }
    box.hidden = false;
    box.dataset.shows = "missing";
    shownMissing = missing;
    box.replaceChildren(
      el("div", { class: "missing-head" },
        el("strong", {}, `Not done yet — ${missing.length} thing${missing.length > 1 ? "s" : ""} missing`),
        el("button", { type: "button", class: "ghost small", onclick: () => showMissing(null) }, "Hide")),
      el("ul", {}, missing.map((m) => el("li", {}, el("button", { type: "button", class: "link",
        onclick: () => goTo(m) }, m.message)))));
    if (focus) box.querySelector("li button")?.focus();
  };

  const goTo = (m) => {
    if (m.edit_id) {
      const edit = state.edits.find((e) => e.id === m.edit_id);
      if (!edit) return;
      ctx.openEdit(edit.key, { focusField: m.field.startsWith("spans.") ? null : m.field });
      if (m.field.startsWith("spans.")) ctx.els.form.querySelector(`.span-row[data-side=${m.field.slice(6)}] select`)?.focus();
      return;
    }
    if (m.key) {  // a missing rating: the server names its item key
      const group = document.querySelector(`[data-rating="${CSS.escape(m.key)}"]`);
      if (group) {
        group.scrollIntoView({ block: "center" });
        (group.querySelector("input") || group).focus();
      }
    }
  };

  // Suggestions still open when "done" is asked for the first time: say so, and let a
  // second Mark done (or "Mark done anyway") go through. Reviewing any resets the question.
  let warnedAt = null;
  const warnUnreviewed = (open) => {
    const box = ctx.els.missing;
    box.hidden = false;
    box.dataset.shows = "unreviewed";
    box.replaceChildren(
      el("div", { class: "missing-head" },
        el("strong", {}, `${open} suggestion${open > 1 ? "s" : ""} not reviewed yet`),
        el("button", { type: "button", class: "ghost small", onclick: () => showMissing(null) }, "Hide")),
      el("p", { class: "small" }, "Accept (", el("kbd", {}, "a"), ") or dismiss (", el("kbd", {}, "x"),
        ") each one, so the pre-highlighters' precision can be measured. Mark done again to finish anyway."),
      el("div", { class: "card-actions" },
        el("button", { type: "button", class: "primary small", onclick: () => { showMissing(null); ctx.suggestions.step(1); } },
          "Review the next one ", el("kbd", {}, "j")),
        el("button", { type: "button", class: "ghost small", onclick: () => markDone() }, "Mark done anyway")));
    box.querySelector("button.primary").focus();
  };

  /** Save what is pending, then ask the server for the new status (with the version the
   *  page holds: a stale page is refused with 409). Resolves to the answer or null. */
  const closeAs = async (status, what) => {
    ctx.setSaveState("saving");
    await ctx.saver.flushAll();
    ctx.saver.emit();
    if (ctx.saver.state === "conflict") return null;
    if (ctx.saver.state === "error" || ctx.saver.state === "offline") {
      ctx.notify(`Some changes are not saved yet; fix them before ${what}.`);
      return null;
    }
    // Time first: the server adds no time to a document once it is done.
    await ctx.timer?.flush();
    const result = await api.status(ctx.id, status, state.assignment.version);
    ctx.setAssignment(result.assignment);
    state.next = result.next_assignment ?? null;
    showMissing(null);
    ctx.closeEdit();
    ctx.refreshLock();
    // The way on: Enter opens the next document (issue 35).
    if (!ctx.els.next.hidden) ctx.els.next.focus();
    return result;
  };

  const nextLine = () => (state.next == null ? " Nothing else is left to do here." : " “Next document →” (Enter) opens your next one.");

  const markDone = async () => {
    if (ctx.locked()) return;
    const open = visibleSuggestions(state).length;
    if (open && warnedAt !== open) { warnedAt = open; warnUnreviewed(open); return; }
    try {
      if (!(await closeAs("done", "marking the document done"))) return;
      ctx.notify(`Marked done${open ? ` with ${open} suggestion${open > 1 ? "s" : ""} not reviewed` : ""}. ` +
        "Thank you! Reopen it if you need to change something." + nextLine());
    } catch (err) {
      if (err.status === 422 && err.data.missing) showMissing(err.data.missing);
      else if (err.status === 409) ctx.conflict(err);
      else ctx.notify(`Could not mark done: ${err.message}`);
    }
  };

  /** Set the document aside as it is (status "skipped", stored on the server; My
   *  documents lists it under "skipped"); Reopen brings it back. */
  const skip = async () => {
    if (ctx.locked()) return;
    try {
      if (!(await closeAs("skipped", "skipping the document"))) return;
      ctx.notify("Skipped: it stays under “skipped” on My documents; Reopen it to work on it." + nextLine());
    } catch (err) {
      if (err.status === 409) ctx.conflict(err);
      else ctx.notify(`Could not skip: ${err.message}`);
    }
  };

  const reopen = async () => {
    try {
      const result = await api.status(ctx.id, "in_progress", state.assignment.version);
      ctx.setAssignment(result.assignment);
      state.next = result.next_assignment ?? null;
      ctx.refreshLock();
      ctx.notify("Reopened: you can change your annotations again.");
    } catch (err) {
      if (err.status === 409) ctx.conflict(err);
      else ctx.notify(`Could not reopen: ${err.message}`);
    }
  };

  const conflictBanner = (err) => {
    const banner = ctx.els.banner;
    const unsaved = state.edits.filter((e) => ctx.saver.tasks.get(e.key)?.dirty || ctx.saver.tasks.get(e.key)?.error === undefined);
    banner.hidden = false;
    banner.className = "banner conflict";
    fill(banner, 
      el("strong", {}, "Conflict: "),
      "this document was changed in another tab or session since you opened it. " +
      "Your latest change was not saved, so nothing was overwritten. Reload to continue with the current version. ",
      el("button", { type: "button", class: "primary small", onclick: () => { ctx.allowLeave = true; location.reload(); } }, "Reload"),
      err && err.message ? el("details", {}, el("summary", {}, "Details and your unsaved text"),
        el("p", { class: "small" }, err.message),
        el("pre", { class: "unsaved" }, unsaved.map((e) => Object.entries(e.fields).filter(([, v]) => typeof v === "string")
          .map(([k, v]) => `${k}: ${v}`).join("\n")).filter(Boolean).join("\n\n"))) : null,
    );
  };

  /** Whether an item of the server's "missing" list is still missing in the page's state
   *  (the server decides again at the next Mark done; this only drops what was fixed). */
  const stillMissing = (m) => {
    const empty = (v) => v == null || v === "" || (Array.isArray(v) && !v.length);
    if (m.edit_id != null) {
      const edit = state.edits.find((e) => e.id === m.edit_id);
      if (!edit) return false;
      if (m.field.startsWith("spans.")) return !edit.spans.some((s) => s.side === m.field.slice(6));
      return empty(edit.fields[m.field]);
    }
    if (m.key) return empty(state.ratings.get(m.key)?.value);
    return true;
  };

  /** Keep the "not reviewed yet" count true while suggestions are handled (issue 35): a
   *  stale count stayed on screen after the last one was reviewed. */
  const refresh = () => {
    if (ctx.els.missing.dataset.shows === "missing") {
      const still = shownMissing.filter(stillMissing);
      // Redrawn without taking the focus: the annotator is typing the missing answer.
      if (still.length !== shownMissing.length) showMissing(still, { focus: false });
      return;
    }
    if (ctx.els.missing.dataset.shows !== "unreviewed") return;
    const open = visibleSuggestions(state).length;
    if (!open) { showMissing(null); return; }
    ctx.els.missing.querySelector(".missing-head strong").textContent =
      `${open} suggestion${open > 1 ? "s" : ""} not reviewed yet`;
  };

  return { markDone, skip, reopen, showMissing, conflictBanner, refresh };
}
