"""A study's foundation: projects, people, guidelines, the login throttle and the audit
trail. Imports no stage; work that spans stages lives in :mod:`annotator.operations`."""
