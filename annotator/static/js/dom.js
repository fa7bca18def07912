// Small DOM helpers shared by every page. Text is only ever set through textContent (a
// string child becomes a text node), never through innerHTML: texts and edits come from
// models and annotators and are untrusted.

// Keys whose live state is a property, not the attribute: a textarea has no value
// attribute, and a checkbox's or option's attribute is only its default.
const PROPERTIES = new Set(["value", "checked", "selected", "indeterminate", "textContent",
  "defaultValue", "defaultChecked"]);
// Keys that would parse markup: refused, so untrusted text can never become HTML.
const MARKUP = new Set(["innerHTML", "outerHTML"]);

/**
 * el("button", {class: "accept", type: "button", onclick: fn, "aria-label": "..."}, "Accept")
 *
 * - `class` sets the class list; `dataset: {...}` the data-* entries (null/undefined skipped);
 * - on* keys with a function become event listeners;
 * - value, checked, selected, indeterminate, textContent (and the default* twins) are set
 *   as properties, after the children, so a select's value finds its options;
 * - aria-* keys are set as attributes with booleans written out ("true"/"false": ARIA
 *   states are words, not HTML boolean attributes);
 * - every other key is an attribute (for, role, maxlength, readonly, colspan, list,
 *   contenteditable, ...): true -> "" (present), false / null / undefined -> not set.
 * Children may be strings, numbers, nodes, null/undefined/false (skipped) or arrays of
 * those nested at any depth (rows of [separator, <kbd>] pairs).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  const properties = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (MARKUP.has(key)) throw new Error(`el(): ${key} is refused; pass text as children`);
    if (key.startsWith("aria-") && typeof value === "boolean") node.setAttribute(key, String(value));
    else if (value === undefined || value === null || value === false) continue;
    else if (key === "class") node.className = value;
    else if (key === "dataset") {
      for (const [name, v] of Object.entries(value)) if (v !== undefined && v !== null) node.dataset[name] = v;
    } else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (PROPERTIES.has(key)) properties.push([key, value]);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...present(children));
  for (const [key, value] of properties) node[key] = value;
  return node;
}

/** Children without the null / undefined / false placeholders of optional parts, nested
 * arrays flattened at any depth (an inner array appended as is would become its string
 * ",[object HTMLElement]"). */
function present(children) {
  return children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false);
}

/** replaceChildren, skipping the null / undefined / false placeholders of optional parts. */
export function fill(container, ...children) {
  container.replaceChildren(...present(children));
}

/** Show a message in an alert box (hidden when the message is empty). */
export function showMessage(box, message) {
  box.textContent = message || "";
  box.hidden = !message;
}

/** Enable a button, or disable it and say why on hover (issue 43: grey buttons gave no
 *  reason). ``why`` is the reason it is off, or "" when it is on; ``usual`` is its title
 *  when on (a shortcut, say), kept before the reason when off. */
export function disableBecause(button, why, usual = "") {
  button.disabled = Boolean(why);
  const title = why && usual ? `${usual}: ${why}` : why || usual;
  if (title) button.title = title; else button.removeAttribute("title");
}

/** True when `target` (an event's target) is a place where the user types, so single-key
 * shortcuts must leave the key to it. Radio buttons, checkboxes and buttons are not: the
 * shortcuts keep working while one of them has the focus. */
export function typing(target) {
  return !!target && (target.isContentEditable || ["TEXTAREA", "SELECT"].includes(target.tagName) ||
    (target.tagName === "INPUT" && !["radio", "checkbox", "button"].includes(target.type)));
}
