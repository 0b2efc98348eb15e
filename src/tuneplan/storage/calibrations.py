"""Pilot-run files and the saved calibrations (``calibrations.json`` in the user data directory).

``read_pilot(path)`` reads HF Trainer's ``trainer_state.json`` (or any JSON with its ``log_history``) or a CSV
export of step times, within a size limit, never executing anything; a bad file raises
:class:`~tuneplan.core.calibration.CalibrationError` or :class:`PilotFileError` with a one-line message.
``CalibrationBook`` keeps one calibration per hardware-and-stack key, written atomically.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tuneplan.core.calibration import Calibration, PilotRun, pilot_from_rows, pilot_from_trainer_state
from tuneplan.storage._fs import (
    UnsafeFileError,
    atomic_write_bytes,
    describe_os_error,
    loads_untrusted_json,
    read_regular_file,
)
from tuneplan.storage.files import ScenarioFileError, _load_json
from tuneplan.storage.paths import data_dir

__all__ = ["MAX_PILOT_BYTES", "CalibrationBook", "CalibrationBookError", "PilotFileError", "read_pilot"]

#: pilot files above this size are refused (a long run's trainer_state.json is a few MB)
MAX_PILOT_BYTES = 32 * 1024 * 1024
_FILE = "calibrations.json"


class PilotFileError(ValueError):
    """A pilot file that cannot be read (missing, too large, not JSON/CSV)."""


class CalibrationBookError(OSError):
    """``calibrations.json`` exists but is not a readable list: it is never overwritten."""


def _checkpoint_step(state: Path) -> int:
    """The step of ``checkpoint-<step>/trainer_state.json`` (-1 when the folder name has none)."""
    tail = state.parent.name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def _file_date(path: Path) -> str:
    try:
        return _dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
    except OSError:
        return ""


def read_pilot(path: str | Path, tokens_per_step: float | None = None) -> PilotRun:
    """What the pilot run in ``path`` measured (``.csv``: step-time rows; anything else: JSON trainer state).

    Args:
        path: the file.
        tokens_per_step: the plan's tokens per optimizer step per GPU, to turn a tokens/s column into step times.

    Raises:
        PilotFileError: unreadable, too large, not UTF-8, not JSON/CSV.
        CalibrationError: readable, but without the numbers a calibration needs.
    """
    p = Path(path).expanduser()
    if p.is_dir():  # HF Trainer's output_dir: its trainer_state.json, else the newest checkpoint's
        candidates = [p / "trainer_state.json"] + sorted(p.glob("checkpoint-*/trainer_state.json"),
                                                         key=_checkpoint_step, reverse=True)
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise PilotFileError(f"{p}: the folder has no trainer_state.json (nor checkpoint-*/trainer_state.json)")
        p = found
    date = _file_date(p)
    if p.suffix.lower() in {".csv", ".tsv"}:
        try:
            text = read_regular_file(p, MAX_PILOT_BYTES).decode("utf-8-sig")  # a FIFO/device: refused unread
        except UnsafeFileError as exc:
            if exc.reason == "not-regular":
                raise PilotFileError(f"{p}: not a regular file") from None
            raise PilotFileError(f"{p}: too large (the limit is {MAX_PILOT_BYTES // 2**20} MiB)") from None
        except FileNotFoundError:
            raise PilotFileError(f"{p}: no such file") from None
        except UnicodeDecodeError:
            raise PilotFileError(f"{p}: not a CSV file (not UTF-8 text)") from None
        except OSError as exc:
            raise PilotFileError(f"{p}: cannot read the file ({describe_os_error(exc)})") from None
        head = text[:4096]
        # the delimiter the file uses: tab, semicolon (spreadsheets in locales with a decimal comma) or comma
        delimiter = "\t" if p.suffix.lower() == ".tsv" or head.count("\t") > head.count(",") else \
            ";" if head.count(";") > head.count(",") else ","
        try:
            rows = list(csv.DictReader(io.StringIO(text), delimiter=delimiter))
        except csv.Error as exc:
            raise PilotFileError(f"{p}: not a readable CSV file ({exc})") from None
        return pilot_from_rows(rows, tokens_per_step=tokens_per_step, date=date)
    try:
        data = _load_json(p, MAX_PILOT_BYTES)
    except ScenarioFileError as exc:
        raise PilotFileError(str(exc)) from None
    return pilot_from_trainer_state(data, date=date)




class CalibrationBook:
    """The saved calibrations, one per :func:`~tuneplan.core.calibration.stack_key`.

    Args:
        folder: where ``calibrations.json`` lives (default: the user data directory).
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or data_dir()) / _FILE

    def _read(self) -> tuple[list[Calibration], list[Any]]:
        """(the entries that validate, every raw entry as read); ([], []) without a file.

        Raises:
            CalibrationBookError: the file exists but is not a JSON list (it is then not overwritten).
        """
        try:
            raw = read_regular_file(self.path, MAX_PILOT_BYTES)  # a FIFO or device: refused unread
        except FileNotFoundError:
            return [], []
        except UnsafeFileError as exc:
            raise CalibrationBookError(
                f"{self.path}: not a regular file" if exc.reason == "not-regular" else f"{self.path}: too large"
            ) from None
        except OSError as exc:
            raise CalibrationBookError(f"{self.path}: cannot be read ({describe_os_error(exc)})") from None
        try:
            data: Any = loads_untrusted_json(raw)  # bad UTF-8 or JSON, nesting that exhausts the parser
        except ValueError as exc:
            raise CalibrationBookError(f"{self.path}: {exc}") from None
        if not isinstance(data, list):
            raise CalibrationBookError(f"{self.path}: not a list of calibrations")
        good: list[Calibration] = []
        for entry in data:
            try:
                good.append(Calibration.model_validate(entry))
            except ValidationError:
                continue  # kept as it is in the file (a newer Tuneplan's entry, or a hand edit), never applied
        return good, data

    def load(self) -> list[Calibration]:
        """The saved calibrations that validate; [] when there is no file or it cannot be read (it is left alone)."""
        try:
            return self._read()[0]
        except CalibrationBookError:
            return []

    def find(self, key: str) -> Calibration | None:
        """The calibration for this stack key, or None."""
        return next((c for c in self.load() if c.key == key), None)

    def _write(self, keep: list[Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, json.dumps(keep, indent=2).encode("utf-8"))

    def _raw_key(self, entry: Any) -> Any:
        return entry.get("key") if isinstance(entry, dict) else None

    def save(self, calibration: Calibration) -> None:
        """Add ``calibration``, replacing one with the same key; atomic. Entries this version cannot read are kept.

        Raises:
            CalibrationBookError: the file exists but cannot be read as a list (it is left as it is).
            OSError: when the file cannot be written (the previous file is kept).
        """
        _good, raw = self._read()
        keep = [e for e in raw if self._raw_key(e) != calibration.key]
        keep.append(json.loads(calibration.model_dump_json()))
        self._write(keep)

    def remove(self, key: str) -> None:
        """Forget the calibration for this key (nothing when there is none); other entries are kept as they are.

        Raises:
            CalibrationBookError: the file exists but cannot be read as a list (it is left as it is).
            OSError: when the file cannot be written.
        """
        _good, raw = self._read()
        keep = [e for e in raw if self._raw_key(e) != key]
        if len(keep) != len(raw):
            self._write(keep)
