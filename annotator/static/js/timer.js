// Active time: what the annotator spent on the document while the tab is visible. Each
// sign of presence (key, input, focus, pointer, wheel, scroll) closes the pause since the
// previous one: a pause up to IDLE_AFTER_MS (reading, thinking) counts in full, a longer
// one (away from the desk) counts not at all. The pause still open counts as long as it is
// within the limit when the page is hidden, left or marked done (the annotator was there
// until then). Counted seconds go to the server every ~15 s while the annotator is present
// (each report then covers the time since the previous one: the server credits a report at
// most the wall-clock time since the previous, see annotate/store.add_time, so a report
// sent mid-pause would cut that pause short in the next), and when the page is hidden or
// left (fetch with keepalive: sendBeacon cannot carry the CSRF header).

export const IDLE_AFTER_MS = 60_000;
export const REPORT_EVERY_MS = 15_000;
const PRESENT_MS = 1_000; // a periodic report waits until the annotator acts again
const PRESENCE_EVENTS = ["keydown", "input", "focusin", "pointerdown", "pointermove",
  "mousemove", "mousedown", "wheel", "scroll", "touchstart"];

export function formatDuration(seconds) {
  const s = Math.floor(seconds);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? h + ":" : ""}${mm}:${String(r).padStart(2, "0")}`;
}

/** startTimer({initial, report(seconds, {keepalive}) -> Promise, display(text, active)}):
 *  counts while running; stop() when the document is closed, resume() when reopened. */
export function startTimer({ initial = 0, report, display }) {
  let total = initial; // counted seconds (closed pauses and activity)
  let unreported = 0;
  let lastSign = Date.now(); // the annotator's last sign of presence
  let running = true;
  const visible = () => document.visibilityState === "visible";
  const openPause = () => Date.now() - lastSign;
  const count = (ms) => { total += ms / 1000; unreported += ms / 1000; };
  /** Close the pause up to now: counted when within the idle limit (``shown``: the tab
   *  was visible through it; a visibilitychange to hidden reports the state already changed). */
  const settle = (shown = visible()) => {
    if (running && shown && openPause() <= IDLE_AFTER_MS) count(openPause());
    lastSign = Date.now();
  };
  const show = () => {
    const open = running && visible() && openPause() <= IDLE_AFTER_MS;
    display(formatDuration(total + (open ? openPause() / 1000 : 0)), open);
  };
  for (const type of PRESENCE_EVENTS) {
    window.addEventListener(type, () => settle(), { passive: true, capture: true });
  }
  const send = (keepalive = false) => {
    if (unreported < 0.5) return Promise.resolve();
    const seconds = Math.round(unreported * 10) / 10;
    unreported -= seconds;
    return report(seconds, { keepalive }).catch(() => { unreported += seconds; });
  };
  /** Count the open pause (the annotator was here until now) and report. */
  const leave = (keepalive, shown = visible()) => { settle(shown); return send(keepalive); };
  setInterval(show, 1000);
  setInterval(() => {
    // Present now (the last second counted too, so each report covers exactly the time
    // since the previous one), or gone past the limit (that pause is decided: not counted).
    if (openPause() <= PRESENT_MS) leave(false);
    else if (openPause() > IDLE_AFTER_MS) send(false);
  }, REPORT_EVERY_MS);
  let hidden = false; // the tab was hidden (and its time counted up to then)
  document.addEventListener("visibilitychange", () => {
    hidden = !visible();
    if (hidden) leave(true, true);
    else lastSign = Date.now(); // hidden time is not counted
  });
  window.addEventListener("pagehide", () => leave(true, !hidden));
  show();
  return {
    flush: () => leave(false),
    stop() {
      const sent = leave(false);
      running = false;
      show();
      return sent;
    },
    resume() {
      if (running) return; // the open pause is still the annotator's
      running = true;
      lastSign = Date.now();
      show();
    },
    get total() { return total; },
  };
}
