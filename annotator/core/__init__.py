"""Concepts every stage shares, each defined once: the vocabulary (sides, rating levels,
assignment statuses, roles), the ``level|item|field`` key of a rating item, the span check,
and the plain-data form of an edit, a rating, a suggestion and an assignment.

Pure: nothing here imports Flask or SQLAlchemy, so the pure stages (``align``,
``agreement``) may use it too; the serialisers only read attributes of the records they get.
"""
