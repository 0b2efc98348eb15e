"""File → Export training config…: the plan as a starting config for its training stack, or a DeepSpeed JSON
(issue #17 part 5).

A small dialog: the format (LLaMA-Factory, axolotl, TRL, torchtune, ms-swift, DeepSpeed; the plan's stack's own
first), a read-only preview of the file exactly as it will be written, the plan settings that format cannot express
(in the UI language), and Save…, which asks for a file in the documents folder (``export_folder``) and writes it
atomically. The plan is read from the window's store and the preview follows its edits while the dialog is open
(a bound slot, disconnected when the dialog closes: the store outlives it). The document is built by
``tuneplan.core.config_export`` and rendered by ``tuneplan.storage.config_export``, as the CLI's ``export-config``
does, so both write the same file.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.config_export import EXPORT_FORMAT_NAMES, EXPORT_FORMATS, ConfigExport, default_format
from tuneplan.core.terms import Note
from tuneplan.storage.config_export import (
    ConfigWriteError,
    build_export,
    default_file_name,
    render_config,
    write_config,
)
from tuneplan.ui.export_folder import export_folder, remember_export
from tuneplan.ui.i18n import core_note_text, translate

__all__ = ["ConfigExportDialog", "ask_config_path", "export_training_config"]

log = logging.getLogger(__name__)


def ask_config_path(parent: QWidget, suggestion: Path, syntax: str) -> str | None:
    """Ask where to save the config (the documents folder, the suggested name); None when cancelled."""
    kinds = translate("ConfigExport", "YAML files (*.yaml *.yml)") if syntax == "yaml" else \
        translate("ConfigExport", "JSON files (*.json)")
    every = translate("ConfigExport", "All files (*)")
    path, _ = QFileDialog.getSaveFileName(parent, translate("ConfigExport", "Save training config"), str(suggestion),
                                          f"{kinds};;{every}")
    if not path:
        return None
    if Path(path).suffix == "":
        path += ".json" if syntax == "json" else ".yaml"
    return path


class ConfigExportDialog(QDialog):
    """Format, preview and Save… for the store's plan (see the module docstring).

    Attributes:
        format_combo: the format (item data: the format key).
        preview: the file's text, read-only.
        notes_label: what the format cannot express, one item per note.
        save_button: Save…
        export: the :class:`ConfigExport` shown; ``text`` its rendering.
    """

    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent if parent is not None else window if isinstance(window, QWidget) else None)
        self.window = window
        self.store = window.store
        self.setWindowTitle(self.tr("Export training config"))
        self.format_combo = QComboBox()
        for key in EXPORT_FORMATS:
            label = EXPORT_FORMAT_NAMES[key]
            label = self.tr("DeepSpeed JSON") if key == "deepspeed" else self.tr("{name} YAML").format(name=label)
            if key == "torchtune":
                label = self.tr("torchtune recipe overrides")
            self.format_combo.addItem(label, key)
        first = default_format(self.store.scenario.training) or "llama-factory"
        self.format_combo.setCurrentIndex(EXPORT_FORMATS.index(first))
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        # long lines (the header's notes) wrap on screen; the file keeps them as they are
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.preview.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.preview.setMinimumSize(560, 360)
        self.notes_label = QLabel()
        self.notes_label.setWordWrap(True)
        self.notes_label.setTextFormat(Qt.TextFormat.RichText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button = QPushButton(self.tr("&Save…"))
        buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.save_button.clicked.connect(lambda: self.save())
        form = QFormLayout()
        form.addRow(self.tr("&Format:"), self.format_combo)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.notes_label)
        layout.addWidget(buttons)
        self.export: ConfigExport | None = None
        self.text = ""
        self.format_combo.currentIndexChanged.connect(self.refresh)
        # a bound slot, disconnected when the dialog closes: the store outlives the dialog
        self.store.result_changed.connect(self._plan_changed)
        self.finished.connect(self._detach)
        self.refresh()

    @property
    def format(self) -> str:
        return str(self.format_combo.currentData())

    def _plan_changed(self, _result: Any = None) -> None:
        self.refresh()

    def _detach(self, _result: int = 0) -> None:
        try:
            self.store.result_changed.disconnect(self._plan_changed)
        except (RuntimeError, TypeError):  # already disconnected
            pass

    def _note_text(self, note: Note) -> str:
        """A note in the UI language, the plan field named by the form's label and switches as on/off."""
        params = dict(note.params)
        field = params.get("field")
        if isinstance(field, str):
            label = getattr(self.window, "_field_label", lambda _p: "")(field)
            params["field"] = label or field.split(".", 1)[-1]
        if isinstance(params.get("setting"), bool):
            params["setting"] = self.tr("on") if params["setting"] else self.tr("off")
        return core_note_text(note.model_copy(update={"params": params}))

    def refresh(self, _index: int = 0) -> None:
        """Rebuild the export of the store's plan in the chosen format and show it."""
        self.export = build_export(self.store.scenario, self.format, estimate=self.store.result)
        self.text = render_config(self.export)
        scroll = self.preview.verticalScrollBar().value()
        self.preview.setPlainText(self.text)
        self.preview.verticalScrollBar().setValue(scroll)
        if self.export.notes:
            head = self.tr("Not in this file (the format cannot express it, or takes its own default):")
            rows = "".join(f"<li>{html.escape(self._note_text(n))}</li>" for n in self.export.notes)
            self.notes_label.setText(f"<p>{html.escape(head)}</p><ul>{rows}</ul>")
        else:
            self.notes_label.setText(html.escape(self.tr("Every setting of the plan is in this file.")))

    def save(self, path: str | Path | None = None) -> Path | None:
        """Write the file (asks where when ``path`` is None); returns it, or None when cancelled or failed (the error
        is shown by the window)."""
        assert self.export is not None
        if path is None:
            path = ask_config_path(self, export_folder() / default_file_name(self.export), self.export.syntax)
            if not path:
                return None
            remember_export(path)
        target = Path(path)
        try:
            written = write_config(target, render_config(self.export, target.name))
        except ConfigWriteError as exc:
            log.warning("training config export failed: %s", exc)
            self.window.show_error(self.tr("Cannot export training config"), str(exc))
            return None
        log.info("exported training config %s (%s)", written, self.export.format)
        status = getattr(self.window, "statusBar", None)
        if status is not None:
            status().showMessage(self.tr("Exported {path}").format(path=written), 5000)
        return written


def export_training_config(window: Any) -> ConfigExportDialog:
    """File → Export training config…: open the (non-modal) dialog for the window's plan and return it."""
    dialog = ConfigExportDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
