// Small DOM helpers shared by the pages. Text is only ever set through textContent (a
// string child becomes a text node), never through innerHTML: texts and edits come from
// models and annotators and are untrusted.

/**
 * el("button", {class: "accept", type: "button", onclick: fn, "aria-label": "..."}, "Accept")
 * `class` and `dataset: {...}` as expected; data-*, aria-*, role, for and tabindex are set as
 * attributes; on* keys become event listeners; anything else is set as a property (value,
 * checked, disabled, hidden, ...), so a textarea's value and a select's choice work.
 * Children may be strings, nodes, null/undefined (skipped) or arrays of those.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role" || key === "for" || key === "tabindex") node.setAttribute(key, String(value));
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child);
  }
}

/** Show a message in an alert box (hidden when the message is empty). */
export function showMessage(box, message) {
  box.textContent = message || "";
  box.hidden = !message;
}

/** True when a key event comes from a place where the user types (no shortcuts there). */
export function typing(event) {
  const t = event.target;
  return !!t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));
}

/** replaceChildren, skipping the null / undefined / false placeholders of optional parts. */
export function fill(container, ...children) {
  container.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
