"""The one DOM helper of every page (static/js/dom.js) in Chromium: `el` sets live state as
properties, everything else as attributes (the keys the pages pass: maxlength, readonly,
colspan, list, contenteditable, aria-*, data-*, ...), turns on* functions into listeners,
flattens nested children, never parses markup; `fill` skips placeholders."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PROBE = """async () => {
  const { el, fill, typing } = await import('/static/js/dom.js');
  const out = {};
  const area = el("textarea", { maxlength: 40, readonly: true, rows: 2, value: "typed", placeholder: "" });
  out.textarea = [area.value, area.getAttribute("maxlength"), area.maxLength, area.readOnly,
    area.getAttribute("readonly"), area.rows, area.getAttribute("placeholder")];
  const box = el("input", { type: "checkbox", checked: true, list: "kinds", disabled: false,
    "aria-pressed": false, "aria-hidden": "true", "data-start": 0, title: null });
  out.checkbox = [box.checked, box.getAttribute("list"), box.hasAttribute("disabled"),
    box.getAttribute("aria-pressed"), box.getAttribute("aria-hidden"), box.dataset.start,
    box.hasAttribute("title")];
  const mixed = el("input", { type: "checkbox", indeterminate: true });
  out.indeterminate = mixed.indeterminate;
  const cell = el("td", { colspan: 3, scope: "row", role: "cell", tabindex: 0 });
  out.cell = [cell.colSpan, cell.getAttribute("scope"), cell.getAttribute("role"), cell.tabIndex];
  const label = el("label", { for: "field-q", class: "field-label" }, "Question");
  out.label = [label.htmlFor, label.className];
  const select = el("select", { value: "b" }, el("option", { value: "a" }, "A"),
    [el("option", { value: "b" }, "B")], el("option", { value: "c", selected: true }, "C"));
  out.select = select.value;
  const div = el("div", { contenteditable: "false", hidden: true, dataset: { n: 1, skip: null } },
    "a", ["b", [null, ["c", false], 3]], undefined);
  out.div = [div.textContent, div.isContentEditable, div.hidden, JSON.stringify({ ...div.dataset })];
  let clicks = 0;
  el("button", { type: "button", onclick: () => { clicks += 1; } }).click();
  out.clicks = clicks;
  const text = el("p", {}, "<img src=x onerror=alert(1)>");
  out.markup = [text.children.length, text.textContent];
  try { el("p", { innerHTML: "<b>x</b>" }); out.refused = null; } catch (err) { out.refused = err.message; }
  const list = el("ul");
  fill(list, null, [el("li"), [el("li"), false, [el("li")]]], undefined);
  out.filled = list.children.length;
  out.typing = [typing(el("textarea")), typing(el("input", { type: "text" })),
    typing(el("input", { type: "radio" })), typing(el("button")), typing(null)];
  return out;
}"""


def test_el_sets_each_key_the_way_the_pages_need(page, live_server):
    page.goto(f"{live_server}/login")
    out = page.evaluate(PROBE)
    assert out["textarea"] == ["typed", "40", 40, True, "", 2, ""]
    assert out["checkbox"] == [True, "kinds", False, "false", "true", "0", False]
    assert out["indeterminate"] is True
    assert out["cell"] == [3, "row", "cell", 0]
    assert out["label"] == ["field-q", "field-label"]
    assert out["select"] == "b"  # the value set after the options exist
    assert out["div"] == ["abc3", False, True, '{"n":"1"}']
    assert out["clicks"] == 1
    assert out["markup"] == [0, "<img src=x onerror=alert(1)>"]
    assert out["refused"] and "innerHTML" in out["refused"]
    assert out["filled"] == 3
    assert out["typing"] == [True, True, False, False, False]
