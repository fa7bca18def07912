"""A study's set-up: projects, people, guidelines, the audit trail and the demo."""
