// Synchronized scrolling: the sentence at the reading line (a third down the panel) on one
// side brings its aligned sentence(s) to the same line on the other side. Without an
// alignment (or for an unaligned sentence) the panels scroll proportionally.

const LINE = 0.3;

/** Sentence alignment as maps side -> sentence index -> aligned indices on the other side. */
export function alignmentMaps(doc, nSource, nTarget) {
  const maps = { source: new Map(), target: new Map() };
  const link = (s, t) => {
    if (!maps.source.has(s)) maps.source.set(s, []);
    if (!maps.target.has(t)) maps.target.set(t, []);
    maps.source.get(s).push(t);
    maps.target.get(t).push(s);
  };
  if (doc.alignment && doc.alignment.length) {
    for (const [src, tgt] of doc.alignment) for (const s of src) for (const t of tgt) link(s, t);
  } else if (doc.sentence_pairs && doc.sentence_pairs.length) {
    for (const [s, t] of doc.sentence_pairs) link(s, t);
  } else if (nSource === nTarget) {
    for (let i = 0; i < nSource; i++) link(i, i);
  }
  for (const m of Object.values(maps)) for (const v of m.values()) v.sort((a, b) => a - b);
  return maps;
}

function box(scroller, el) {
  const base = scroller.getBoundingClientRect().top - scroller.scrollTop;
  const r = el.getBoundingClientRect();
  return { top: r.top - base, bottom: r.bottom - base };
}

export function syncScroll(ctx, scrollers) {
  const quietUntil = { source: 0, target: 0 };
  let frame = null;

  const follow = (from) => {
    const to = from === "source" ? "target" : "source";
    const a = scrollers[from], b = scrollers[to];
    quietUntil[to] = Date.now() + 120;
    const maxA = a.scrollHeight - a.clientHeight, maxB = b.scrollHeight - b.clientHeight;
    if (a.scrollTop <= 0) { b.scrollTop = 0; return; }
    if (a.scrollTop >= maxA - 1) { b.scrollTop = maxB; return; }
    const line = a.scrollTop + a.clientHeight * LINE;
    const sentences = ctx.sentenceEls[from] || [];
    let index = -1, fraction = 0;
    for (let i = 0; i < sentences.length; i++) {
      if (!sentences[i]) continue;
      const r = box(a, sentences[i]);
      if (r.top <= line) { index = i; fraction = Math.min(1, (line - r.top) / Math.max(1, r.bottom - r.top)); }
      else break;
    }
    const partners = index >= 0 ? ctx.alignment[from].get(index) : null;
    const others = ctx.sentenceEls[to] || [];
    if (partners && partners.length && others[partners[0]] && others[partners[partners.length - 1]]) {
      const first = box(b, others[partners[0]]), last = box(b, others[partners[partners.length - 1]]);
      const y = first.top + fraction * (last.bottom - first.top);
      b.scrollTop = Math.max(0, Math.min(maxB, y - b.clientHeight * LINE));
    } else {
      b.scrollTop = maxA > 0 ? (a.scrollTop / maxA) * maxB : 0;
    }
  };

  for (const side of ["source", "target"]) {
    scrollers[side].addEventListener("scroll", () => {
      if (!ctx.syncEnabled() || Date.now() < quietUntil[side]) return;
      if (frame) cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => { frame = null; follow(side); });
    }, { passive: true });
  }
  return { follow };
}

/** Scroll a panel so an element sits at the reading line (if it is not already visible). */
export function reveal(scroller, el) {
  if (!el) return;
  const r = box(scroller, el);
  if (r.top >= scroller.scrollTop + 8 && r.bottom <= scroller.scrollTop + scroller.clientHeight - 8) return;
  scroller.scrollTop = Math.max(0, r.top - scroller.clientHeight * LINE);
}
