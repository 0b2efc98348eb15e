"""The scenario library in the GUI: open/save through :class:`ScenarioLibrary`, autosave, recovery.

Two pieces, installed on a :class:`~tuneplan.ui.main_window.MainWindow` by :func:`install_library`:

* :class:`LibraryController` (no widgets of its own) does the file work behind File → Open/Save:
  plans are saved as library files in the user data folder, every save of an opened file carries
  the :class:`~tuneplan.storage.FileStamp` it was loaded with, so a change made meanwhile by
  another Tuneplan is never overwritten silently (the user chooses: overwrite, save as a copy, or
  cancel). It autosaves the working plan 2 s after the last edit and offers it back after a crash.
* :class:`LibraryPanel` is the "Scenarios" dock: search, open, new, save, rename, duplicate,
  delete to the trash, restore, import and export.

Every question to the user goes through an ``ask_*`` method so tests can answer it. Errors go
through the window's ``show_error``. Nothing here computes an estimate.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QCoreApplication, QFileSystemWatcher, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.scenario import Scenario
from tuneplan.storage import (
    ConflictError,
    CorruptScenarioError,
    FileStamp,
    LockedError,
    NewerSchemaError,
    ScenarioFileError,
    ScenarioInfo,
    ScenarioLibrary,
    ScenarioSaveError,
    TrashEntry,
    write_scenario_file,
)
from tuneplan.storage._fs import atomic_write_bytes, pid_alive
from tuneplan.storage.files import read_scenario_document
from tuneplan.ui.i18n import plain_message_box, plain_tooltip
from tuneplan.ui.menus import EXPORT_CHART_MENU, file_menu, submenu_action
from tuneplan.ui.store import METHOD_LABELS

if TYPE_CHECKING:
    from tuneplan.ui.main_window import MainWindow

__all__ = ["AUTOSAVE_DELAY_MS", "LibraryController", "LibraryPanel", "install_library"]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

AUTOSAVE_DELAY_MS = 2000
ConflictChoice = Literal["overwrite", "copy", "cancel"]

# Controllers alive in this process: an autosave owned by one of them is not a crash leftover.
_LIVE_INSTANCES: set[str] = set()


def _stamp_to_json(stamp: FileStamp | None) -> dict[str, object] | None:
    if stamp is None:
        return None
    return {"mtime_ns": stamp.mtime_ns, "size": stamp.size, "sha256": stamp.sha256}


def _stamp_from_json(data: object) -> FileStamp | None:
    if not isinstance(data, dict):
        return None
    try:
        return FileStamp(int(data["mtime_ns"]), int(data["size"]), str(data["sha256"]))
    except (KeyError, TypeError, ValueError):
        return None


def _write_problem(folder: Path) -> OSError | None:
    """Why a file cannot be created in ``folder`` (created if missing), or ``None`` when it can.

    Tries for real (a hidden temp file, removed at once): ``os.access`` says yes to root on a
    read-only mount or an immutable folder.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".tuneplan-write-test-", dir=folder)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        return exc
    return None


def _ago(when: datetime) -> str:
    seconds = (datetime.now(UTC) - when).total_seconds()
    if seconds < 60:
        return translate("LibraryPanel", "just now")
    if seconds < 3600:
        return translate("LibraryPanel", "{n} min ago").format(n=f"{seconds / 60:.0f}")
    if seconds < 86400:
        return translate("LibraryPanel", "{n} h ago").format(n=f"{seconds / 3600:.0f}")
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


