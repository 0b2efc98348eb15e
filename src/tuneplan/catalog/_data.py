"""Reading the bundled catalog files (internal).

The files live in ``tuneplan/catalog/data/`` and are read with :mod:`importlib.resources`, so they
load the same from a source checkout, an installed wheel, a zip import or a PyInstaller bundle.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

_PACKAGE = "tuneplan.catalog"


def read_text(name: str) -> str:
    """Return the UTF-8 text of the bundled data file ``data/<name>``.

    Raises:
        FileNotFoundError: if the file is not bundled (a packaging error).
    """
    return resources.files(_PACKAGE).joinpath("data", name).read_text(encoding="utf-8")


def read_csv(name: str) -> list[dict[str, str]]:
    """Rows of the bundled CSV ``data/<name>`` as dicts of stripped strings (header = keys)."""
    reader = csv.DictReader(io.StringIO(read_text(name)))
    return [{k.strip(): (v or "").strip() for k, v in row.items() if k is not None} for row in reader]


def to_float(text: str, default: float | None = None) -> float | None:
    """Parse a CSV number; empty or non-numeric text gives ``default``."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return default
