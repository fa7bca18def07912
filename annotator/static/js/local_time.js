// Times in the reader's own time zone and locale (issue 43: pages showed raw ISO UTC).
// The server writes every time as ISO 8601 UTC; a page puts it in
// <time datetime="ISO">ISO</time> and this module, loaded by every page (base.html),
// rewrites the visible text in local time while the datetime attribute keeps the ISO.

/** "27 Nov 2026, 00:18" in the reader's locale. The server writes UTC, with or without an
 *  offset (SQLite keeps none): a bare timestamp is read as UTC. */
export function readableTime(iso) {
  if (!iso) return "";
  const zoned = /[zZ]|[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`;
  const when = new Date(zoned.replace(" ", "T"));
  if (Number.isNaN(when.getTime())) return iso;
  return when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A <time> element for a server time: local text, the ISO kept in datetime and title. */
export function timeElement(iso) {
  const node = document.createElement("time");
  node.dateTime = iso || "";
  node.title = iso ? `${iso} (UTC)` : "";
  node.textContent = readableTime(iso);
  return node;
}

/** Rewrite every <time datetime> under root (not yet localised) in local time. */
export function localiseTimes(root = document) {
  for (const node of root.querySelectorAll("time[datetime]:not([data-local])")) {
    const iso = node.getAttribute("datetime");
    node.textContent = readableTime(iso);
    node.title = `${iso} (UTC)`;
    node.dataset.local = "1";
  }
}

localiseTimes();
