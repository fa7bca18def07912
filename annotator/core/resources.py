"""Where the packaged folders are: inside the installed package (wheel) or, in a source
checkout, the repository's top-level folders."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # annotator/


def _folder(name: str) -> Path:
    installed = PACKAGE_DIR / name
    if installed.is_dir():
        return installed
    return PACKAGE_DIR.parent / name


def templates_dir() -> Path:
    return _folder("templates")


def guidelines_dir() -> Path:
    return _folder("guidelines")


def static_dir() -> Path:
    return PACKAGE_DIR / "static"


def demo_data_dir() -> Path:
    return PACKAGE_DIR / "demo_data"
