// Edits in the client: create, change, save, delete. The page keeps its own copy; every
// change is saved through the Saver with the version last seen.

import { api } from "./api.js";
import { sortSpans, withSpan } from "./spans.js";
import { snapshot } from "./undo.js";

let counter = 0;

export function localEdit(raw, key = null) {
  return { ...raw, key: key || (raw.id ? `e${raw.id}` : `n${++counter}`), fields: { ...(raw.fields || {}) },
    spans: (raw.spans || []).map((s) => ({ ...s })) };
}

export function makeEdits(ctx) {
  const { state, saver } = ctx;

  const persist = async (edit, options) => {
    const body = { edit_type: edit.edit_type, fields: edit.fields, spans: edit.spans };
    let result;
    const isNew = edit.id == null;
    if (isNew) {
      result = await api.createEdit(ctx.id, { ...body, suggestion_id: edit.suggestion_id ?? undefined });
      edit.id = result.edit.id;
    } else {
      result = await api.updateEdit(edit.id, { ...body, version: edit.version }, options);
    }
    edit.version = result.edit.version;
    ctx.setAssignment(result.assignment);
    ctx.afterSave(edit, isNew);
  };

  const save = (edit, delay) => {
    if (ctx.locked()) return Promise.resolve();
    saver.schedule(edit.key, (options) => persist(edit, options), delay);
    return delay === 0 ? saver.start(edit.key) : Promise.resolve();
  };

  const find = (key) => state.edits.find((e) => e.key === key);

  /** Run `mutate` and record it as one undo step (before/after snapshots of the edit). */
  const tracked = (label, edit, mutate, coalesce = null) => {
    const before = snapshot(edit);
    const result = mutate();
    if (result !== false) {
      ctx.history?.record({ label, changes: [{ type: "edit", key: edit.key, before, after: snapshot(edit) }] }, coalesce);
    }
    return result;
  };
  const typeLabel = (edit) => (state.typesByName[edit.edit_type]?.label || edit.edit_type).toLowerCase();

  return {
    find,
    save,
    /** A new edit; saved once it has a span or a field value (or at once with `now`). */
    create(typeName, { spans = [], fields = {}, suggestion_id = null, now = false, key = null, track = true } = {}) {
      const edit = localEdit({ edit_type: typeName, spans, fields, suggestion_id, version: 0 }, key);
      sortSpans(edit.spans);
      state.edits.push(edit);
      if (now || spans.length || Object.keys(fields).length) save(edit, now ? 0 : 300);
      if (track) ctx.history?.record({ label: `new ${typeLabel(edit)}`, changes: [{ type: "edit", key: edit.key, before: null, after: snapshot(edit) }] });
      return edit;
    },
    addSpan(edit, side, start, end) {
      return tracked("span added", edit, () => addSpan(edit, side, start, end));
    },
    removeSpan(edit, index) {
      return tracked("span removed", edit, () => { edit.spans.splice(index, 1); save(edit, 0); });
    },
    setField(edit, name, value, delay) {
      const label = (state.typesByName[edit.edit_type]?.fields || []).find((f) => f.name === name)?.label || name;
      return tracked(`${label.toLowerCase()} changed`, edit, () => {
        if (value === "" || value === null || value === undefined) delete edit.fields[name];
        else edit.fields[name] = value;
        save(edit, delay);
      }, `${edit.key}|${name}`);
    },
    /** Change the type; spans on sides the new type does not allow are dropped. */
    setType(edit, typeName) {
      return tracked("type changed", edit, () => setType(edit, typeName));
    },
    async remove(edit) {
      const before = snapshot(edit);
      await remove(edit);
      ctx.history?.record({ label: `${typeLabel(edit)} deleted`, changes: [{ type: "edit", key: edit.key, before, after: null }] });
    },
  };

  function addSpan(edit, side, start, end) {
    // A new span that covers or touches an existing one of the same edit merges with it.
    const spans = withSpan(edit.spans, side, start, end);
    if (!spans) return false;
    edit.spans = spans;
    save(edit, 0);
    return true;
  }

  function setType(edit, typeName) {
    const type = state.typesByName[typeName];
    const dropped = edit.spans.filter((s) => !type.sides.includes(s.side));
    edit.spans = edit.spans.filter((s) => type.sides.includes(s.side));
    const names = new Set(type.fields.map((f) => f.name));
    for (const name of Object.keys(edit.fields)) if (!names.has(name)) delete edit.fields[name];
    edit.edit_type = typeName;
    save(edit, 0);
    return dropped.length;
  }

  async function remove(edit) {
    saver.cancel(edit.key);
    const task = saver.tasks.get(edit.key);
    if (task && task.inFlight) await task.inFlight;
    if (edit.id != null) {
      const result = await api.deleteEdit(edit.id, edit.version);
      ctx.setAssignment(result.assignment);
    }
    saver.tasks.delete(edit.key);
    state.edits = state.edits.filter((e) => e !== edit);
    saver.emit();
  }
}