class LibraryController(QObject):
    """Library-backed File actions for a main window: open, save with conflict check, autosave.

    The window keeps its ``path`` (the open file, ``None`` for a plan never saved); this object
    remembers the :class:`FileStamp` that file had when it was loaded or last saved.

    Args:
        window: the main window (its ``store``, ``path``, ``show_error`` and ``ask_*`` helpers).
        library: the scenario library; by default the one in the user data folder
            (``$TUNEPLAN_DATA_DIR`` when set).

    Signals:
        library_changed(): files were added, renamed, deleted or restored (lists should refresh).
    """

    library_changed = Signal()

    def __init__(self, window: MainWindow, library: ScenarioLibrary | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.store = window.store
        self.library = library if library is not None else ScenarioLibrary()
        self.instance_id = uuid.uuid4().hex
        _LIVE_INSTANCES.add(self.instance_id)
        self._stamps: dict[Path, FileStamp] = {}
        #: the plan name each file held when it was loaded or saved here (a renamed plan is not saved over it)
        self._file_names: dict[Path, str] = {}
        self._autosave_blocked_logged = False
        #: an autosave this controller wrote or took over (restored); only that one is ever replaced or deleted
        self._autosave_is_ours = False
        #: visible, non-modal notices (read-only folder, autosave off), in the status bar
        self.notice = QLabel()
        self.notice.setObjectName("libraryNotice")
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setStyleSheet("color: #8a4b00; font-weight: 600;")
        self.notice.hide()
        self._notices: dict[str, str] = {}
        window.statusBar().addPermanentWidget(self.notice)
        #: why the data folder cannot be written (None: it can); autosave is off and Save As asks for a file then
        self.read_only_error = self._check_data_folder()
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave_timer.timeout.connect(self.autosave_now)
        self.store.scenario_changed.connect(self._on_edit)
        self.store.dirty_changed.connect(self._on_dirty_changed)
        self.destroyed.connect(lambda *_a, iid=self.instance_id: _LIVE_INSTANCES.discard(iid))

    # ------------------------------------------------------------------ questions (patchable in tests)
    def name_dialog(self, title: str, suggestion: str) -> QInputDialog:
        """The Save As / Rename question, wide enough to show a whole plan name (issue #21: the standard input
        dialog cut "Llama 3.1 8B QLoRA on an RTX 4090" at about 180 px)."""
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle(title)
        dialog.setLabelText(self.tr("Plan name:"))
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setTextValue(suggestion)
        wide = dialog.fontMetrics().horizontalAdvance(suggestion) + 120
        dialog.resize(min(max(520, wide), 900), dialog.sizeHint().height())
        return dialog

    def ask_scenario_name(self, title: str, suggestion: str) -> str | None:
        """Ask for a scenario name (Save As, Rename); ``None`` when cancelled."""
        dialog = self.name_dialog(title, suggestion)
        ok = dialog.exec() == QInputDialog.DialogCode.Accepted
        text = dialog.textValue().strip()
        dialog.deleteLater()
        return text if ok and text else None

    def ask_conflict(self, path: Path, message: str) -> ConflictChoice:
        """The file changed on disk since it was opened: overwrite it, save a copy, or cancel."""
        box = plain_message_box(self.window, QMessageBox.Icon.Warning, self.tr("Plan changed elsewhere"),
                                self.tr("“{name}” was changed by another Tuneplan window or program after you "
                                        "opened it.").format(name=path.name), QMessageBox.StandardButton.NoButton)
        box.setInformativeText(self.tr(
            "Overwrite it with your version (their changes are lost), save your version as a copy "
            "(both are kept), or cancel and keep editing."
        ))
        box.setDetailedText(message)
        overwrite = box.addButton(self.tr("Overwrite"), QMessageBox.ButtonRole.DestructiveRole)
        copy = box.addButton(self.tr("Save as copy"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(copy)
        box.exec()
        clicked = box.clickedButton()
        if clicked is overwrite:
            return "overwrite"
        if clicked is copy:
            return "copy"
        return "cancel"

    def ask_restore_autosave(self, scenario: Scenario, saved_at: datetime) -> bool:
        """After a crash: restore the autosaved plan (True) or discard it (False)?"""
        when = saved_at.astimezone().strftime("%Y-%m-%d %H:%M")
        box = plain_message_box(
            self.window,
            QMessageBox.Icon.Question,
            self.tr("Restore unsaved plan?"),
            self.tr("Tuneplan did not close normally last time. Your unsaved plan “{name}” was "
                    "kept automatically ({when}).\n\nRestore it?").format(name=scenario.name, when=when),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Discard,
            QMessageBox.StandardButton.Yes,
        )
        return box.exec() == QMessageBox.StandardButton.Yes

    def ask_confirm(self, title: str, text: str) -> bool:
        """Yes/No question (emptying the trash)."""
        box = plain_message_box(self.window, QMessageBox.Icon.Question, title, text,
                                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def ask_save_elsewhere_path(self) -> str | None:
        """Which file to save the plan to when the data folder is read-only (starts in the home folder)."""
        from tuneplan.storage.library import slugify

        suggestion = Path.home() / f"{slugify(self.store.scenario.name)}.json"
        path, _ = QFileDialog.getSaveFileName(self.window, self.tr("Save plan as"), str(suggestion),
                                              self.tr("Tuneplan plans (*.json)"))
        if path and not path.lower().endswith(".json"):
            path += ".json"
        return path or None

    def ask_import_path(self) -> str | None:
        """Which shared scenario file (one scenario or a bundle) to import."""
        path, _ = QFileDialog.getOpenFileName(self.window, self.tr("Import scenarios"), str(Path.home()),
                                              self.tr("Tuneplan scenarios (*.json);;All files (*)"))
        return path or None

    def ask_export_path(self, suggestion: str) -> str | None:
        """Where to write exported scenarios (JSON)."""
        from tuneplan.ui.export_folder import export_folder, remember_export

        path, _ = QFileDialog.getSaveFileName(self.window, self.tr("Export scenarios"), str(export_folder() / suggestion),
                                              self.tr("Tuneplan scenarios (*.json)"))
        if path and not path.lower().endswith(".json"):
            path += ".json"
        remember_export(path)
        return path or None

    # ------------------------------------------------------------------ state
    @property
    def path(self) -> Path | None:
        """The file the window's plan belongs to (``None``: never saved)."""
        return self.window.path

    def stamp(self, path: Path | None = None) -> FileStamp | None:
        """The stamp the open file had when it was loaded or saved here (what Save compares)."""
        target = path if path is not None else self.path
        return self._stamps.get(target.resolve()) if target is not None else None

    def file_plan_name(self, path: Path | None = None) -> str | None:
        """The plan name the open file holds (as last loaded or saved here), or None for a plan without a file."""
        target = path if path is not None else self.path
        return self._file_names.get(target.resolve()) if target is not None else None

    def renamed_since_saved(self) -> bool:
        """Whether the plan's name differs from the one its file holds (a rename, typed or automatic)."""
        held = self.file_plan_name()
        return held is not None and held != self.store.scenario.name

    def _remember_stamp(self, path: Path, stamp: FileStamp | None) -> None:
        key = path.resolve()
        if stamp is None:
            self._stamps.pop(key, None)
        else:
            self._stamps[key] = stamp

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 6000)

    def _set_window_path(self, path: Path | None) -> None:
        self.window.path = path
        self.window._update_title()

    def _set_notice(self, key: str, text: str | None, detail: str = "") -> None:
        """Show (``text``) or remove (``None``) one standing notice; all shown ones share the label."""
        if text is None:
            self._notices.pop(key, None)
        else:
            self._notices[key] = text
        self.notice.setText("  ·  ".join(self._notices.values()))
        self.notice.setToolTip(detail if text is not None else "")
        self.notice.setVisible(bool(self._notices))

    def notices(self) -> list[str]:
        """The standing notices shown in the status bar (read-only folder, autosave off), in order."""
        return list(self._notices.values())

    def _check_data_folder(self) -> OSError | None:
        """Test once whether the data folder can be written; if not, say so (a notice) and return why."""
        try:
            folder = self.library.root
        except OSError as exc:  # the folder itself cannot be created
            problem: OSError | None = exc
            folder = Path(str(exc.filename or ""))
        else:
            problem = _write_problem(folder)
        if problem is None:
            return None
        log.warning("the data folder cannot be written (%s): autosave and library saves are off", problem)
        self._set_notice(
            "read_only",
            self.tr("Read-only data folder: plans are not autosaved or saved in the library. "
                    "Use Save As… to save elsewhere."),
            self.tr("{folder}: {error}").format(folder=folder, error=problem.strerror or problem),
        )
        return problem

    # ------------------------------------------------------------------ open
    def open_plan(self, path: str | Path | None = None, *, ask_discard: bool = True) -> bool:
        """Open a scenario file (any file; asks for one when ``path`` is None).

        Unsaved changes are asked about first (only when there are any). A broken library file is
        moved to quarantine and the message says where; a file from a newer Tuneplan is refused
        and left untouched. Returns True when the plan was replaced.
        """
        if ask_discard and not self.window._may_discard():
            return False
        if path is None:
            path = self.window.ask_open_path()
            if not path:
                return False
        p = Path(path)
        try:
            scenario, stamp = self.library.load_with_stamp(p)
        except CorruptScenarioError as exc:
            self.window.show_error(self.tr("Cannot open plan"), self.tr("{error}. Nothing was deleted.").format(error=exc))
            self.library_changed.emit()
            return False
        except NewerSchemaError as exc:
            self.window.show_error(self.tr("Plan from a newer Tuneplan"),
                                   self.tr("{error}. The file was left as it is.").format(error=exc))
            return False
        except ScenarioFileError as exc:
            self.window.show_error(self.tr("Cannot open plan"), str(exc))
            return False
        if not self.store.load_scenario(scenario):
            return False
        self._remember_stamp(p, stamp)
        self._file_names[p.resolve()] = scenario.name
        self._set_window_path(p)
        self.clear_autosave()
        log.info("opened %s", p)
        self._status(self.tr("Opened “{name}”").format(name=scenario.name))
        self.library_changed.emit()  # the recent list and the list's "open" marker
        return True

    # ------------------------------------------------------------------ save
    def save_plan(self) -> bool:
        """File → Save: write the plan back to its file, refusing to overwrite outside changes.

        A plan that has no file yet is saved into the library (asks for its name). Returns True
        when the plan is saved; on any failure the plan stays in the window, still unsaved.
        """
        if self.path is None:
            return self.save_plan_as()
        if self.renamed_since_saved():
            # The plan was renamed since its file was written (changing the model, method or GPU renames an
            # auto-named plan): it is another plan now. Saving it over the file would silently replace the
            # plan the file holds, so it becomes a new library plan and that file is left as it is.
            old = self.file_plan_name()
            name = self.new_plan_name()
            if name != self.store.scenario.name and not self.store.set_field("name", name):
                return False
            if not self._save(None, None):
                return False
            self._status(self.tr("Saved as a new plan “{name}”; “{old}” was left as it was").format(
                name=name, old=old))
            return True
        return self._save(self.path, self.stamp(self.path))

    def new_plan_name(self) -> str:
        """The name Save gives a renamed plan: its own, or the first free one beside the library's plans (``Plan
        (2)``) when another plan already has it."""
        taken = [info.name for info in self.library.list()]
        return self.library.unique_name(self.store.scenario.name, taken)

    def save_plan_as(self, path: str | Path | None = None) -> bool:
        """File → Save As…: save the plan as a new library scenario under a name the user gives.

        With ``path`` the plan is written to exactly that file instead (scripts, self-test).
        """
        if path is None and self.read_only_error is not None:
            path = self.ask_save_elsewhere_path()  # the library folder cannot take it
            if not path:
                return False
        if path is not None:
            return self._save(Path(path), None)
        taken = [info.name for info in self.library.list()]
        current = self.store.scenario.name
        suggestion = self.library.unique_name(current, taken)
        name = self.ask_scenario_name(self.tr("Save plan as"), suggestion)
        if name is None:
            return False
        typed = name
        if name.casefold() in {n.casefold() for n in taken}:  # two plans of one name look alike: "name (2)"
            name = self.library.unique_name(name, taken)
        if name != current and not self.store.set_field("name", name):
            return False
        saved = self._save(None, None)
        if saved and name != typed:
            self._status(self.tr("Saved as “{name}”: a plan named “{typed}” is already in the library").format(
                name=name, typed=typed))
        return saved

    def _save(self, path: Path | None, expected: FileStamp | None) -> bool:
        scenario = self.store.scenario
        try:
            target = self.library.save(scenario, path, expected_mtime=expected)
        except ConflictError as exc:
            assert path is not None
            choice = self.ask_conflict(path, str(exc))
            log.info("save conflict on %s: user chose %s", path, choice)
            if choice == "overwrite":
                return self._save(path, None)
            if choice == "copy":
                return self._save_copy()
            self._status(self.tr("Not saved — the file on disk was left as the other window saved it"))
            return False
        except LockedError as exc:
            self.window.show_error(self.tr("Cannot save plan"),
                                   self.tr("{error}\n\nYour plan is still open here, unsaved.").format(error=exc))
            return False
        except ScenarioSaveError as exc:
            self.window.show_error(
                self.tr("Cannot save plan"),
                self.tr("{error}.\n\nYour plan is still open here with all its changes, not yet saved. "
                        "Free some disk space or check the folder's permissions, then save again, or use "
                        "Export… to save it somewhere else.").format(error=exc),
            )
            return False
        except ScenarioFileError as exc:
            self.window.show_error(self.tr("Cannot save plan"), str(exc))
            return False
        self._after_save(target, scenario)
        return True

    def _save_copy(self) -> bool:
        taken = [info.name for info in self.library.list()]
        name = self.library.unique_name(self.store.scenario.name, taken)
        if not self.store.set_field("name", name):
            return False
        return self._save(None, None)

    def _after_save(self, target: Path, scenario: Scenario) -> None:
        self._remember_stamp(target, self.library.stamp(target))
        self._file_names[target.resolve()] = scenario.name
        self._set_window_path(target)
        if self.store.scenario == scenario:
            self.store.mark_saved()
        self.clear_autosave()
        log.info("saved %s", target)
        try:
            in_library = target.resolve().parent == self.library.scenarios_dir.resolve()
        except OSError:
            in_library = True
        if in_library:
            self._status(self.tr("Saved “{name}” in the library").format(name=scenario.name))
        else:  # Save As… to a folder of the user's choosing: the library does not list it
            self._status(self.tr("Saved “{name}” to {path}").format(name=scenario.name, path=str(target)))
        self.library_changed.emit()

    # ------------------------------------------------------------------ library operations
    def rename(self, path: Path, new_name: str | None = None) -> Path | None:
        """Rename a library scenario (asks for the name when not given); returns its new file."""
        if new_name is None:
            try:
                current = read_scenario_document(path).scenario.name
            except ScenarioFileError:
                current = path.stem
            new_name = self.ask_scenario_name(self.tr("Rename scenario"), current)
            if new_name is None:
                return None
        try:
            new = self.library.rename(path, new_name)
        except ValueError as exc:  # ScenarioFileError and pydantic's ValidationError
            self.window.show_error(self.tr("Cannot rename scenario"), str(exc).splitlines()[0])
            return None
        if self.path is not None and self.path.resolve() == path.resolve():
            was_dirty = self.store.dirty
            self.store.set_field("name", new_name)
            self._remember_stamp(path, None)
            self._remember_stamp(new, self.library.stamp(new))
            self._set_window_path(new)
            if not was_dirty:
                self.store.mark_saved()
        self._status(self.tr("Renamed to “{name}”").format(name=new_name))
        self.library_changed.emit()
        return new

    def duplicate(self, path: Path) -> Path | None:
        """Copy a library scenario under a free name (``Plan (2)``); returns the new file."""
        try:
            new = self.library.duplicate(path)
        except ValueError as exc:
            self.window.show_error(self.tr("Cannot duplicate scenario"), str(exc))
            self.library_changed.emit()
            return None
        self._status(self.tr("Duplicated as {name}").format(name=new.name))
        self.library_changed.emit()
        return new

    def delete(self, path: Path) -> Path | None:
        """Move a library scenario to the trash (restorable); returns its place in the trash.

        Deleting the open plan's file keeps the plan in the window, as unsaved.
        """
        try:
            trashed = self.library.delete(path)
        except ScenarioFileError as exc:
            self.window.show_error(self.tr("Cannot delete scenario"), str(exc))
            return None
        if self.path is not None and self.path.resolve() == path.resolve():
            self._set_window_path(None)
            self.store.load_scenario(self.store.scenario, dirty=True)  # its file is gone: closing must ask
        self._status(self.tr("Moved to the trash — open Trash to restore it"))
        self.library_changed.emit()
        return trashed

    def restore(self, trash_path: Path) -> Path | None:
        """Bring a scenario back from the trash; returns its library file."""
        try:
            restored = self.library.restore(trash_path)
        except ScenarioFileError as exc:
            self.window.show_error(self.tr("Cannot restore scenario"), str(exc))
            return None
        self._status(self.tr("Restored {name}").format(name=restored.name))
        self.library_changed.emit()
        return restored

    def empty_trash(self, confirm: bool = True) -> int:
        """Delete the trash for good (asks first); returns how many scenarios were removed."""
        entries = self.library.list_trash()
        if not entries:
            return 0
        if confirm and not self.ask_confirm(
            self.tr("Empty the trash?"),
            (self.tr("Delete 1 scenario in the trash for good? This cannot be undone.") if len(entries) == 1 else
             self.tr("Delete {n} scenarios in the trash for good? This cannot be undone.").format(n=len(entries))),
        ):
            return 0
        count = self.library.empty_trash()
        self._status(self.tr("Deleted 1 scenario for good") if count == 1 else
                     self.tr("Deleted {n} scenarios for good").format(n=count))
        self.library_changed.emit()
        return count

    def import_file(self, path: str | Path | None = None) -> list[Path]:
        """Add the scenarios of a shared JSON file (one or a bundle) to the library."""
        if path is None:
            path = self.ask_import_path()
            if not path:
                return []
        try:
            added = self.library.import_scenarios(path)
        except NewerSchemaError as exc:
            self.window.show_error(self.tr("Cannot import"), self.tr("{error}. Nothing was imported.").format(error=exc))
            return []
        except ScenarioFileError as exc:
            self.window.show_error(self.tr("Cannot import"), self.tr("{error}. Nothing was imported.").format(error=exc))
            return []
        self._status(self.tr("Imported 1 scenario") if len(added) == 1 else
                     self.tr("Imported {n} scenarios").format(n=len(added)))
        self.library_changed.emit()
        return added

    def export_files(self, paths: list[Path], dest: str | Path | None = None) -> Path | None:
        """Write library scenarios to one JSON file for a colleague (a bundle when several).

        With no ``paths`` the plan in the window is exported as it is now (saved or not).
        """
        names = [p.stem for p in paths] if paths else [self.store.scenario.name]
        if dest is None:
            from tuneplan.storage.library import slugify

            suggestion = f"{slugify(names[0])}.json" if len(names) == 1 else "tuneplan-scenarios.json"
            dest = self.ask_export_path(suggestion)
            if not dest:
                return None
        try:
            if paths:
                written = self.library.export_scenarios(paths, dest)
            else:
                written = write_scenario_file(dest, self.store.scenario)
        except ScenarioFileError as exc:
            self.window.show_error(self.tr("Cannot export"), str(exc))
            return None
        self._status(self.tr("Exported to {path}").format(path=written))
        return written

    # ------------------------------------------------------------------ autosave and recovery
    @property
    def owner_path(self) -> Path:
        """Who wrote the autosave (pid, host, instance) and which file it belongs to."""
        return self.library.autosave_path.with_name("autosave.owner.json")

    def _read_owner(self) -> dict[str, object]:
        # hostile content (too deep, a FIFO, /dev/zero) is quarantined there, never raised
        return self.library.read_state_file(self.owner_path)

    def _owner_alive(self, owner: dict[str, object]) -> bool:
        """Whether the autosave belongs to a Tuneplan that is still running (not a crash leftover)."""
        pid, host, iid = owner.get("pid"), owner.get("host"), owner.get("instance")
        if not isinstance(pid, int) or host != socket.gethostname():
            return False
        if pid == os.getpid():
            return iid in _LIVE_INSTANCES
        return pid_alive(pid)

    def _other_window_notice(self) -> str:
        return self.tr("Autosave is off: another Tuneplan window owns it. Save your plan to keep it.")

    def _autosave_blocker(self) -> str | None:
        """Why this window must not write the autosave now (a notice for the user), or ``None``.

        One autosave file per data folder. It may be replaced only when it is this window's own
        (written or restored here) or there is none: another running Tuneplan's autosave is its
        crash protection, and one left by a crashed or newer Tuneplan is kept to be offered (or
        read by that version) next time.
        """
        if self.read_only_error is not None:
            return self.tr("Autosave is off: the data folder is read-only.")
        owner = self._read_owner()
        if owner.get("instance") == self.instance_id:
            return None
        if owner and self._owner_alive(owner):
            return self._other_window_notice()
        if self._autosave_is_ours:
            return None
        if self.library.autosave_path.exists():
            return self.tr("Autosave is off: an unsaved plan from another Tuneplan is kept in the autosave. "
                           "Save your plan to keep it.")
        return None

    def _on_edit(self, _scenario: Scenario) -> None:
        if self.store.dirty:
            self.autosave_timer.start()  # restarts: 2 s after the *last* edit

    def _on_dirty_changed(self, dirty: bool) -> None:
        if dirty:
            self.autosave_timer.start()
        else:
            self.autosave_timer.stop()

    def autosave_now(self) -> Path | None:
        """Write the unsaved plan to the autosave file now; returns it (None when nothing to do).

        Skipped, with a notice in the status bar, while another running Tuneplan owns the autosave
        (one autosave file per data folder: the first window's crash protection wins over the
        second's), while an autosave this window did not write is kept (a crashed or newer
        Tuneplan's), and when the data folder is read-only. Never raises.
        """
        self.autosave_timer.stop()
        if not self.store.dirty:
            return None
        blocker = self._autosave_blocker()
        if blocker is not None:
            if self.read_only_error is None:  # read-only has its own notice already
                self._set_notice("autosave", blocker, str(self.library.autosave_path))
            if not self._autosave_blocked_logged:
                log.warning("this window is not autosaved: %s", blocker)
                self._autosave_blocked_logged = True
            return None
        try:
            self._autosave_is_ours = True  # from here on the file (or what is left of it) is this window's
            written = self.library.autosave(self.store.scenario)
            owner = {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "instance": self.instance_id,
                "path": str(self.path) if self.path is not None else None,
                "stamp": _stamp_to_json(self.stamp()),
                "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            atomic_write_bytes(self.owner_path, json.dumps(owner).encode("utf-8"))
        except (ScenarioFileError, OSError) as exc:
            log.warning("autosave failed: %s", exc)
            self._status(self.tr("Autosave failed: {error}").format(error=exc))
            return None
        log.debug("autosaved to %s", written)
        self._set_notice("autosave", None)
        return written

    def clear_autosave(self) -> None:
        """Remove the autosave (after a save, an open, a discard or a clean exit) if this window wrote it.

        An autosave this window did not write or restore -- another window's, a crashed or newer
        Tuneplan's -- is never deleted. Never raises: a folder that cannot be written is logged.
        """
        self.autosave_timer.stop()
        if not self._autosave_is_ours:
            return
        owner = self._read_owner()
        if owner and owner.get("instance") != self.instance_id:
            return  # replaced by another window since (it found ours gone or stale)
        self._autosave_is_ours = False
        self._discard_autosave()

    def offer_recovery(self) -> bool:
        """On start: when a crashed session left an unsaved plan, offer to restore it.

        Nothing is offered when there is no autosave, when it belongs to a Tuneplan that is still
        running, or when it equals the file it came from (nothing was lost). Declining deletes it.
        Returns True when a plan was restored.
        """
        owner = self._read_owner()
        if owner and owner.get("instance") != self.instance_id and self._owner_alive(owner):
            self._set_notice("autosave", self._other_window_notice(), str(self.library.autosave_path))
            return False
        try:
            scenario = self.library.load_autosave()
        except NewerSchemaError as exc:
            self.window.show_error(self.tr("Cannot restore the unsaved plan"),
                                   self.tr("{error}. This Tuneplan will not write over it or delete it.")
                                   .format(error=exc))
            return False
        except CorruptScenarioError as exc:
            self.window.show_error(self.tr("Cannot restore the unsaved plan"), str(exc))
            return False
        except ScenarioFileError as exc:
            log.warning("autosave unreadable: %s", exc)
            return False
        if scenario is None:
            return False
        origin_text = owner.get("path")
        origin = Path(origin_text) if isinstance(origin_text, str) and origin_text else None
        base_stamp = _stamp_from_json(owner.get("stamp"))
        if origin is not None and origin.is_file():
            try:
                if read_scenario_document(origin).scenario == scenario:
                    self._discard_autosave()
                    return False
            except ScenarioFileError:
                pass
        try:
            saved_at = datetime.fromtimestamp(self.library.autosave_path.stat().st_mtime, UTC)
        except OSError:
            saved_at = datetime.now(UTC)
        if not self.ask_restore_autosave(scenario, saved_at):
            self._discard_autosave()
            self._status(self.tr("Discarded the unsaved plan from last time"))
            return False
        if not self.store.load_scenario(scenario, dirty=True):
            return False
        if origin is not None and origin.is_file() and base_stamp is not None:
            # Saving goes back to the original file, checked against what it was when edited.
            self._remember_stamp(origin, base_stamp)
            self._set_window_path(origin)
        else:
            self._set_window_path(None)
        self._take_over_autosave()
        self._status(self.tr("Restored “{name}” — not saved yet").format(name=scenario.name))
        return True

    def _discard_autosave(self) -> None:
        """Delete the autosave and its owner record (the user declined it, or this window wrote it)."""
        try:
            self.library.clear_autosave()
            with contextlib.suppress(FileNotFoundError):
                self.owner_path.unlink()
        except OSError as exc:  # a read-only or vanished folder: nothing to clean up there
            log.warning("could not remove the autosave: %s", exc)

    def _take_over_autosave(self) -> None:
        self._autosave_is_ours = True  # restored here: this window's to replace and to delete
        self.autosave_now()

    def clean_exit(self) -> None:
        """The window closed normally (changes saved or discarded by the user): drop the autosave."""
        self.clear_autosave()
        _LIVE_INSTANCES.discard(self.instance_id)


class _TwoLineDelegate(QStyledItemDelegate):
    """Paints an entry's text as a name line and a smaller grey detail line, both elided."""

    def paint(self, painter, option, index) -> None:  # noqa: D102 - Qt API
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        # initStyleOption turns "\n" into U+2028 (line separator)
        name, _, detail = opt.text.replace("\u2028", "\n").partition("\n")
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = opt.rect.adjusted(6, 3, -6, -3)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.save()
        name_font = QFont(opt.font)
        name_font.setWeight(QFont.Weight.DemiBold if not opt.font.bold() else QFont.Weight.Bold)
        fm = QFontMetrics(name_font)
        fg = index.data(Qt.ItemDataRole.ForegroundRole)
        color = opt.palette.highlightedText().color() if selected else (
            fg.color() if hasattr(fg, "color") else QColor(fg) if fg else opt.palette.text().color())
        painter.setFont(name_font)
        painter.setPen(color)
        painter.drawText(rect.x(), rect.y() + fm.ascent(), fm.elidedText(name, Qt.TextElideMode.ElideRight, rect.width()))
        small = QFont(opt.font)
        small.setBold(False)
        small.setPointSizeF(max(7.0, opt.font.pointSizeF() - 1))
        sfm = QFontMetrics(small)
        painter.setFont(small)
        painter.setPen(opt.palette.highlightedText().color() if selected else QColor("#666666"))
        painter.drawText(rect.x(), rect.y() + fm.height() + 1 + sfm.ascent(),
                         sfm.elidedText(detail, Qt.TextElideMode.ElideRight, rect.width()))
        painter.restore()

    def sizeHint(self, option, index) -> QSize:  # noqa: N802 - Qt API
        """Two lines plus padding; the width follows the list."""
        fm = QFontMetrics(option.font)
        return QSize(100, fm.height() * 2 + 8)


class _ScenarioList(QListWidget):
    """The list of scenarios; Delete and F2 are shortcuts for the panel's buttons."""

    delete_pressed = Signal()
    rename_pressed = Signal()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Delete → trash, F2 → rename, Enter → open (itemActivated)."""
        if event.key() == Qt.Key.Key_Delete:
            self.delete_pressed.emit()
            return
        if event.key() == Qt.Key.Key_F2:
            self.rename_pressed.emit()
            return
        super().keyPressEvent(event)


class LibraryPanel(QWidget):
    """The "Scenarios" dock: saved plans with search, file actions, the trash and sharing.

    Double-click (or Enter) opens a scenario. Unreadable files are listed in red with the reason
    and can still be deleted; opening one moves it to quarantine and says where.
    """

    PATH_ROLE = Qt.ItemDataRole.UserRole

    def __init__(self, controller: LibraryController) -> None:
        super().__init__()
        self.controller = controller
        self.window_ = controller.window
        self.setAccessibleName(self.tr("Scenario library"))
        self._cache: dict[Path, tuple[int, Scenario | None]] = {}

        self.pages = QStackedWidget()
        # ------------------------------------------------ library page
        lib = QWidget()
        col = QVBoxLayout(lib)
        col.setContentsMargins(6, 6, 6, 6)
        col.setSpacing(6)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search name, model, GPU…"))
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName(self.tr("Search scenarios"))
        col.addWidget(self.search)
        self.list = _ScenarioList()
        self.list.setAccessibleName(self.tr("Saved scenarios"))
        self.list.setAlternatingRowColors(True)
        self.list.setItemDelegate(_TwoLineDelegate(self.list))
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        col.addWidget(self.list, 1)
        self.empty_label = QLabel()
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)  # quotes the search text and OS errors
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color: #666666;")
        col.addWidget(self.empty_label)

        self.open_button = QPushButton(self.tr("Open"))
        self.new_button = QPushButton(self.tr("New"))
        self.save_button = QPushButton(self.tr("Save"))
        self.save_as_button = QPushButton(self.tr("Save As…"))
        self.rename_button = QPushButton(self.tr("Rename…"))
        self.duplicate_button = QPushButton(self.tr("Duplicate"))
        self.delete_button = QPushButton(self.tr("Delete"))
        self.trash_button = QPushButton(self.tr("Trash"))
        self.import_button = QPushButton(self.tr("Import…"))
        self.export_button = QPushButton(self.tr("Export…"))
        tips = {
            self.open_button: self.tr("Open the selected scenario in the plan"),
            self.new_button: self.tr("Start a new plan"),
            self.save_button: self.tr("Save the plan in the library"),
            self.save_as_button: self.tr("Save the plan as a new scenario under another name"),
            self.rename_button: self.tr("Rename the selected scenario (F2)"),
            self.duplicate_button: self.tr("Copy the selected scenario"),
            self.delete_button: self.tr("Move the selected scenarios to the trash (Delete); restore them from Trash"),
            self.trash_button: self.tr("Deleted scenarios: restore or delete for good"),
            self.import_button: self.tr("Add scenarios from a JSON file a colleague shared"),
            self.export_button: self.tr("Write the selected scenarios (or the open plan) to a JSON file to share"),
        }
        grid = QGridLayout()
        grid.setSpacing(4)
        buttons = [self.open_button, self.new_button, self.save_button, self.save_as_button,
                   self.rename_button, self.duplicate_button, self.delete_button, self.trash_button,
                   self.import_button, self.export_button]
        for i, b in enumerate(buttons):
            b.setToolTip(tips[b])
            grid.addWidget(b, i // 2, i % 2)
        col.addLayout(grid)
        self.pages.addWidget(lib)

        # ------------------------------------------------ trash page
        trash = QWidget()
        tcol = QVBoxLayout(trash)
        tcol.setContentsMargins(6, 6, 6, 6)
        head = QHBoxLayout()
        self.back_button = QPushButton(self.tr("‹ Scenarios"))
        self.back_button.setToolTip(self.tr("Back to your saved scenarios"))
        head.addWidget(self.back_button)
        title = QLabel(self.tr("Trash"))
        f = QFont()
        f.setBold(True)
        title.setFont(f)
        head.addWidget(title, 1, Qt.AlignmentFlag.AlignRight)
        tcol.addLayout(head)
        hint = QLabel(self.tr("Deleted scenarios stay here until you empty the trash."))
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666666;")
        tcol.addWidget(hint)
        self.trash_list = QListWidget()
        self.trash_list.setAccessibleName(self.tr("Deleted scenarios"))
        self.trash_list.setItemDelegate(_TwoLineDelegate(self.trash_list))
        self.trash_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.trash_list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        tcol.addWidget(self.trash_list, 1)
        row = QHBoxLayout()
        self.restore_button = QPushButton(self.tr("Restore"))
        self.restore_button.setToolTip(self.tr("Put the selected scenarios back in the library"))
        self.empty_trash_button = QPushButton(self.tr("Empty trash…"))
        self.empty_trash_button.setToolTip(self.tr("Delete everything in the trash for good (asks first)"))
        for b in (self.restore_button, self.empty_trash_button):
            row.addWidget(b)
        tcol.addLayout(row)
        self.pages.addWidget(trash)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)

        # ------------------------------------------------ wiring
        self._search_timer = QTimer(self, singleShot=True, interval=150)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.list.itemActivated.connect(lambda item: self.open_item(item))
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.list.delete_pressed.connect(self.delete_selected)
        self.list.rename_pressed.connect(self.rename_selected)
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.open_button.clicked.connect(lambda: self.open_item(self.list.currentItem()))
        self.new_button.clicked.connect(lambda: self.window_.new_plan())
        self.save_button.clicked.connect(lambda: self.window_.save_plan())
        self.save_as_button.clicked.connect(lambda: self.window_.save_plan_as())
        self.rename_button.clicked.connect(self.rename_selected)
        self.duplicate_button.clicked.connect(self.duplicate_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.trash_button.clicked.connect(self.show_trash)
        self.import_button.clicked.connect(lambda: controller.import_file())
        self.export_button.clicked.connect(lambda: controller.export_files(self.selected_paths()))
        self.restore_button.clicked.connect(self.restore_selected)
        self.empty_trash_button.clicked.connect(lambda: controller.empty_trash())
        self.back_button.clicked.connect(self.show_library)
        self.trash_list.itemSelectionChanged.connect(self._update_buttons)
        self.trash_list.itemActivated.connect(lambda _i: self.restore_selected())
        controller.library_changed.connect(self.refresh)
        controller.store.dirty_changed.connect(lambda _d: self._mark_open())
        controller.store.scenario_changed.connect(lambda _s: self._mark_open())
        # Other Tuneplan windows (or a file manager) change the folder too.
        self.watcher = QFileSystemWatcher(self)
        with contextlib.suppress(OSError):
            self.watcher.addPath(str(controller.library.scenarios_dir))
        self._watch_timer = QTimer(self, singleShot=True, interval=300)
        self._watch_timer.timeout.connect(self.refresh)
        self.watcher.directoryChanged.connect(lambda _p: self._watch_timer.start())
        self.refresh()

    # ------------------------------------------------------------------ listing
    def _scenario_of(self, info: ScenarioInfo) -> Scenario | None:
        if not info.ok:
            return None
        try:
            mtime = info.path.stat().st_mtime_ns
        except OSError:
            return None
        cached = self._cache.get(info.path)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        try:
            scenario: Scenario | None = read_scenario_document(info.path).scenario
        except ScenarioFileError:
            scenario = None
        self._cache[info.path] = (mtime, scenario)
        return scenario

    def refresh(self) -> None:
        """Re-read the library (filtered by the search box) and the trash."""
        selected = set(self.selected_paths())
        text = self.search.text().strip()
        try:
            infos = self.controller.library.search(text)
            total = len(self.controller.library.list()) if text else len(infos)
        except OSError as exc:
            infos, total = [], 0
            self.empty_label.setText(self.tr("Cannot read the library: {error}").format(error=exc))
        self.list.blockSignals(True)
        self.list.clear()
        for info in infos:
            item = QListWidgetItem()
            item.setData(self.PATH_ROLE, str(info.path))
            scenario = self._scenario_of(info)
            if info.ok and scenario is not None:
                t = scenario.training
                gpus = f"{t.num_gpus}× " if t.num_gpus > 1 else ""
                method = translate("AppStore", METHOD_LABELS.get(t.method, t.method))
                detail = (f"{scenario.model.name} · {method} · "
                          f"{gpus}{scenario.gpu.name.removeprefix('GeForce ')}")
                item.setText(f"{info.name}\n{detail} · {_ago(info.modified)}")
                saved = self.tr("Saved {when}").format(when=f"{info.modified.astimezone():%Y-%m-%d %H:%M}")
                item.setToolTip(plain_tooltip(f"{info.name}\n{detail}\n{saved}\n{info.path}"))
            else:
                unreadable = self.tr("cannot be read")  # (outside the f-string: lupdate does not look inside one)
                item.setText(f"⚠ {info.name}\n{info.problem or unreadable}")
                item.setForeground(QColor("#c62828"))
                item.setToolTip(plain_tooltip(f"{info.path}\n{info.problem}\n"
                                              + self.tr("Opening it moves it to the quarantine folder.")))
            self.list.addItem(item)
            if info.path in selected:
                item.setSelected(True)
        self.list.blockSignals(False)
        if not infos:
            self.empty_label.setText(
                self.tr("No scenario matches “{text}”.").format(text=text) if text
                else self.tr("No saved scenarios yet. Save your plan to keep it here.")
            )
        elif text:
            self.empty_label.setText(self.tr("{n} of {total} scenarios").format(n=len(infos), total=total))
        else:
            self.empty_label.setText(self.tr("1 scenario") if len(infos) == 1 else
                                     self.tr("{n} scenarios").format(n=len(infos)))
        self._mark_open()
        self._refresh_trash()
        self._update_buttons()

    def _refresh_trash(self) -> None:
        try:
            entries: list[TrashEntry] = self.controller.library.list_trash()
        except OSError as exc:  # no trash folder and none can be made (read-only data folder)
            log.info("the trash cannot be listed: %s", exc)
            entries = []
        self.trash_list.clear()
        for e in entries:
            item = QListWidgetItem(f"{e.name}\n" + self.tr("deleted {when}").format(when=_ago(e.deleted_at)))
            item.setData(self.PATH_ROLE, str(e.trash_path))
            item.setToolTip(plain_tooltip(self.tr("Was {path}").format(path=e.original_path) if e.original_path
                                          else str(e.trash_path)))
            self.trash_list.addItem(item)
        self.trash_button.setText(self.tr("Trash ({n})").format(n=len(entries)) if entries else self.tr("Trash"))

    OPEN_MARK = "● "

    def _mark_open(self) -> None:
        """Mark the scenario open in the window (● and "open" / "open, unsaved" on its detail line)."""
        open_path = self.controller.path.resolve() if self.controller.path is not None else None
        for i in range(self.list.count()):
            item = self.list.item(i)
            path = Path(item.data(self.PATH_ROLE))
            is_open = open_path is not None and path.resolve() == open_path
            first, _, rest = item.text().partition("\n")
            first = first.removeprefix(self.OPEN_MARK)
            open_unsaved, open_saved = self.tr("open, unsaved · "), self.tr("open · ")
            rest = rest.removeprefix(open_unsaved).removeprefix(open_saved)
            if is_open:
                first = self.OPEN_MARK + first
                rest = (open_unsaved if self.controller.store.dirty else open_saved) + rest
            text = f"{first}\n{rest}" if rest else first
            if text != item.text():
                item.setText(text)
            font = item.font()
            if font.bold() != is_open:
                font.setBold(is_open)
                item.setFont(font)

    def names(self) -> list[str]:
        """The scenario names as listed (first line of each entry, without the open marker)."""
        out = []
        for i in range(self.list.count()):
            first = self.list.item(i).text().partition("\n")[0]
            out.append(first.removeprefix(self.OPEN_MARK).removeprefix("⚠ "))
        return out

    def trash_names(self) -> list[str]:
        """The names of the scenarios in the trash, newest first."""
        return [self.trash_list.item(i).text().partition("\n")[0] for i in range(self.trash_list.count())]

    def select_path(self, path: Path) -> bool:
        """Select only the entry of ``path`` (returns False when it is not listed)."""
        for i in range(self.list.count()):
            item = self.list.item(i)
            if Path(item.data(self.PATH_ROLE)).resolve() == Path(path).resolve():
                self.list.clearSelection()
                self.list.setCurrentItem(item)
                item.setSelected(True)
                return True
        return False

    def selected_paths(self) -> list[Path]:
        """Files of the selected entries, in list order."""
        return [Path(item.data(self.PATH_ROLE)) for item in self.list.selectedItems()]

    def _update_buttons(self) -> None:
        n = len(self.list.selectedItems())
        self.open_button.setEnabled(n == 1)
        self.rename_button.setEnabled(n == 1)
        self.duplicate_button.setEnabled(n == 1)
        self.delete_button.setEnabled(n >= 1)
        self.restore_button.setEnabled(bool(self.trash_list.selectedItems()))
        self.empty_trash_button.setEnabled(self.trash_list.count() > 0)

    # ------------------------------------------------------------------ actions
    def open_item(self, item: QListWidgetItem | None) -> bool:
        """Open a listed scenario (asks about unsaved changes first)."""
        if item is None:
            return False
        return self.controller.open_plan(Path(item.data(self.PATH_ROLE)), ask_discard=True)

    def rename_selected(self) -> Path | None:
        """Rename the selected scenario."""
        paths = self.selected_paths()
        if len(paths) != 1:
            return None
        new = self.controller.rename(paths[0])
        if new is not None:
            self.select_path(new)
        return new

    def duplicate_selected(self) -> Path | None:
        """Duplicate the selected scenario and select the copy."""
        paths = self.selected_paths()
        if len(paths) != 1:
            return None
        new = self.controller.duplicate(paths[0])
        if new is not None:
            self.select_path(new)
        return new

    def delete_selected(self) -> int:
        """Move the selected scenarios to the trash; returns how many."""
        count = 0
        for path in self.selected_paths():
            if self.controller.delete(path) is not None:
                count += 1
        return count

    def restore_selected(self) -> int:
        """Restore the selected trash entries; returns how many."""
        count = 0
        for item in self.trash_list.selectedItems():
            if self.controller.restore(Path(item.data(self.PATH_ROLE))) is not None:
                count += 1
        return count

    def show_trash(self) -> None:
        """Switch to the trash page."""
        self._refresh_trash()
        self._update_buttons()
        self.pages.setCurrentIndex(1)

    def show_library(self) -> None:
        """Back to the scenario list."""
        self.pages.setCurrentIndex(0)

    def _context_menu(self, pos) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction(self.tr("Open"), lambda: self.open_item(item))
        menu.addAction(self.tr("Rename…"), self.rename_selected)
        menu.addAction(self.tr("Duplicate"), self.duplicate_selected)
        menu.addAction(self.tr("Export…"), lambda: self.controller.export_files(self.selected_paths()))
        menu.addSeparator()
        menu.addAction(self.tr("Delete"), self.delete_selected)
        menu.exec(self.list.viewport().mapToGlobal(pos))


@dataclass(frozen=True)
class LibraryParts:
    """What :func:`install_library` built into the window: the controller (``MainWindow.documents``, which
    ``open_plan``/``save_plan`` delegate to), the list panel in its dock, the Recent menu, and the File menu's library,
    import and export actions with the toolbar's "Scenarios" toggle (None without a file toolbar)."""

    controller: LibraryController
    panel: LibraryPanel
    dock: QDockWidget
    recent_menu: QMenu
    library_action: QAction
    import_action: QAction
    export_action: QAction
    toolbar_action: QAction | None


def install_library(window: MainWindow, library: ScenarioLibrary | None = None) -> LibraryParts:
    """Put the scenario library into ``window``: File menu entries, the "Scenarios" dock, autosave.

    Returns the parts (:class:`LibraryParts`) for the window to keep; sets nothing on it. Does not offer crash
    recovery; the app calls :meth:`LibraryController.offer_recovery` once the window is shown.
    """
    controller = LibraryController(window, library)
    panel = LibraryPanel(controller)
    dock = QDockWidget(translate("LibraryPanel", "Scenarios"), window)
    dock.setObjectName("scenarioLibraryDock")
    dock.setWidget(panel)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable | QDockWidget.DockWidgetFeature.DockWidgetMovable)
    dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
    panel.setMinimumWidth(220)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    # Hidden until asked for (toolbar "Scenarios", Ctrl+L): the plan needs the width at 1400 px.
    dock.hide()

    menu = file_menu(window)
    recent = QMenu(translate("LibraryPanel", "Open &Recent"), window)
    recent.setObjectName("recentMenu")

    def fill_recent() -> None:
        recent.clear()
        files = controller.library.recent(10)
        for path in files:
            try:
                name = read_scenario_document(path).scenario.name
            except ScenarioFileError:
                name = path.stem
            act = recent.addAction(f"{name}  —  {path.name}")
            act.setToolTip(plain_tooltip(str(path)))
            act.triggered.connect(lambda _c=False, p=path: controller.open_plan(p, ask_discard=True))
        if not files:
            none = recent.addAction(translate("LibraryPanel", "No recent plans"))
            none.setEnabled(False)

    recent.aboutToShow.connect(fill_recent)
    fill_recent()
    save_action = getattr(window, "save_action", None)
    if save_action is not None:
        menu.insertMenu(save_action, recent)
    else:
        menu.addMenu(recent)

    library_action = dock.toggleViewAction()
    library_action.setText(translate("LibraryPanel", "Scenario &library"))
    library_action.setShortcut(QKeySequence("Ctrl+L"))
    import_action = QAction(translate("LibraryPanel", "&Import scenarios…"), window)
    import_action.triggered.connect(lambda: controller.import_file())
    export_action = QAction(translate("LibraryPanel", "E&xport scenarios…"), window)
    export_action.triggered.connect(lambda: controller.export_files(panel.selected_paths()))
    library_action.setToolTip(translate("LibraryPanel", "Show or hide your saved scenarios (Ctrl+L)"))
    toolbar = window.findChild(QToolBar, "fileToolbar")
    toolbar_action: QAction | None = None
    if toolbar is not None:
        toolbar_action = QAction(translate("LibraryPanel", "Scenarios"), window, checkable=True)
        toolbar_action.setToolTip(library_action.toolTip())
        toolbar_action.toggled.connect(dock.setVisible)
        dock.visibilityChanged.connect(lambda shown: toolbar_action.setChecked(dock.isVisible()))
        actions = toolbar.actions()
        anchor = getattr(window, "save_as_action", None)
        index = actions.index(anchor) if anchor in actions else len(actions) - 1
        if index + 1 < len(actions):
            toolbar.insertAction(actions[index + 1], toolbar_action)
        else:
            toolbar.addAction(toolbar_action)
    before = submenu_action(menu, EXPORT_CHART_MENU)
    if before is not None:
        for a in (library_action, import_action, export_action):
            menu.insertAction(before, a)
        menu.insertSeparator(before)
    else:
        menu.addSeparator()
        for a in (library_action, import_action, export_action):
            menu.addAction(a)
    return LibraryParts(controller=controller, panel=panel, dock=dock, recent_menu=recent,
                        library_action=library_action, import_action=import_action, export_action=export_action,
                        toolbar_action=toolbar_action)
