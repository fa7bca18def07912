// A sign that the page has handled an input, for tests that check an input changed nothing
// (a key that must not make an edit, a selection that must not open a menu): once the
// page's handler for a kind of input ("key", "selection", "confirm") is done, including
// work it deferred to a timer or a promise, <html data-handled-KIND="n"> counts it.
// Waiting a fixed time proves only that nothing happened yet; waiting for this count
// proves the page has answered (docs/tests.md, "Waiting on conditions").

/** Count one handled input of `kind` on the document element. */
export function handled(kind) {
  const data = document.documentElement.dataset;
  const key = `handled${kind[0].toUpperCase()}${kind.slice(1)}`;
  data[key] = String(Number(data[key] || 0) + 1);
}

/** Count `kind` as handled once `result` (a handler's return value, maybe a promise)
 * settles; a rejection still reaches the page's error reporting. */
export function handledAfter(kind, result) {
  Promise.resolve(result).finally(() => handled(kind));
}
