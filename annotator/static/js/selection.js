// Turning a text selection (mouse drag, or shift+arrows with caret browsing) into a span in
// code points, snapped to word boundaries; a plain click on a highlight reports the segment.

import { handled } from "./handled.js";
import { rangeToOffsets, snapToWords } from "./offsets.js";

/**
 * texts: {source: Element, target: Element}; getCps(side) -> code point array;
 * onSelect({side, start, end, rect}); onClick(segmentElement, side).
 */
export function watchSelection(texts, getCps, { onSelect, onClick }) {
  const sideOf = (node) => Object.keys(texts).find((side) => texts[side].contains(node));
  const handle = (event) => {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) {
      if (event.type === "mouseup" && event.button === 0 && event.target.closest) {
        const seg = event.target.closest(".seg");
        const side = seg && sideOf(seg);
        if (side) onClick(seg, side);
      }
      return;
    }
    const range = sel.getRangeAt(0);
    const side = sideOf(sel.anchorNode) || sideOf(range.startContainer);
    if (!side) return;
    const offsets = rangeToOffsets(texts[side], range);
    if (!offsets) return;
    const snapped = snapToWords(getCps(side), offsets[0], offsets[1]);
    if (!snapped) return;
    const rects = range.getClientRects();
    const rect = rects.length ? rects[rects.length - 1] : range.getBoundingClientRect();
    onSelect({ side, start: snapped[0], end: snapped[1], rect });
  };
  // A double-click whose first click landed outside the texts (on a menu choice that then
  // closed) must not turn its second click into a word selection under the closed menu.
  let firstClickInText = true;
  // The selection is read once the mouseup's own click has run (a menu choice clears it),
  // but only if no new press came in between: the browser runs input before timers, so the
  // second press of a quick double-click can select a word under the closed menu before
  // the first release is handled, and that word is not what the first release selected.
  let presses = 0;
  document.addEventListener("mousedown", (e) => {
    presses += 1;
    if (e.detail <= 1) firstClickInText = Boolean(sideOf(e.target));
  }, true);
  document.addEventListener("mouseup", (e) => {
    if (e.detail > 1 && !firstClickInText) { clearSelection(); handled("selection"); return; }
    const press = presses;
    setTimeout(() => { if (presses === press) handle(e); handled("selection"); }, 0);
  });
  for (const el of Object.values(texts)) {
    el.addEventListener("keyup", (e) => { if (e.shiftKey) handle(e); });
  }
}

export function clearSelection() {
  const sel = window.getSelection();
  if (sel) sel.removeAllRanges();
}
