// Selecting text without a mouse. Tab to one of the texts, then
//   → / ←            select the next / previous word,
//   Shift + → / ←    grow / shrink the selection by a word at its end,
//   Enter            use the selection: add it to the open edit, or offer the edit types,
//   Escape           drop it.
// The selection is a real DOM selection (visible as usual), snapped to the same words a
// mouse selection snaps to.

import { offsetsToRange, snapToWords } from "./offsets.js";

const WORD = /[\p{L}\p{N}\p{M}]/u;

/** Word ranges [[start, end], …] of a code point array (hyphenated words stay whole). */
export function wordRanges(cps) {
  const words = [];
  let i = 0;
  while (i < cps.length) {
    if (!WORD.test(cps[i])) { i++; continue; }
    const [s, e] = snapToWords(cps, i, i + 1);
    let end = e;
    while (end < cps.length && WORD.test(cps[end])) end = snapToWords(cps, end, end + 1)[1];
    words.push([s, end]);
    i = end;
  }
  return words;
}

/** ctx: the page; scrollers/texts: {side: Element}; onUse({side, start, end, rect}). */
export function watchCaret(ctx, scrollers, texts, onUse) {
  const cache = {};
  const words = (side) => (cache[side] ||= wordRanges(ctx.state.cps[side]));
  const at = {}; // side -> {first, last} word indexes of the current selection

  const show = (side) => {
    const list = words(side);
    const { first, last } = at[side];
    const range = offsetsToRange(texts[side], list[first][0], list[last][1]);
    if (!range) return;
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    const rect = range.getBoundingClientRect();
    const box = scrollers[side].getBoundingClientRect();
    if (rect.top < box.top + 20 || rect.bottom > box.bottom - 20) {
      scrollers[side].scrollTop += rect.top - box.top - box.height / 3;
    }
  };

  /** The first word visible at the top of the scroller: where a keyboard selection starts. */
  const firstVisible = (side) => {
    const top = scrollers[side].getBoundingClientRect().top;
    const seg = [...texts[side].querySelectorAll(".seg")].find((s) => s.getBoundingClientRect().bottom > top + 4);
    const a = seg ? Number(seg.dataset.a) : 0;
    const i = words(side).findIndex(([, e]) => e > a);
    return Math.max(0, i);
  };

  for (const [side, scroller] of Object.entries(scrollers)) {
    scroller.addEventListener("keydown", (event) => {
      if (event.target !== scroller || event.ctrlKey || event.metaKey || event.altKey) return;
      const list = words(side);
      if (!list.length) return;
      const cur = at[side];
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        const delta = event.key === "ArrowRight" ? 1 : -1;
        event.preventDefault();
        event.stopPropagation();
        if (!cur) {
          const i = firstVisible(side);
          at[side] = { first: i, last: i };
        } else if (event.shiftKey) {
          cur.last = Math.min(list.length - 1, Math.max(cur.first, cur.last + delta));
        } else {
          const i = Math.min(list.length - 1, Math.max(0, (delta > 0 ? cur.last : cur.first) + delta));
          at[side] = { first: i, last: i };
        }
        show(side);
      } else if (event.key === "Enter" && cur) {
        event.preventDefault();
        event.stopPropagation();
        const range = window.getSelection().rangeCount ? window.getSelection().getRangeAt(0) : null;
        const rect = range ? range.getBoundingClientRect() : scroller.getBoundingClientRect();
        delete at[side];
        onUse({ side, start: list[cur.first][0], end: list[cur.last][1], rect });
      } else if (event.key === "Escape" && cur) {
        event.stopPropagation();
        delete at[side];
        window.getSelection().removeAllRanges();
      }
    });
    scroller.addEventListener("blur", () => { delete at[side]; });
  }
  return { reset() { for (const k of Object.keys(cache)) delete cache[k]; } };
}
