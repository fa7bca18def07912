"""Flash messages, bounded (issue 41, finding 9).

A flash message lives in the session cookie until the next page shows it, and messages
echo what was sent ("Release {version} queued", "Not changed: {reason}"): a 5,000-character
release version grew the cookie past the 4,096 bytes browsers keep, so the session (and
the login) was lost. Every page flashes through :func:`flash`, which keeps at most
``MAX_FLASH_CHARS`` characters and says how long the message was.
"""

from __future__ import annotations

from flask import flash as flask_flash

# Room for a sentence and the values it names; the cookie stays far below 4 KB even with
# a few messages queued (each is also signed and base64-encoded).
MAX_FLASH_CHARS = 400


def bounded(message: str, limit: int = MAX_FLASH_CHARS) -> str:
    if len(message) <= limit:
        return message
    return f"{message[:limit]}... (cut: {len(message):,} characters)"


def flash(message: str, category: str = "message") -> None:
    flask_flash(bounded(message), category)
