"""Annotation and adjudication of simplified biomedical text.

Data flows one way: ingest -> align -> annotate (web) -> agreement -> adjudication -> releases.
"""

__version__ = "0.1.0"
