"""Adjudication: turning several annotators' work on a document into one gold record.

- :mod:`grouping` (pure) groups edits of different annotators into candidate units;
- :mod:`labels` (pure) holds the majority and tie rules for ratings and edit fields;
- :mod:`decisions` stores every adjudication step (the audit trail) and the gold values;
- :mod:`gold` assembles the current gold record of a document;
- :mod:`queue` lists the documents ready for adjudication, least agreement first.
"""
