// Undo / redo (Ctrl+Z, Ctrl+Shift+Z) of the annotator's actions on the page: spans, fields,
// type changes, new and deleted edits, accepted and dismissed suggestions. A step holds the
// state before and after of each thing it changed; undoing writes the "before" state back
// through the ordinary saving path, so every undo is a new versioned save (an edit PUT
// with the version last seen, a re-created edit, a withdrawn suggestion action) and a
// conflict stops it like any other save.

import { api } from "./api.js";
import { sortSpans } from "./spans.js";

const COALESCE_MS = 1500; // keystrokes in one field closer than this are one step
const LIMIT = 200;

/** What the history keeps of an edit: enough to write it back (or create it again). */
export function snapshot(edit) {
  if (!edit) return null;
  return { edit_type: edit.edit_type, fields: structuredClone(edit.fields),
    spans: edit.spans.map((s) => ({ ...s })), suggestion_id: edit.suggestion_id ?? null };
}

export function makeHistory(ctx) {
  const done = [];
  const undone = [];
  let applying = false;
  let busy = Promise.resolve();

  /**
   * Record one step: {label, changes: [{type: "edit", key, before, after} |
   * {type: "suggestion", id, before, after, editKey}]}. `coalesce` merges it into the
   * previous step when that one has the same tag and is recent (typing in one field).
   */
  const record = (step, coalesce = null) => {
    if (applying) return;
    const now = Date.now();
    const top = done[done.length - 1];
    if (coalesce && top && top.coalesce === coalesce && now - top.at < COALESCE_MS) {
      top.changes = top.changes.map((c, i) => ({ ...c, after: step.changes[i].after }));
      top.at = now;
    } else {
      done.push({ ...step, coalesce, at: now });
      if (done.length > LIMIT) done.shift();
    }
    undone.length = 0;
    ctx.onHistory?.();
  };

  const applyEdit = async (change, to) => {
    const edit = ctx.edits.find(change.key);
    if (to === null) {
      if (edit) {
        await ctx.edits.remove(edit);
        if (ctx.state.activeKey === edit.key) ctx.state.activeKey = null;
      }
      return;
    }
    const copy = structuredClone(to);
    if (!edit) {
      // Deleted (or undone creation): create it again under the same key; the server gives
      // it a new id and the version starts over.
      ctx.edits.create(copy.edit_type, { key: change.key, spans: copy.spans, fields: copy.fields,
        suggestion_id: copy.suggestion_id, now: true });
      return;
    }
    Object.assign(edit, { edit_type: copy.edit_type, fields: copy.fields, spans: sortSpans(copy.spans) });
    await ctx.edits.save(edit, 0);
  };

  const applySuggestion = async (change, to) => {
    const s = ctx.suggestions.find(change.id);
    if (!s) return;
    s.action = to;
    let editId;
    if (to === "accepted" && change.editKey) {
      const edit = ctx.edits.find(change.editKey);
      if (edit) { await ctx.saver.start(edit.key); editId = edit.id ?? undefined; }
    }
    await api.suggestion(ctx.id, s.id, { action: to, edit_id: editId });
  };

  const run = (from, to, direction) => {
    const step = from.pop();
    if (!step) { ctx.notify(direction === "undo" ? "Nothing to undo." : "Nothing to redo."); return Promise.resolve(); }
    applying = true;
    const changes = direction === "undo" ? [...step.changes].reverse() : step.changes;
    const task = (async () => {
      for (const change of changes) {
        const state = direction === "undo" ? change.before : change.after;
        if (change.type === "edit") await applyEdit(change, state);
        else await applySuggestion(change, state);
      }
    })().finally(() => { applying = false; });
    // The page changes at once; the requests follow in order.
    ctx.formKey = null;
    ctx.render();
    to.push(step);
    ctx.notify(`${direction === "undo" ? "Undone" : "Redone"}: ${step.label}. ` +
      (direction === "undo" ? "Ctrl+Shift+Z redoes it." : "Ctrl+Z undoes it again."));
    ctx.onHistory?.();
    return task.then(() => { ctx.formKey = null; ctx.render(); }).catch((err) => {
      if (err && err.status === 409) ctx.conflict(err);
      else ctx.notify(`Could not ${direction}: ${err.message}`);
    });
  };

  const guarded = (fn) => () => {
    if (ctx.locked()) { ctx.notify("This document cannot be changed now."); return Promise.resolve(); }
    busy = busy.then(fn, fn);
    return busy;
  };

  return {
    record,
    undo: guarded(() => run(done, undone, "undo")),
    redo: guarded(() => run(undone, done, "redo")),
    get canUndo() { return done.length > 0; },
    get canRedo() { return undone.length > 0; },
    get applying() { return applying; },
  };
}
