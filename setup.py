"""Package discovery (everything else is in pyproject.toml).

Every folder under annotator/ is a package, found automatically (folders holding only data,
such as static/ and demo_data/, as namespace packages), so a new sub-package can never be
forgotten. The top-level templates/ and guidelines/ folders travel inside the package as
annotator.templates and annotator.guidelines, so a plain `pip install .` gives a working app.
"""

from setuptools import find_namespace_packages, setup

SHIPPED_INSIDE = {"annotator.templates": "templates", "annotator.guidelines": "guidelines"}

setup(
    packages=find_namespace_packages(include=["annotator", "annotator.*"],
                                     exclude=["*.__pycache__"]) + list(SHIPPED_INSIDE),
    package_dir=SHIPPED_INSIDE,
)
