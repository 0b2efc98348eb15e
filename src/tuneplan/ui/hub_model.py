"""The model panel's Hugging Face field: type or paste ``org/name`` (or a Hub URL, or ``org/name@revision``).

Models in the local HF cache and models imported or fetched before are offered as you type (a completer over
``tuneplan.storage.hub.cached_models`` and ``tuneplan.storage.recent_models``). Pressing Enter or Load reads the
model in a worker thread (:class:`QThreadPool`), so the window never waits on the network: the field shows
"Fetching…" meanwhile; a newer request or Cancel makes an older answer be dropped when it arrives. A failure is
one sentence under the field, and the plan keeps its model.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QStringListModel, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QCompleter, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from tuneplan.storage.hub import HubError, HubModel, cached_models, parse_model_ref, resolve_model
from tuneplan.storage.recent_models import (
    RecentModel,
    RecentModelsError,
    known_checkpoint,
    load_recent_models,
    remember_model,
)
from tuneplan.ui.fields import ERROR_COLOR

__all__ = ["HubModelField"]

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Carries a worker's answer to the UI thread (a queued signal)."""

    done = Signal(int, object)  # request number, HubModel | HubError | list[str]


class _Job(QRunnable):
    def __init__(self, relay: _Relay, number: int, work: Callable[[], Any]) -> None:
        super().__init__()
        self.relay, self.number, self.work = relay, number, work

    def run(self) -> None:  # a worker thread
        try:
            answer = self.work()
        except HubError as exc:
            answer = exc
        except Exception as exc:  # never lose a worker's failure silently
            log.exception("model fetch failed")
            answer = HubError(f"cannot read the model: {exc}")
        try:
            self.relay.done.emit(self.number, answer)
        except RuntimeError:  # the field was closed meanwhile
            pass


def _fetch_and_remember(text: str) -> HubModel:
    model = resolve_model(text, known=known_checkpoint)
    try:
        remember_model(RecentModel(kind="hub", ref=str(model.ref), name=model.architecture.name,
                                   commit=model.commit, checkpoint=model.architecture.checkpoint))
    except RecentModelsError as exc:
        log.warning("%s", exc)
    return model


def _suggestions() -> list[str]:
    """Cached models first (offline), then the recent ones, each once."""
    names = [m.repo_id for m in cached_models()]
    names += [m.ref for m in load_recent_models()]
    return list(dict.fromkeys(names))


class HubModelField(QWidget):
    """A line edit for a Hugging Face model id with suggestions, a Load button and a status line.

    ``apply(architecture) -> bool`` puts a loaded model into the plan; ``import_file(path) -> bool`` handles a
    ``config.json`` path typed or picked from the suggestions. ``pool`` runs the fetches (tests may pass their own).
    """

    fetched = Signal(object)  # the HubModel that went into the plan

    def __init__(self, apply: Callable[[Any], bool], import_file: Callable[[str], bool],
                 error_text: Callable[[], str], parent: QWidget | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._apply, self._import_file, self._error_text = apply, import_file, error_text
        self._pool = pool or QThreadPool.globalInstance()
        self._relay = _Relay(self)
        self._relay.done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)
        self._numbers = itertools.count(1)
        self._pending = 0  # the request whose answer counts; 0: none
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(self.tr("Hugging Face id, e.g. Qwen/Qwen2.5-7B-Instruct"))
        self.edit.setAccessibleName(self.tr("Hugging Face model"))
        self.edit.setToolTip(self.tr(
            "Type or paste org/name, org/name@revision or a Hub URL. Models in your Hugging Face cache are offered "
            "first and read offline; others are read from the Hub (config.json and the safetensors headers only, "
            "never weights or code). Gated models need HF_TOKEN or 'hf auth login'."))
        self.completer_model = QStringListModel(self)
        completer = QCompleter(self.completer_model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setMaxVisibleItems(15)
        self.edit.setCompleter(completer)
        self.edit.returnPressed.connect(self.load)
        self.load_button = QPushButton(self.tr("Load"))
        self.load_button.setAccessibleName(self.tr("Load Hugging Face model"))
        self.load_button.clicked.connect(self.load)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        row.addWidget(self.edit, 1)
        row.addWidget(self.load_button)
        row.addWidget(self.cancel_button)
        col.addLayout(row)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # names from the Hub are shown as text
        self.status.setWordWrap(True)
        self.status.setAccessibleName(self.tr("Hugging Face model status"))
        self.status.hide()
        col.addWidget(self.status)
        QTimer.singleShot(0, self.refresh_suggestions)  # the cache scan runs off the UI thread

    # ------------------------------------------------------------------ suggestions
    def refresh_suggestions(self) -> None:
        """Rescan the HF cache and the recent list (in the worker pool) and offer them as you type."""
        self._pool.start(_Job(self._relay, 0, _suggestions))

    # ------------------------------------------------------------------ fetching
    @property
    def busy(self) -> bool:
        """True while a fetch is under way."""
        return self._pending != 0

    def load(self, text: str | None = None) -> bool:
        """Load the model named in the field (or ``text``): a Hub id is fetched in the background (returns True when
        started); an existing ``config.json`` path is imported at once."""
        text = (self.edit.text() if text is None else text).strip()
        if not text:
            return False
        if parse_model_ref(text) is None:
            if Path(text).expanduser().exists():
                self._show("")
                return self._import_file(text)
            self._show(self.tr("{text} is not a Hugging Face model id (org/name, org/name@revision or a Hub URL)")
                       .format(text=text), error=True)
            return False
        self._pending = next(self._numbers)
        self._show(self.tr("Fetching {model}…").format(model=text))
        self.load_button.setEnabled(False)
        self.cancel_button.show()
        self._pool.start(_Job(self._relay, self._pending, lambda: _fetch_and_remember(text)))
        return True

    def cancel(self) -> None:
        """Forget the fetch under way: its answer, when it comes, changes nothing."""
        if self._pending:
            self._pending = 0
            self._idle()
            self._show(self.tr("Cancelled; the plan keeps its model."))

    def _idle(self) -> None:
        self.load_button.setEnabled(True)
        self.cancel_button.hide()

    def _on_done(self, number: int, answer: object) -> None:
        if number == 0:
            if isinstance(answer, list):
                self.completer_model.setStringList([str(a) for a in answer])
            return
        if number != self._pending:
            return  # cancelled or superseded
        self._pending = 0
        self._idle()
        if isinstance(answer, HubError):
            self._show(self.tr("Could not load: {error}. The plan keeps its model.").format(error=answer), error=True)
            return
        assert isinstance(answer, HubModel)
        if not self._apply(answer.architecture):
            self._show(self.tr("Could not use {model}: {error}").format(
                model=answer.ref, error=self._error_text()), error=True)
            return
        where = self.tr("from the local Hugging Face cache") if answer.origin == "cache" else self.tr("from the Hub")
        self._show(" ".join([self.tr("Loaded {model} {where}.").format(model=answer.ref, where=where),
                             *answer.notes]))
        self.fetched.emit(answer)
        self.refresh_suggestions()

    def _show(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {ERROR_COLOR};" if error else "color: #666666;")
        self.status.setText(text)
        self.status.setVisible(bool(text))
