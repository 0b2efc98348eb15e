"""Saved data: platformdirs paths, versioned scenario files with atomic writes, the scenario library.

* :mod:`tuneplan.storage.paths` — where things live (``TUNEPLAN_DATA_DIR`` overrides).
* :mod:`tuneplan.storage.files` — the file format, :func:`read_scenario_file` /
  :func:`write_scenario_file`, migrations and the error types.
* :mod:`tuneplan.storage.library` — :class:`ScenarioLibrary` (list, save with conflict
  detection and locks, trash, quarantine, recent list, autosave, import/export).
* :mod:`tuneplan.storage.cli` — ``tuneplan scenarios ...``.

Pure stdlib + pydantic + platformdirs: no Qt.
"""

from tuneplan.storage.files import (
    NewerSchemaError,
    ScenarioFileError,
    ScenarioSaveError,
    read_scenario_file,
    write_scenario_file,
)
from tuneplan.storage.library import (
    ConflictError,
    CorruptScenarioError,
    FileStamp,
    LockedError,
    ScenarioInfo,
    ScenarioLibrary,
    TrashEntry,
)

__all__ = [
    "ConflictError",
    "CorruptScenarioError",
    "FileStamp",
    "LockedError",
    "NewerSchemaError",
    "ScenarioFileError",
    "ScenarioInfo",
    "ScenarioLibrary",
    "ScenarioSaveError",
    "TrashEntry",
    "read_scenario_file",
    "write_scenario_file",
]
