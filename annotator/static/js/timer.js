// Active time: a second counts only while the tab is visible and the annotator did something
// (key, mouse, scroll) within the last minute. Unreported seconds go to the server every
// ~15 s and when the page is hidden or left (fetch with keepalive: sendBeacon cannot carry
// the CSRF header).

export const IDLE_AFTER_MS = 60_000;
export const REPORT_EVERY_MS = 15_000;

export function formatDuration(seconds) {
  const s = Math.floor(seconds);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? h + ":" : ""}${mm}:${String(r).padStart(2, "0")}`;
}

/** start({initial, report(seconds, {keepalive}) -> Promise, display(text, active)}) */
export function startTimer({ initial = 0, report, display }) {
  let total = initial;
  let unreported = 0;
  let lastInput = Date.now();
  let last = Date.now();
  let stopped = false;
  const touch = () => { lastInput = Date.now(); };
  for (const type of ["keydown", "mousemove", "mousedown", "wheel", "scroll", "touchstart", "input"]) {
    window.addEventListener(type, touch, { passive: true, capture: true });
  }
  const active = () => document.visibilityState === "visible" && Date.now() - lastInput < IDLE_AFTER_MS;
  const tick = () => {
    const now = Date.now();
    const elapsed = Math.min((now - last) / 1000, 5); // a sleeping laptop is not work
    last = now;
    if (stopped) return;
    const on = active();
    if (on) { total += elapsed; unreported += elapsed; }
    display(formatDuration(total), on);
  };
  const send = (keepalive = false) => {
    tick();
    if (stopped || unreported < 0.5) return Promise.resolve();
    const seconds = Math.round(unreported * 10) / 10;
    unreported = 0;
    return report(seconds, { keepalive }).catch(() => { unreported += seconds; });
  };
  const ticker = setInterval(tick, 1000);
  const reporter = setInterval(() => send(false), REPORT_EVERY_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") send(true);
    else { last = Date.now(); touch(); }
  });
  window.addEventListener("pagehide", () => send(true));
  display(formatDuration(total), true);
  return {
    flush: () => send(false),
    stop() { send(false); stopped = true; clearInterval(ticker); clearInterval(reporter); },
    get total() { return total; },
  };
}
