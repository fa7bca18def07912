"""The one place where a file or folder name is built from data (user names, project names,
release versions from imported files or forms).

Names from another group's files are untrusted: ``../../outside/x`` as an annotator name
must not make an export write outside its folder. :func:`file_component` turns any string
into a single path component that is safe on POSIX and Windows and keeps distinct names
distinct (the encoding is injective), and :func:`child_path` joins components under a root
and refuses anything that would resolve outside it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

# Kept as is: letters, digits, '_', '-', '.', and any non-ASCII letter or digit (so a
# Japanese user name stays readable). Everything else is written %XX (UTF-8 bytes).
_KEPT = re.compile(r"[\w.-]")
# Names Windows reserves whatever the extension (CON.json is the console).
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
             *(f"LPT{i}" for i in range(10))}
MAX_COMPONENT_BYTES = 200  # below the 255-byte limit of common file systems, with room for a suffix
_HASH_CHARS = 16  # 64 bits of SHA-256: names of one project do not collide by chance


class UnsafePathError(ValueError):
    """A name could not be made into a path inside the intended folder."""


def _encode_char(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))


def file_component(name: str) -> str:
    """``name`` as one safe path component, e.g. ``../../x`` -> ``%2E%2E%2F%2E%2E%2Fx``.

    Separators, control characters, '%' and every other punctuation are percent-encoded; a
    leading or trailing dot or space is encoded too (hidden files, '..', and Windows'
    silent trailing-dot stripping); Windows reserved device names get their first letter
    encoded. Distinct names give distinct components. Refuses the empty name; a name whose
    encoding exceeds :data:`MAX_COMPONENT_BYTES` is shortened with a hash of the whole
    name (never plainly truncated: truncation could make two names collide).
    """
    if not isinstance(name, str) or name == "":
        raise UnsafePathError(f"empty name {name!r} cannot be a file name")
    out = []
    for i, char in enumerate(name):
        edge = i == 0 or i == len(name) - 1
        if _KEPT.fullmatch(char) and char.isprintable() and not (edge and char == "."):
            out.append(char)
        else:
            out.append(_encode_char(char))
    component = "".join(out)
    if component.split(".")[0].upper() in _RESERVED:
        component = _encode_char(component[0]) + component[1:]
    if len(component.encode("utf-8")) > MAX_COMPONENT_BYTES:
        component = _shortened(component, name)
    return component


def _shortened(component: str, name: str) -> str:
    """A component over the byte budget as its readable start, '~' and a hash of the whole
    name: within :data:`MAX_COMPONENT_BYTES`, and still distinct from every other name's
    component ('~' is always percent-encoded in a component that was not shortened, and
    two long names differ in their hashes). A user name of 70 slashes is 210 bytes once
    encoded: refusing it would make its project impossible to release."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    budget = MAX_COMPONENT_BYTES - len(digest) - 1
    start = component.encode("utf-8")[:budget].decode("utf-8", "ignore")
    # Never end inside a %XX escape, nor on a dot (see the trailing-dot rule above).
    cut = start.rfind("%")
    if cut >= 0 and cut > len(start) - 3:
        start = start[:cut]
    return f"{start.rstrip('.')}~{digest}"


def child_path(root: Path, *components: str, suffix: str = "") -> Path:
    """``root / component / ... + suffix`` with every component made safe by
    :func:`file_component`; refuses a result that does not resolve inside ``root``
    (e.g. through a symbolic link planted in the folder)."""
    if not components:
        raise UnsafePathError("no file name given")
    parts = [file_component(c) for c in components]
    parts[-1] += suffix
    path = Path(root).joinpath(*parts)
    resolved_root = Path(root).resolve()
    if not path.resolve().is_relative_to(resolved_root):
        raise UnsafePathError(f"{path} resolves outside {resolved_root}; refused")
    return path


def project_slug(name: str) -> str:
    """The release folder name of a project: letters, digits, '.', '_' and '-'.

    Many names normalise to one slug (``trial.`` and ``trial``, ``Trial 2`` and
    ``Trial_2``), so the slug is stored on the project and checked unique (ignoring case)
    when the project is created: see :func:`annotator.study.projects.create_project`.
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip("._") or "unnamed"
    return cleaned[:100]
