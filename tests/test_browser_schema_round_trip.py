"""What a schema file says reaches the page (issue 30): a field's ``placeholder`` shows in its
empty box, and the server's text limit (``limits.text``) is said while the annotator types,
before a save would be refused; nothing is cut short by the browser."""

from __future__ import annotations

from dataclasses import replace

import pytest

from annotator.core.limits import current_limits, use_limits
from tests.browser_helpers import drag_select, open_page, watch_errors
from tests.conftest import browser_login
from tests.helpers import schema_file_assignment

pytestmark = pytest.mark.browser

SCHEMA = """\
name: placeholders
title: Placeholders
edit_types:
  - name: deletion
    label: Deletion
    sides: [source]
    fields:
      - name: question
        label: Question
        type: text
        placeholder: "What dose did they get?"
      - name: answer
        label: Answer
        type: text
"""


@pytest.fixture
def study(database, users, tmp_path):
    return schema_file_assignment(database, tmp_path, "ph", "placeholders.yaml", SCHEMA)


def test_placeholder_and_text_limit_reach_the_page(page, live_server, study):
    use_limits(replace(current_limits(), max_text_chars=40))  # the live server's too
    errors = watch_errors(page)
    browser_login(page, live_server, "ana")
    open_page(page, live_server, study["assignment"])
    drag_select(page, "source", 0, 5)
    page.click("#popover [data-type=deletion]")
    question = page.locator("#edit-form [data-field=question]")
    assert question.get_attribute("placeholder") == "What dose did they get?"
    assert question.get_attribute("maxlength") is None  # never cut short by the browser

    question.fill("x" * 39)
    assert page.locator("#edit-form .too-long").count() == 0
    question.fill("x" * 45)
    warning = page.locator("#warn-question .too-long")
    assert warning.inner_text() == "45 characters: the limit is 40; shorten it to save."
    assert question.input_value() == "x" * 45
    assert errors == []
