"""Adjudication: turning several annotators' work on a document into one gold record.

Pure modules (no database):

- :mod:`grouping` groups edits of different annotators into candidate units (one per
  change, whatever granularity each annotator chose);
- :mod:`labels` holds the majority and tie rules for ratings and edit fields;
- :mod:`unit_evidence` says who marked what in a unit and who marked nothing overlapping it
  (what every reason is built from); :mod:`gold_spans` the span rules of a merged edit;
- :mod:`rules` holds the automatic edit rules (identical edits, edit-level majority).

Database side, layered so that no module imports one above it:

- :mod:`store` reads the annotators' original work, keeps the decision log (every step is a
  decision row plus an audit event) and the frozen candidate units;
- :mod:`decisions` (unit decisions, undo, reopen) and :mod:`ratings` (gold ratings, the
  third-annotator route) build on :mod:`store` only;
- :mod:`overview` says what is open, completes a document, runs the automatic rules and
  lists the queue;
- :mod:`gold` assembles a document's gold record; :mod:`view` the adjudication page's data;
  :mod:`coverage` counts, per edit type, what the rules decided and what is left.
"""
