"""`python -m annotator` is the `annotator` command."""

from annotator.cli import main

main()
