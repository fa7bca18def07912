// Marking the document done, skipping it or reopening it; the way on to the next document;
// the list of what blocks or warns before "done" (done_check.js); banners.

import { api } from "./api.js";
import { el, fill } from "./dom.js";
import { doneWarnings, problemList } from "./done_check.js";
import { visibleSuggestions } from "./highlights.js";

export function makeStatus(ctx) {
  const { state } = ctx;

  // The problems list (done_check.js): what blocks, as the server last named it (entries
  // leave as they are fixed), and what warns, as the page's state says now.
  let shownMissing = [];
  let shownSignature = "";
  // The warnings shown when nothing blocked: Mark done again with the same ones goes
  // through (as "Mark done anyway"); reviewing a suggestion or fixing a warning asks again.
  let warnedAt = null;
  const warningCount = (w) => w.suggestions.length + w.guidance.length;

  const showMissing = (missing, { focus = true } = {}) => {
    const box = ctx.els.missing;
    const warnings = doneWarnings(ctx);
    if (!missing || (!missing.length && !warningCount(warnings))) {
      delete box.dataset.shows;
      box.hidden = true; box.replaceChildren(); shownMissing = []; shownSignature = "";
      return;
    }
    const signature = JSON.stringify([missing.map((m) => m.message), warnings]);
    if (!focus && signature === shownSignature) return; // unchanged: keep the focus where it is
    shownMissing = missing;
    shownSignature = signature;
    box.hidden = false;
    box.dataset.shows = "missing";
    box.replaceChildren(...problemList(ctx, missing, warnings,
      { hide: () => showMissing(null), anyway: () => markDone({ anyway: true }) }));
    if (focus) box.querySelector("li button")?.focus();
  };

  /** Save what is pending (the server checks and stores what the page shows); false when
   *  that failed (said so). */
  const saveFirst = async (what) => {
    ctx.setSaveState("saving");
    await ctx.saver.flushAll();
    ctx.saver.emit();
    if (ctx.saver.state === "conflict") return false;
    if (ctx.saver.state === "error" || ctx.saver.state === "offline") {
      ctx.notify(`Some changes are not saved yet; fix them before ${what}.`);
      return false;
    }
    return true;
  };

  /** Save what is pending, then ask the server for the new status (with the version the
   *  page holds: a stale page is refused with 409). Resolves to the answer or null. */
  const closeAs = async (status, what) => {
    if (!(await saveFirst(what))) return null;
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

  /** Everything that blocks or warns, listed at once before "done" is asked for; with
   *  nothing blocking, a second Mark done (or "Mark done anyway") goes through. */
  const markDone = async ({ anyway = false } = {}) => {
    if (ctx.locked()) return;
    const what = "marking the document done";
    try {
      if (!anyway) {
        if (!(await saveFirst(what))) return;
        const { missing } = await api.missing(ctx.id);
        const warned = warningCount(doneWarnings(ctx));
        if (missing.length || (warned && warnedAt !== warned)) {
          warnedAt = missing.length ? null : warned;
          showMissing(missing);
          return;
        }
      }
      const open = visibleSuggestions(state).length;
      if (!(await closeAs("done", what))) return;
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

  /** Keep the list true while the annotator works through it (issue 35: a stale count
   *  stayed on screen after the last suggestion was reviewed): fixed entries leave, the
   *  warnings are counted again; redrawn without taking the focus (the annotator is typing
   *  the missing answer). */
  const refresh = () => {
    if (ctx.els.missing.dataset.shows !== "missing") return;
    showMissing(shownMissing.filter(stillMissing), { focus: false });
  };

  return { markDone, skip, reopen, showMissing, conflictBanner, refresh };
}
