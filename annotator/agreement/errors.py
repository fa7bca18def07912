"""The one exception type of the agreement engine."""


class UndefinedAgreement(ValueError):
    """A coefficient has no value on this input; the message says why (one rater, one
    category only, all ratings missing, no pairable item...). Reports turn it into
    ``null`` plus an ``explanation`` string."""
