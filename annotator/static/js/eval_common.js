// Shared by the evaluation pages: load the payload, render texts with highlights (text
// nodes only: model output is untrusted), save ratings through the annotation API, mark done.

import { api, request } from "./api.js";
import { el } from "./dom.js";
import { showMissing, wireChrome } from "./eval_chrome.js";
import { ratingKey } from "./keys.js";
import { renderMarkedText, sliceText } from "./marks.js";

/** Load the page's payload; returns ctx with state, save(), locked(). */
export async function boot() {
  const root = document.getElementById("eval");
  const id = Number(root.dataset.assignment);
  const data = await request("GET", `/eval/api/assignments/${id}`);
  const ratings = new Map(data.ratings.map((r) => [r.key, r]));
  const saveState = document.getElementById("save-state");
  const statusEl = document.getElementById("status");
  const ctx = { id, data, ratings, pending: 0 };
  ctx.locked = () => data.read_only || data.assignment.status === "done";
  ctx.rating = (level, item, field) => ratings.get(ratingKey(level, item, field));
  ctx.setAssignment = (a) => {
    data.assignment = { ...data.assignment, ...a };
    statusEl.className = `status ${a.status}`;
    statusEl.textContent = a.status.replace("_", " ");
  };
  // Saves of one rating go one after the other: each sends the version the previous one got
  // back (a second click on a fresh rating must not leave with version null while the first
  // is still creating it: that would be refused as a conflict and the second value lost).
  const queues = new Map();
  const send = async (key, body) => {
    const current = ratings.get(key);
    saveState.textContent = "Saving…";
    saveState.dataset.state = "saving";
    try {
      const result = await api.rate(id, { ...body, version: current ? current.version : null });
      ratings.set(key, result.rating);
      ctx.setAssignment(result.assignment);
      if (ctx.pending === 1) {
        saveState.textContent = "All changes saved";
        saveState.dataset.state = "saved";
      }
    } catch (err) {
      saveState.textContent = `Not saved: ${err.message}`;
      saveState.dataset.state = "error";
    } finally {
      ctx.pending -= 1;
    }
  };
  ctx.save = (level, item, field, value, rationale) => {
    const key = ratingKey(level, item, field);
    const body = { level, item, field, value };
    if (rationale !== undefined) body.rationale = rationale;
    ctx.pending += 1;
    const saved = (queues.get(key) || Promise.resolve()).then(() => send(key, body));
    queues.set(key, saved);
    saved.then(() => { if (queues.get(key) === saved) queues.delete(key); });
    return saved;
  };
  const done = document.getElementById("btn-done");
  const missing = document.getElementById("missing");
  done.hidden = data.read_only || data.assignment.status === "done" || (data.tiebreak || []).length > 0;
  done.addEventListener("click", async () => {
    try {
      await ctx.timer?.flush(); // time first: the server adds none to a done document
      const result = await request("POST", `/eval/api/assignments/${id}/status`,
        { status: "done", version: data.assignment.version });
      ctx.setAssignment(result.assignment);
      missing.hidden = true;
      done.hidden = true;
      ctx.timer?.stop();
      ctx.onLock?.();
    } catch (err) {
      showMissing(ctx, err.message, (err.data && err.data.missing) || []);
    }
  });
  wireChrome(ctx);
  return ctx;
}

/**
 * Render `text` into `node` with code-point ranges [[s, e, cls], ...] highlighted: the
 * shared segmentation of marks.js, each highlighted segment a <mark> with the class of
 * every range covering it (a reference and a model evidence that overlap show both), and
 * the first highlight scrolled into view.
 */
export function renderHighlighted(node, text, ranges) {
  const marks = ranges.map(([start, end, cls]) => ({ start, end, cls }));
  renderMarkedText(node, text, marks, { markTag: "mark",
    decorate: (seg, covering) => seg.classList.add(...covering.map((m) => m.cls)) });
  node.querySelector("mark")?.scrollIntoView({ block: "nearest" });
}

/** The text of code-point ranges, joined with " … ". */
export function snippet(text, spans) {
  return spans.map(([s, e]) => sliceText(text, s, e)).join(" … ");
}

/** A radio group for one rating field. */
export function radios(spec, name, current, disabled, onChange) {
  return el("span", { class: "seg-control", role: "radiogroup", "aria-label": spec.label },
    spec.options.map((o) => {
      const input = el("input", { type: "radio", name, value: String(o.value), checked: current === o.value, disabled });
      input.addEventListener("change", () => onChange(o.value));
      return el("label", { title: o.label }, input, el("span", {}, o.label));
    }));
}

/** Previous / next navigation over `count` items; calls show(i). */
export function pager(count, show) {
  let index = 0;
  const pos = document.getElementById("item-pos");
  const go = (i) => {
    index = Math.max(0, Math.min(count - 1, i));
    pos.textContent = count ? `Item ${index + 1} of ${count}` : "Nothing to rate";
    if (count) show(index);
  };
  document.getElementById("prev").addEventListener("click", () => go(index - 1));
  document.getElementById("next").addEventListener("click", () => go(index + 1));
  go(0);
  return { go, current: () => index };
}
