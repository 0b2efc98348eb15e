"""File → Import training config…: read the LLaMA-Factory / axolotl / HF / DeepSpeed / torchtune / ms-swift /
accelerate config or the launch script (``train.sh``) a user already has (issue #17) and apply what it says to the plan in one edit (one undo step).

The file is read by :func:`tuneplan.storage.training_config.read_training_config` (size limit, safe YAML, nothing
executed) and mapped by the core; the updates go through ``PlanStore.set_fields`` in one call, so a config the plan
cannot take changes nothing. A message box then lists what was taken, what could not be expressed and what was
ignored; an unreadable file shows a warning and changes nothing.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.terms import NOTES, Note
from tuneplan.core.training_config import FORMAT_NAMES, ConfigImport
from tuneplan.storage.training_config import TrainingConfigError, read_training_config
from tuneplan.ui.i18n import core_note_text, translate

__all__ = ["ask_training_config_path", "import_training_config", "import_summary", "show_import_summary",
           "summary_dialog"]

log = logging.getLogger(__name__)


def ask_training_config_path(window: QWidget) -> str | None:
    """Ask which training config to import (YAML or JSON, or a launch script such as ``train.sh``)."""
    path, _ = QFileDialog.getOpenFileName(
        window, translate("ConfigImport", "Import training config"), str(Path.home()),
        translate("ConfigImport", "Training configs and launch scripts (*.yaml *.yml *.json *.sh);;All files (*)"))
    return path or None


def summary_dialog(window: QWidget, title: str, text: str) -> QDialog:
    """The import summary as a dialog that fits the screen: the rich text in a scrolling browser (a stack's defaults
    make the list long; a message box grew past a 768-pixel screen and hid its OK button), and an OK button."""
    dialog = QDialog(window)
    dialog.setWindowTitle(title)
    layout = QVBoxLayout(dialog)
    browser = QTextBrowser(dialog)
    browser.setOpenLinks(False)
    browser.setHtml(text)
    layout.addWidget(browser)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, dialog)
    buttons.accepted.connect(dialog.accept)
    layout.addWidget(buttons)
    screen = (window.screen() if window is not None else None) or QGuiApplication.primaryScreen()
    room = screen.availableGeometry() if screen is not None else None
    width, height = 640, 560
    if room is not None:
        width, height = min(width, int(room.width() * 0.9)), min(height, int(room.height() * 0.8))
    dialog.resize(width, height)
    return dialog


def show_import_summary(window: QWidget, title: str, text: str) -> None:
    """Show what the import took and ignored (a modal dialog that scrolls; tests replace it)."""
    summary_dialog(window, title, text).exec()


def _note_text(window: Any, note: Note) -> str:
    """A config note in the UI language, the plan field named by its label and switches as on/off."""
    params = dict(note.params)
    field = params.get("field")
    if isinstance(field, str):
        label = getattr(window, "_field_label", lambda _p: "")(field)
        params["field"] = label or field.split(".", 1)[-1]
    if isinstance(params.get("setting"), bool):
        on = params["setting"]
        params["setting"] = translate("ConfigImport", "on") if on else translate("ConfigImport", "off")
    return core_note_text(note.model_copy(update={"params": params}))


def import_summary(window: Any, name: str, result: ConfigImport) -> str:
    """The message box's text (rich text): taken, not expressible, ignored."""
    lead = translate("ConfigImport", "{file} ({format}):")
    parts = [html.escape(lead.format(file=name, format=FORMAT_NAMES.get(result.format, result.format)))]

    def section(title: str, items: list[Any]) -> None:
        if items:
            rows = "".join(f"<li>{html.escape(_note_text(window, i.note))}</li>" for i in items)
            parts.append(f"<p><b>{html.escape(title)}</b></p><ul>{rows}</ul>")

    section(translate("ConfigImport", "Taken into the plan"), result.with_status("taken"))
    section(translate("ConfigImport", "Not expressible in the plan"), result.with_status("unsupported"))
    ignored = result.with_status("ignored")
    if ignored:
        heading = translate("ConfigImport", "Ignored (no effect on memory or time, or left to another file)")
        keys = ", ".join(i.key for i in ignored)
        parts.append(f"<p><b>{html.escape(heading)}</b></p><p>{html.escape(keys)}</p>")
    return "".join(f"<p>{p}</p>" if not p.startswith("<") else p for p in parts)


def _error_text(exc: TrainingConfigError) -> str:
    template = NOTES.get(exc.code)
    try:
        text = translate("Terms", template).format(**exc.params) if template else exc.text
    except (KeyError, IndexError, ValueError):
        text = exc.text
    return f"{exc.file}: {text}" if exc.file else text


def import_training_config(window: Any, path: str | Path | None = None) -> bool:
    """File → Import training config…: read ``path`` (asks for one when None) and apply it to the plan in one edit.

    Returns True when the plan took the config. A file that cannot be used shows a warning and changes nothing.
    """
    if path is None:
        path = ask_training_config_path(window)
        if not path:
            return False
    title = translate("ConfigImport", "Cannot import training config")
    try:
        result = read_training_config(path)
    except TrainingConfigError as exc:
        window.show_error(title, _error_text(exc))
        return False
    if result.updates and not window.store.set_fields(dict(result.updates)):
        refused = translate("ConfigImport", "{file}: the plan does not accept these settings")
        window.show_error(title, refused.format(file=Path(path).name))
        return False
    log.info("imported training config %s (%s): %d settings", path, result.format, len(result.updates))
    show_import_summary(window, translate("ConfigImport", "Training config imported"),
                        import_summary(window, Path(path).name, result))
    return True
