"""Dataset → From a file…: count the tokens of the user's own dataset and plan with them (issue #19).

The dialog asks for the file, what its rows hold and the model's tokenizer (the plan's model in the local
Hugging Face cache, another cached model, or a local folder), then counts in a worker thread
(:class:`_Count`: :func:`tuneplan.storage.dataset_file.count_dataset` in a Python thread the dialog polls on a
timer) with a progress bar and Cancel, so the window never waits on a large file. It shows the length histogram against the
plan's sequence length and the three figures that follow from it (share truncated, padding waste under dynamic
padding, packing efficiency, from :func:`tuneplan.core.lengths.length_stats`). Apply writes the fields of
:func:`tuneplan.core.lengths.dataset_updates` through ``AppStore.set_fields``: one edit, one undo step. A file,
field or tokenizer that cannot be used is one message in the dialog, and nothing else changes.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.lengths import LengthStats, dataset_updates, length_stats
from tuneplan.core.terms import Note
from tuneplan.storage.dataset_file import (
    DEFAULT_SAMPLE_ROWS,
    FORMAT_NAMES,
    CountCancelled,
    DatasetCount,
    DatasetFileError,
    cached_tokenizers,
    count_dataset,
    model_tokenizer_ref,
)
from tuneplan.ui.fields import ERROR_COLOR, ComboBox, SpinBox
from tuneplan.ui.i18n import core_note_text, fmt_number
from tuneplan.ui.store import AppStore
from tuneplan.ui.theme import is_dark, style_chart

__all__ = ["DatasetFileDialog"]

log = logging.getLogger(__name__)

BAR_COLOR = "#5b8def"
TRUNCATED_COLOR = "#e57373"
SEQ_LEN_COLOR = "#c62828"


class _Count:
    """One count of :func:`count_dataset` in a Python worker thread; ``cancel`` (a :class:`threading.Event`) stops it.

    The worker touches no Qt object: it writes its progress and its answer here, and the dialog reads them on a
    timer. (A :class:`QThread` whose signals carried the answer across threads crashed PySide6 6.11 some time
    later, in an unrelated paint: a use-after-free of the thread's wrapper.)

    Attributes:
        fraction, rows: progress so far. result: the :class:`DatasetCount` or the :class:`DatasetFileError`
            (a :class:`CountCancelled` when cancelled), None while it runs.
    """

    def __init__(self, path: str, tokenizer: str, field: str, sample_rows: int) -> None:
        self.path, self.tokenizer, self.field, self.sample_rows = path, tokenizer, field, sample_rows
        self.cancel = threading.Event()
        self.fraction, self.rows = 0.0, 0
        self.result: DatasetCount | DatasetFileError | None = None
        self.thread = threading.Thread(target=self._run, name="tuneplan-dataset-count", daemon=True)

    def _progress(self, fraction: float, rows: int) -> None:
        self.fraction, self.rows = fraction, rows

    def _run(self) -> None:  # the worker thread
        try:
            self.result = count_dataset(self.path, self.tokenizer, field=self.field, sample_rows=self.sample_rows,
                                        progress=self._progress, cancel=self.cancel)
        except DatasetFileError as exc:
            self.result = exc
        except Exception as exc:  # never lose a worker's failure silently
            log.exception("counting %s failed", self.path)
            self.result = DatasetFileError("dataset.unreadable", Path(self.path).name,
                                           reason=" ".join(str(exc).split())[:200] or type(exc).__name__)

    @property
    def running(self) -> bool:
        """True until the worker has ended."""
        return self.thread.is_alive()


def error_text(exc: DatasetFileError) -> str:
    """A dataset-file error in the UI language: ``file: message``, numbers in the user's locale."""
    text = core_note_text(Note(code=exc.code, params=exc.params))
    return f"{exc.file}: {text}" if exc.file else text


class DatasetFileDialog(QDialog):
    """Count a dataset file's tokens and set the plan's dataset from them.

    Attributes:
        pick_file, pick_tokenizer_folder: ``() -> path or None`` (tests replace the file dialogs).
        count: the last :class:`DatasetCount`; ``stats``: its :class:`LengthStats` for the plan; None before.
    """

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle(self.tr("Dataset from a file"))
        self.setObjectName("datasetFileDialog")
        self.count: DatasetCount | None = None
        self.stats: LengthStats | None = None
        self.job: _Count | None = None
        self._poll = QTimer(self)
        self._poll.setInterval(50)
        self._poll.timeout.connect(self._check_job)
        self.pick_file: Callable[[], str | None] = self._ask_file
        self.pick_tokenizer_folder: Callable[[], str | None] = self._ask_tokenizer_folder

        form = QFormLayout()
        self.path_edit = QLineEdit()
        self.path_edit.setAccessibleName(self.tr("Dataset file"))
        self.path_edit.setPlaceholderText(self.tr("JSONL, JSON, CSV, TSV, Parquet or a datasets folder"))
        self.browse_button = QPushButton(self.tr("Browse…"))
        self.browse_button.clicked.connect(self._browse)
        form.addRow(self.tr("File:"), _row(self.path_edit, self.browse_button))

        self.field_combo = ComboBox()
        self.field_combo.setAccessibleName(self.tr("Field"))
        for key, label in (("auto", self.tr("Detect from the first row")), ("messages", self.tr("Chat messages")),
                           ("prompt-completion", self.tr("Prompt and completion")),
                           ("instruction-output", self.tr("Instruction, input and output (Alpaca)")),
                           ("preference", self.tr("Preference pairs (chosen and rejected)")),
                           ("text", self.tr("Plain text"))):
            self.field_combo.addItem(label, key)
        self.field_combo.setToolTip(self.tr("Chat messages go through the model's chat template; text gets the "
                                            "tokenizer's special tokens and an end-of-text token"))
        form.addRow(self.tr("Rows hold:"), self.field_combo)

        self.tokenizer_combo = ComboBox()
        self.tokenizer_combo.setEditable(True)
        self.tokenizer_combo.setAccessibleName(self.tr("Tokenizer"))
        self.tokenizer_combo.setToolTip(self.tr("A model folder or tokenizer.json, or a model in the local Hugging "
                                                "Face cache; nothing is downloaded"))
        s = store.scenario
        own = model_tokenizer_ref(s.model_id, s.model.name)
        for ref in dict.fromkeys([r for r in [own, *cached_tokenizers()] if r]):
            self.tokenizer_combo.addItem(ref)
        self.tokenizer_combo.setCurrentIndex(0 if own else -1)
        self.tokenizer_button = QPushButton(self.tr("Folder…"))
        self.tokenizer_button.clicked.connect(self._browse_tokenizer)
        form.addRow(self.tr("Tokenizer:"), _row(self.tokenizer_combo, self.tokenizer_button))

        self.sample_spin = SpinBox()
        self.sample_spin.setRange(100, 10_000_000)
        self.sample_spin.setSingleStep(10_000)
        self.sample_spin.setValue(DEFAULT_SAMPLE_ROWS)
        self.sample_spin.setSuffix(self.tr(" rows"))
        self.sample_spin.setAccessibleName(self.tr("Rows counted at most"))
        self.sample_spin.setToolTip(self.tr("Larger files are counted on a uniform sample of this many rows"))
        form.addRow(self.tr("Count at most:"), self.sample_spin)

        self.count_button = QPushButton(self.tr("Count tokens"))
        self.count_button.setDefault(True)
        self.count_button.clicked.connect(self.start_count)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setAccessibleName(self.tr("Counting progress"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_count)
        counting = _row(self.count_button, self.progress, self.cancel_button)

        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.error = QLabel()
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # quotes the file's own text
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ERROR_COLOR};")
        self.error.setAccessibleName(self.tr("Error"))
        self.error.hide()

        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        self.plot.setMinimumHeight(200)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.getPlotItem().hideButtons()
        self.plot.setLabel("bottom", self.tr("tokens per example"))
        self.plot.setLabel("left", self.tr("examples"))
        self.bars: pg.BarGraphItem | None = None
        self.cut_bars: pg.BarGraphItem | None = None
        self.seq_line = pg.InfiniteLine(angle=90, movable=False,
                                        pen=pg.mkPen(SEQ_LEN_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                        label=self.tr("sequence length"), labelOpts={"position": 0.9, "color": SEQ_LEN_COLOR})
        self.seq_line.hide()
        self.plot.addItem(self.seq_line)

        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        figures = QFormLayout()
        self.truncated_label, self.padding_label, self.packing_label = QLabel(), QLabel(), QLabel()
        for label in (self.truncated_label, self.padding_label, self.packing_label):
            label.setTextFormat(Qt.TextFormat.PlainText)
        figures.addRow(self.tr("Truncated:"), self.truncated_label)
        figures.addRow(self.tr("Padding waste:"), self.padding_label)
        figures.addRow(self.tr("Packing efficiency:"), self.packing_label)
        self.notes = QLabel()
        self.notes.setTextFormat(Qt.TextFormat.PlainText)  # notes quote the file's rows
        self.notes.setWordWrap(True)
        self.longest_check = QCheckBox()
        self.longest_check.setChecked(True)
        self.longest_check.hide()

        self.buttons = QDialogButtonBox()
        self.apply_button = self.buttons.addButton(self.tr("Apply to plan"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        close = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.reject)

        col = QVBoxLayout(self)
        col.addLayout(form)
        col.addWidget(counting)
        col.addWidget(self.status)
        col.addWidget(self.error)
        col.addWidget(self.plot, 1)
        col.addWidget(self.summary)
        col.addLayout(figures)
        col.addWidget(self.notes)
        col.addWidget(self.longest_check)
        col.addWidget(self.buttons)
        self.resize(640, 620)

    # ------------------------------------------------------------------ inputs
    def _ask_file(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Choose a dataset file"), str(Path.home()),
            self.tr("Datasets (*.jsonl *.ndjson *.json *.csv *.tsv *.parquet *.arrow);;All files (*)"))
        return path or None

    def _ask_tokenizer_folder(self) -> str | None:
        return QFileDialog.getExistingDirectory(self, self.tr("Choose a model folder with tokenizer.json"),
                                                str(Path.home())) or None

    def _browse(self) -> None:
        path = self.pick_file()
        if path:
            self.path_edit.setText(path)

    def _browse_tokenizer(self) -> None:
        path = self.pick_tokenizer_folder()
        if path:
            self.tokenizer_combo.setEditText(path)

    # ------------------------------------------------------------------ counting
    @property
    def busy(self) -> bool:
        """True while a count runs."""
        return self.job is not None

    def start_count(self) -> bool:
        """Count the chosen file in a worker thread; False when the inputs are missing or a count runs."""
        if self.busy:
            return False
        path, tokenizer = self.path_edit.text().strip(), self.tokenizer_combo.currentText().strip()
        if not path:
            self._show_error(self.tr("Choose a dataset file first."))
            return False
        if not tokenizer:
            self._show_error(error_text(DatasetFileError("dataset.no_tokenizer_given")))
            return False
        self.error.hide()
        self.apply_button.setEnabled(False)
        self.progress.setValue(0)
        self.status.setText(self.tr("Counting…"))
        self.job = _Count(path, tokenizer, str(self.field_combo.currentData()), self.sample_spin.value())
        self._set_busy(True)
        self.job.thread.start()
        self._poll.start()
        return True

    def cancel_count(self) -> None:
        """Stop the running count (its answer, when it comes, is a cancellation)."""
        if self.job is not None:
            self.job.cancel.set()
            self.status.setText(self.tr("Cancelling…"))

    def _set_busy(self, busy: bool) -> None:
        self.cancel_button.setEnabled(busy)
        for w in (self.count_button, self.browse_button, self.tokenizer_button, self.path_edit, self.field_combo,
                  self.tokenizer_combo, self.sample_spin):
            w.setEnabled(not busy)

    def _check_job(self) -> None:
        """The timer's look at the worker: its progress, and its answer once it has ended."""
        job = self.job
        if job is None:
            self._poll.stop()
            return
        if job.running:
            self.progress.setValue(round(job.fraction * 1000))
            if not job.cancel.is_set():
                self.status.setText(self.tr("Counting… {rows} rows read").format(rows=fmt_number(job.rows)))
            return
        self._poll.stop()
        self.job = None
        self._set_busy(False)
        if isinstance(job.result, DatasetCount):
            self._on_counted(job.result)
        else:
            self._on_failed(job.result or DatasetFileError("dataset.cancelled"))

    def _on_failed(self, exc: DatasetFileError) -> None:
        self.progress.setValue(0)
        if isinstance(exc, CountCancelled):
            self.status.setText(self.tr("Cancelled: nothing was counted."))
            return
        self.status.setText("")
        self._show_error(error_text(exc))

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()

    def _on_counted(self, count: DatasetCount) -> None:
        self.progress.setValue(1000)
        self.count = count
        try:
            self.stats = length_stats(count.counts, self.store.scenario.training, rows=count.rows)
        except ValueError as exc:  # count_dataset never returns no counts; kept as one message all the same
            self._show_error(str(exc))
            return
        self.status.setText(self.tr("{file}: {format}, counted with {tokenizer}").format(
            file=count.file, format=FORMAT_NAMES.get(count.format, count.format), tokenizer=count.tokenizer))
        self._show_stats(count, self.stats)
        self.apply_button.setEnabled(True)

    # ------------------------------------------------------------------ results
    def _show_stats(self, count: DatasetCount, s: LengthStats) -> None:
        for item in (self.bars, self.cut_bars):
            if item is not None:
                self.plot.removeItem(item)
        whole = [b for b in s.histogram if b.count > b.truncated]
        self.bars = pg.BarGraphItem(x0=[b.start for b in whole], x1=[b.end for b in whole],
                                    height=[b.count - b.truncated for b in whole], brush=BAR_COLOR, pen=None)
        self.plot.addItem(self.bars)
        self.cut_bars = None
        cut = [b for b in s.histogram if b.truncated]
        if cut:  # examples longer than the sequence length, which are cut to it: stacked in red
            self.cut_bars = pg.BarGraphItem(x0=[b.start for b in cut], x1=[b.end for b in cut],
                                            y0=[b.count - b.truncated for b in cut], height=[b.truncated for b in cut],
                                            brush=TRUNCATED_COLOR, pen=None)
            self.plot.addItem(self.cut_bars)
        ends = [b.end for b in s.histogram]
        self.seq_line.setValue(s.seq_len)
        self.seq_line.show()
        self.plot.setXRange(0, ends[-1] if ends else s.seq_len, padding=0.02)
        style_chart(self.plot, is_dark(self))

        counted = (self.tr("{rows} rows, {counted} counted (a sample)") if s.counted < s.rows
                   else self.tr("{rows} rows, all counted"))
        lines = [counted.format(rows=fmt_number(s.rows), counted=fmt_number(s.counted))]
        if count.broken:
            lines.append(self.tr("{broken} rows left out (unreadable or without the field)").format(
                broken=fmt_number(count.broken)))
        lines.append(self.tr("Tokens per example: mean {mean}, median {p50}, 95th percentile {p95}, longest {max}")
                     .format(mean=fmt_number(s.mean_tokens, 1), p50=fmt_number(s.p50_tokens),
                             p95=fmt_number(s.p95_tokens), max=fmt_number(s.max_tokens)))
        lines.append(self.tr("Spread of the kept lengths: standard deviation {std} tokens (sizes padding-free "
                             "batches)").format(std=fmt_number(s.std_kept_tokens, 1)))
        self.summary.setText("\n".join(lines))
        self.truncated_label.setText(self.tr("{share} % of the examples (longer than {seq_len} tokens)").format(
            share=fmt_number(100 * s.truncated_share, 1), seq_len=fmt_number(s.seq_len)))
        padding = self.tr("{share} % with dynamic padding at micro-batch {batch} (padding efficiency {eff})").format(
            share=fmt_number(100 * s.padding_waste, 1), batch=fmt_number(s.micro_batch),
            eff=fmt_number(s.padding_efficiency, 2))
        if s.ranks > 1:  # every step waits for the GPU that drew the longest examples
            padding += "\n" + self.tr("the slowest of {gpus} GPUs pads to {tokens} tokens per row (efficiency "
                                      "{eff})").format(gpus=fmt_number(s.ranks),
                                                       tokens=fmt_number(s.rank_batch_max_tokens, 0),
                                                       eff=fmt_number(s.rank_padding_efficiency, 2))
        self.padding_label.setText(padding)
        self.packing_label.setText(self.tr("{share} % of each packed sequence holds tokens ({rows} sequences)").format(
            share=fmt_number(100 * s.packing_efficiency, 1), rows=fmt_number(s.packed_rows)))
        self.notes.setText("\n".join(core_note_text(n) for n in (*count.notes, *s.notes)))
        shorten = "training.seq_len" in dataset_updates(s)
        self.longest_check.setVisible(shorten)
        if shorten:
            text = (self.tr("Set the sequence length to the longest example ({tokens} tokens): the longest "
                            "example of a padding-free batch") if s.sequence_mode == "padding-free" else
                    self.tr("Set the sequence length to the longest example ({tokens} tokens): "
                            "the longest batch under dynamic padding"))
            self.longest_check.setText(text.format(tokens=fmt_number(s.longest_kept_tokens)))

    def updates(self) -> dict[str, Any]:
        """The plan fields Apply sets (empty before a count)."""
        if self.stats is None:
            return {}
        return dataset_updates(self.stats, longest_batch=self.longest_check.isChecked())

    def apply(self) -> bool:
        """Set the plan's dataset from the count (one edit, one undo step) and close; False when refused."""
        updates = self.updates()
        if not updates:
            return False
        if not self.store.set_fields(updates, error_field="dataset.examples"):
            message = self.store.errors.get("dataset.examples", "")
            self._show_error(self.tr("The plan does not take these figures: {error}").format(error=message))
            return False
        self.accept()
        return True

    # ------------------------------------------------------------------ closing
    def done(self, result: int) -> None:  # noqa: D102 - QDialog.done: a running count stops first
        self.stop_worker()
        super().done(result)
        # pyqtgraph's items hold each other in reference cycles, so the cyclic collector frees them at a time of its
        # own; run inside a later paint, freeing graphics items crashed PySide6 (QPainter::restore). Collected here,
        # outside any paint, instead (a few milliseconds).
        gc.collect()

    def stop_worker(self, wait_s: float = 10.0) -> None:
        """Cancel a running count and wait for its thread to end."""
        job, self.job = self.job, None
        self._poll.stop()
        if job is not None:
            job.cancel.set()
            job.thread.join(wait_s)


def _row(*widgets: QWidget) -> QWidget:
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    for i, w in enumerate(widgets):
        row.addWidget(w, 1 if i == 0 else 0)
    return box
