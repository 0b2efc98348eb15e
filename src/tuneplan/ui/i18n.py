"""Tuneplan in the user's language: Qt translators, the language setting, locale-aware numbers.

* :func:`install_translator` loads ``tuneplan_<lang>.qm`` (and Qt's own ``qtbase_<lang>.qm`` for the
  standard buttons and file dialogs) for the language chosen under View → Language, or for the
  system locale when the choice is "System". English is the source language and needs no file.
* The choice is stored in ``<data dir>/ui.ini`` (``view/language``), next to the theme, so a test's
  ``TUNEPLAN_DATA_DIR`` isolates it. A new choice applies when Tuneplan next starts: the menu offers
  to restart right away (:func:`install_language_menu`).
* Numbers and US dollars are written with :func:`number_locale` (the system locale, or the chosen
  language's when the user picked one): :func:`fmt_number`, :func:`fmt_usd`, :func:`fmt_gib`.
* The core returns data, not sentences: its notes, warnings, advice and the GPU probe's messages are
  coded notes (``tuneplan.core.terms.Note``: a code and typed parameters, English templates in
  ``tuneplan.core.terms.NOTES``). :func:`core_note_text` translates a note's template in the ``Terms``
  context and fills it with locale-aware numbers (:func:`note_number`); nothing is parsed. Memory
  component labels and the verdict are put into words here too (:func:`component_label`,
  :func:`verdict_text`); formulas and literature sources stay in English on purpose (they are
  code-like and cite English papers) and their tooltips say so.

The ``.qm`` files are found in a wheel (``tuneplan/translations``), in a PyInstaller bundle
(``<bundle>/resources/translations``) and in a source checkout (``resources/translations``):
:func:`translations_dir`.
"""

from __future__ import annotations

import html
import importlib.resources
import logging
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QProcess,
    QSettings,
    Qt,
    QTranslator,
)

from tuneplan.ui.settings import ui_settings

if TYPE_CHECKING:
    from tuneplan.core.result import MemoryComponent

__all__ = [
    "core_note_text",
    "note_number",
    "LANGUAGES",
    "TranslatedLabels",
    "component_formula",
    "component_label",
    "current_language",
    "fmt_capacity",
    "fmt_gib",
    "fmt_number",
    "fmt_quantity",
    "fmt_usd",
    "format_hours",
    "install_language_menu",
    "install_translator",
    "language_names",
    "number_locale",
    "peak_phase_text",
    "plain_usd",
    "plain_message_box",
    "plain_text",
    "plain_tooltip",
    "qm_path",
    "remove_translators",
    "restart_app",
    "set_stored_language",
    "stored_language",
    "suggestion_detail",
    "suggestion_title",
    "term_label",
    "translations_dir",
    "verdict_color",
    "verdict_risk_text",
    "verdict_state",
    "verdict_summary",
    "verdict_text",
]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

log = logging.getLogger(__name__)

#: The choices of View → Language, as stored: follow the system, or one of the shipped languages.
LANGUAGES = ("system", "en", "zh_CN")
SETTINGS_KEY = "view/language"
QM_PREFIX = "tuneplan_"

#: Translators this module installed (removed again by the next install or remove_translators).
_installed: list[QTranslator] = []
_language = "en"


# ------------------------------------------------------------------------------------------ files


def _candidate_dirs() -> Iterator[Path]:
    try:  # a wheel: hatch force-includes resources/translations/*.qm as tuneplan/translations
        yield Path(str(importlib.resources.files("tuneplan") / "translations"))
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - tuneplan is always importable here
        pass
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:  # the PyInstaller bundle: resources/ is collected by packaging/spec_inputs.py
        yield Path(meipass) / "resources" / "translations"
    yield Path(__file__).resolve().parents[3] / "resources" / "translations"  # a source checkout


def translations_dir() -> Path | None:
    """The folder holding ``tuneplan_*.qm``: wheel, PyInstaller bundle or source checkout; ``None`` if none."""
    for folder in _candidate_dirs():
        if folder.is_dir() and any(folder.glob(f"{QM_PREFIX}*.qm")):
            return folder
    return None


def qm_path(language: str) -> Path | None:
    """The compiled translation for ``language`` (``zh_CN``), or ``None`` when it does not ship."""
    folder = translations_dir()
    if folder is None:
        return None
    path = folder / f"{QM_PREFIX}{language}.qm"
    return path if path.is_file() else None


# ------------------------------------------------------------------------------------------ setting


def _settings() -> QSettings:
    return ui_settings()


def stored_language() -> str:
    """The language chosen under View → Language: ``system`` (default), ``en`` or ``zh_CN``."""
    try:
        value = str(_settings().value(SETTINGS_KEY, "system"))
    except OSError:
        return "system"
    return value if value in LANGUAGES else "system"


def set_stored_language(language: str) -> None:
    """Remember ``language`` (one of :data:`LANGUAGES`) for the next start.

    Raises:
        ValueError: for a language Tuneplan does not ship.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    try:
        settings = _settings()
        settings.setValue(SETTINGS_KEY, language)
        settings.sync()
    except OSError as exc:  # an unwritable data folder must not break the menu
        log.warning("cannot store the language: %s", exc)


def language_names() -> dict[str, str]:
    """The menu's entries: "System" in the current language, each language in its own."""
    return {
        "system": translate("Language", "&System language"),
        "en": "&English",
        "zh_CN": "简体中文(&C)",
    }


# ------------------------------------------------------------------------------------------ translators


def _system_language(locale: QLocale) -> str:
    """``zh_CN`` for Simplified Chinese locales (mainland China, Singapore, ``zh-Hans``), else ``en``."""
    if locale.language() != QLocale.Language.Chinese:
        return "en"
    if locale.script() == QLocale.Script.TraditionalChineseScript:
        return "en"  # no Traditional Chinese translation yet: English rather than the wrong script
    if locale.script() == QLocale.Script.SimplifiedChineseScript:
        return "zh_CN"
    territory = locale.territory() if hasattr(locale, "territory") else locale.country()
    simplified = {QLocale.Country.China, QLocale.Country.Singapore}
    return "zh_CN" if territory in simplified or territory == QLocale.Country.AnyCountry else "en"


def _effective_language(choice: str, system: QLocale) -> str:
    return _system_language(system) if choice == "system" else choice


def remove_translators(app: QCoreApplication | None = None) -> None:
    """Remove the translators :func:`install_translator` installed and go back to the system locale."""
    global _language
    app = app or QCoreApplication.instance()
    for translator in _installed:
        if app is not None:
            app.removeTranslator(translator)
    _installed.clear()
    _language = "en"
    QLocale.setDefault(QLocale.system())


def install_translator(app: QCoreApplication, language: str | None = None, *, system: QLocale | None = None) -> str:
    """Translate the UI: install Tuneplan's and Qt's translators for ``language`` on ``app``.

    Args:
        app: the application (translators must be installed before the window is built).
        language: ``system``, ``en`` or ``zh_CN``; ``None`` reads View → Language's stored choice.
        system: the locale "system" stands for (default :meth:`QLocale.system`; tests pass one).

    Returns:
        The language in effect: ``en`` when English was chosen, the system is not Chinese, or the
        ``.qm`` file is missing (logged); else the language loaded (``zh_CN``).

    An explicit choice also becomes the default :class:`QLocale`, so numbers follow the language
    the user picked; with "System" they follow the system locale.
    """
    global _language
    remove_translators(app)
    choice = stored_language() if language is None else language
    if choice not in LANGUAGES:
        log.warning("unknown language %r: using the system language", choice)
        choice = "system"
    system = system if system is not None else QLocale.system()
    effective = _effective_language(choice, system)
    if choice != "system":
        QLocale.setDefault(QLocale("en_US" if effective == "en" else effective))
    if effective == "en":
        return "en"
    path = qm_path(effective)
    translator = QTranslator(app)
    if path is None or not translator.load(str(path)):
        log.warning("no translation for %s (looked in %s): the UI stays in English", effective, translations_dir())
        return "en"
    app.installTranslator(translator)
    _installed.append(translator)
    # Qt's own strings: standard buttons (Save, Discard, Cancel), file dialogs, context menus.
    qt = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt.load(f"qtbase_{effective}", qt_dir):
        app.installTranslator(qt)
        _installed.append(qt)
    else:
        log.info("Qt's own %s translation not found in %s", effective, qt_dir)
    _language = effective
    return effective


def current_language() -> str:
    """The language :func:`install_translator` put in effect (``en`` when none was installed)."""
    return _language


# ------------------------------------------------------------------------------------------ numbers


def number_locale() -> QLocale:
    """The locale numbers are written in: the default locale, or US English where it is "C"."""
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    return locale


def fmt_number(value: float, decimals: int = 0, *, group: bool = True) -> str:
    """``value`` with ``decimals`` decimals in the number locale (``group``: thousands separators)."""
    locale = number_locale()
    if not group:
        locale.setNumberOptions(locale.numberOptions() | QLocale.NumberOption.OmitGroupSeparator)
    return locale.toString(float(value), "f", decimals)


_SI = (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3))
# ``90.8 T FLOP`` -> ``90.8 TFLOP``, ``120.7 G B/s`` -> ``120.7 GB/s`` in a rendered formula
SI_UNIT = re.compile(r"(\d) ([PTGMK]) (FLOP|B)\b")


def fmt_quantity(value: float, unit: str) -> str:
    """A term's part for its formula, in the number locale: ``90.8 T`` (FLOP, bytes, rates), ``2,466`` and
    ``128,256`` (counts, tokens), ``1.98e-05`` (seconds, ratios: three significant digits)."""
    v = float(value)
    if unit in {"count", "tokens"} and abs(v) < 1e6:
        return fmt_number(v, 0 if v.is_integer() else 1)
    if unit in {"FLOP", "FLOP/s", "B", "B/s", "count", "tokens"}:
        for suffix, scale in _SI:
            if abs(v) >= scale:
                return f"{fmt_number(v / scale, 1 if abs(v) / scale >= 100 else 2)} {suffix}"
        return fmt_number(v, 0)
    if v == 0:
        return fmt_number(0, 0)
    return number_locale().toString(v, "g", 3)


def component_formula(component: MemoryComponent) -> str:
    """A memory component's formula as the user reads it: rendered from its terms with :func:`fmt_quantity`
    (``1,024 tokens × 128,256 logits``, not the core's plain ``%.4g`` ``1.283e+05``); the component's own text
    where it has no terms (the SFT ledger, "freed before this moment"). The templates stay English, as all
    formulas do."""
    if not component.terms:
        return component.formula
    from tuneplan.core.terms import render_formula

    return " + ".join(SI_UNIT.sub(r"\1 \2\3", render_formula(term, fmt=fmt_quantity)) for term in component.terms)


def fmt_usd(value: float, decimals: int = 2) -> str:
    """US dollars in the number locale: ``$1,234.50`` (en, zh), ``1.234,50 $`` (de)."""
    return number_locale().toCurrencyString(float(value), "$", decimals)


def plain_usd(value: float, decimals: int = 2) -> str:
    """US dollars as Python writes them, whatever the locale: ``$1,234.50``. The figures of the report, the
    scenario comparison, the Explain tab and the charts' labels; the plan's cards use :func:`fmt_usd`."""
    return f"${value:,.{decimals}f}"


def format_hours(hours: float, *, plain: bool = False) -> str:
    """``0.001`` -> ``4 s``; ``0.4`` -> ``24 min``; ``6.26`` -> ``6.3 h``; ``80`` -> ``80 h (3.3 days)``.

    In the UI language, with the number locale's digits (the plan's time card and summary); ``plain``: digits as
    Python writes them, like the other figures of the report and the scenario comparison.
    """

    def num(value: float, decimals: int, spec: str) -> str:
        return format(value, spec) if plain else fmt_number(value, decimals)

    if hours < 1 / 60:
        return translate("Units", "{n} s").format(n=num(hours * 3600, 0, ".0f"))
    if hours < 1:
        return translate("Units", "{n} min").format(n=num(hours * 60, 0, ".0f"))
    if hours < 48:
        return translate("Units", "{n} h").format(n=num(hours, 1, ".1f"))
    return translate("Units", "{n} h ({days} days)").format(n=num(hours, 0, ",.0f"), days=num(hours / 24, 1, ".1f"))


def fmt_gib(value: float, decimals: int = 1) -> str:
    """``12.3 GiB`` with the locale's decimal separator."""
    return translate("Units", "{n} GiB").format(n=fmt_number(value, decimals, group=False))


def fmt_capacity(gib: float) -> str:
    """A GPU's memory (``GpuSpec.memory_gib``, what the driver reports) as every view prints it:
    ``79.65 GiB`` for the H100 80GB, ``23.99 GiB`` for the RTX 4090 - never rounded to the marketing size."""
    return fmt_gib(gib, 2)


_MNEMONIC = re.compile(r"\s*\(&\w\)|&(?=[^&])")


def plain_text(text: str) -> str:
    """A menu text without its mnemonic, for a tool button: ``新建(&N)`` -> ``新建``, ``&New`` -> ``New``.

    Qt drops a plain ``&`` from tool button texts but keeps the CJK-style ``(&N)`` as ``(N)``.
    """
    return _MNEMONIC.sub("", text).replace("&&", "&")


# ------------------------------------------------------------------------------------------ untrusted text
# Plans are shared, so their names (plan, model, GPU, provider), file paths, imported config names,
# the driver's GPU names and error texts quoting them are untrusted. Qt guesses whether a tooltip,
# a QLabel or a QMessageBox text is rich text; ``RTX 4090 <img src="/dev/zero">`` would make it load
# an image (the window froze). Labels showing such text use ``Qt.TextFormat.PlainText``; rich labels
# escape every name with ``html.escape``; tooltips go through plain_tooltip, message boxes through
# plain_message_box.


def plain_tooltip(text: str | None) -> str:
    """A tooltip that shows ``text`` exactly, line breaks and all, even if it looks like HTML.

    Text without ``<`` or ``&`` is returned as it is (Qt shows it as plain text); other text is
    escaped and wrapped in a ``white-space: pre`` span, which Qt renders like its plain tooltips.
    """
    text = text or ""
    if "<" not in text and "&" not in text:
        return text
    return "<span style='white-space:pre'>" + html.escape(text, quote=False) + "</span>"


def plain_message_box(parent: Any, icon: Any, title: str, text: str, buttons: Any = None,
                      default: Any = None) -> Any:
    """A QMessageBox (not yet shown) whose text and informative text are plain text, never HTML.

    ``icon`` is a ``QMessageBox.Icon``; ``buttons`` standard buttons (OK when omitted); ``default``
    the default button. Call ``exec()`` on it; the static ``QMessageBox.question`` and friends
    would guess rich text from the text.
    """
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(icon, title, text,
                      buttons if buttons is not None else QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    if default is not None:
        box.setDefaultButton(default)
    return box


# ------------------------------------------------------------------------------------------ the core's words


class TranslatedLabels(Mapping[str, str]):
    """A read-only ``{key: English label}`` table that answers in the current language.

    The English labels are marked with ``QT_TRANSLATE_NOOP(context, ...)`` so lupdate extracts them;
    looking one up (``labels[key]``, ``labels.get(key, default)``) translates it at that moment.
    """

    def __init__(self, context: str, labels: dict[str, str]) -> None:
        self.context = context
        self.english = dict(labels)

    def __getitem__(self, key: str) -> str:
        return translate(self.context, self.english[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self.english)

    def __len__(self) -> int:
        return len(self.english)


#: Memory components by ledger key (``MemoryComponent.key``).
COMPONENT_LABELS = TranslatedLabels("Memory", {
    "weights": QT_TRANSLATE_NOOP("Memory", "Weights"),
    "adapters": QT_TRANSLATE_NOOP("Memory", "LoRA adapters"),
    "gradients": QT_TRANSLATE_NOOP("Memory", "Gradients"),
    "optimizer": QT_TRANSLATE_NOOP("Memory", "Optimizer states"),
    "activations": QT_TRANSLATE_NOOP("Memory", "Activations"),
    "logits": QT_TRANSLATE_NOOP("Memory", "Logits & loss"),
    "temporaries": QT_TRANSLATE_NOOP("Memory", "Temporaries"),
    "allocator": QT_TRANSLATE_NOOP("Memory", "Allocator overhead"),
    "cuda_context": QT_TRANSLATE_NOOP("Memory", "CUDA context"),
    "reference": QT_TRANSLATE_NOOP("Memory", "Reference model"),
    "generation": QT_TRANSLATE_NOOP("Memory", "KV cache / vLLM"),
})  # fmt: skip

#: Run phases (``TimeEstimate.phases`` keys, ``CostPoint.phase``).
PHASE_LABELS = TranslatedLabels("Phases", {
    "setup": QT_TRANSLATE_NOOP("Phases", "Setup"),
    "training": QT_TRANSLATE_NOOP("Phases", "Training"),
    "evaluation": QT_TRANSLATE_NOOP("Phases", "Evaluation"),
    "checkpoints": QT_TRANSLATE_NOOP("Phases", "Checkpoints"),
    "reference_logps": QT_TRANSLATE_NOOP("Phases", "Reference log-probs"),
})  # fmt: skip

#: Cost breakdown keys (``CostEstimate.breakdown``).
COST_LABELS = TranslatedLabels("Cost", {
    "GPU time": QT_TRANSLATE_NOOP("Cost", "GPU time"),
    "Storage": QT_TRANSLATE_NOOP("Cost", "Storage"),
    "Egress": QT_TRANSLATE_NOOP("Cost", "Egress"),
    "Other": QT_TRANSLATE_NOOP("Cost", "Other"),
    "Failed-run repeats": QT_TRANSLATE_NOOP("Cost", "Failed-run repeats"),
})  # fmt: skip

#: What limits the step time (``TimeEstimate.bound``).
BOUND_LABELS = TranslatedLabels("Throughput", {
    "compute": QT_TRANSLATE_NOOP("Throughput", "compute-bound"),
    "memory": QT_TRANSLATE_NOOP("Throughput", "memory-bound"),
    "overhead": QT_TRANSLATE_NOOP("Throughput", "host-bound"),
    "communication": QT_TRANSLATE_NOOP("Throughput", "communication-bound"),
    "offload": QT_TRANSLATE_NOOP("Throughput", "offload-bound"),
    "mixed": QT_TRANSLATE_NOOP("Throughput", "no single limit"),
})  # fmt: skip


#: Optimizers (``TrainingSetup.optimizer``; the same English as ``core.scenario.OPTIMIZER_LABELS``).
OPTIMIZER_LABELS = TranslatedLabels("Optimizers", {
    "adamw": QT_TRANSLATE_NOOP("Optimizers", "AdamW (torch, foreach)"),
    "adamw-fused": QT_TRANSLATE_NOOP("Optimizers", "AdamW (torch, fused)"),
    "adamw-8bit": QT_TRANSLATE_NOOP("Optimizers", "8-bit AdamW (bitsandbytes)"),
    "paged-adamw-8bit": QT_TRANSLATE_NOOP("Optimizers", "Paged 8-bit AdamW"),
    "paged-adamw-32bit": QT_TRANSLATE_NOOP("Optimizers", "Paged 32-bit AdamW"),
    "sgd": QT_TRANSLATE_NOOP("Optimizers", "SGD with momentum"),
    "adafactor": QT_TRANSLATE_NOOP("Optimizers", "Adafactor"),
})  # fmt: skip

#: Catalog GPU segments (``GpuSpec.segment``).
SEGMENT_LABELS = TranslatedLabels("Catalog", {
    "consumer": QT_TRANSLATE_NOOP("Catalog", "Consumer"),
    "workstation": QT_TRANSLATE_NOOP("Catalog", "Workstation"),
    "datacenter": QT_TRANSLATE_NOOP("Catalog", "Datacenter"),
    "datacenter-pcie": QT_TRANSLATE_NOOP("Catalog", "Datacenter (PCIe)"),
    "local": QT_TRANSLATE_NOOP("Catalog", "Your GPUs"),
})  # fmt: skip

#: Kinds of price offer (``PriceEntry.kind``, ``Pricing.offer_kind``).
OFFER_KIND_LABELS = TranslatedLabels("Catalog", {
    "on-demand": QT_TRANSLATE_NOOP("Catalog", "on-demand"),
    "spot": QT_TRANSLATE_NOOP("Catalog", "spot"),
    "community": QT_TRANSLATE_NOOP("Catalog", "community"),
    "serverless": QT_TRANSLATE_NOOP("Catalog", "serverless"),
    "custom": QT_TRANSLATE_NOOP("Catalog", "your price"),
})  # fmt: skip

#: How a provider rounds GPU time (``Pricing.billing``).
BILLING_LABELS = TranslatedLabels("Catalog", {
    "second": QT_TRANSLATE_NOOP("Catalog", "per second"),
    "minute": QT_TRANSLATE_NOOP("Catalog", "per minute"),
    "hour": QT_TRANSLATE_NOOP("Catalog", "per started hour"),
})  # fmt: skip


#: Sharding as the form names it (``TrainingSetup.sharding``), not the plan file's ids (``zero3``).
SHARDING_LABELS = TranslatedLabels("Settings", {
    "none": QT_TRANSLATE_NOOP("Settings", "no sharding"),
    "ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3", "fsdp": "FSDP",  # proper names
})  # fmt: skip


#: Plan settings the form has no field for (set by a plan file, an imported config or the CLI), by their path in the
#: plan file: how Compare scenarios' "Other settings" row names them (``MainWindow.field_setting_text``).
SETTING_LABELS = TranslatedLabels("Settings", {
    "training.stack": QT_TRANSLATE_NOOP("Settings", "I train with"),
    "training.framework": QT_TRANSLATE_NOOP("Settings", "Speed tier"),
    "training.mfu_override": QT_TRANSLATE_NOOP("Settings", "Measured MFU"),
    "dataset.longest_tokens": QT_TRANSLATE_NOOP("Settings", "Longest example (tokens)"),
    "pricing.checkpoint_count": QT_TRANSLATE_NOOP("Settings", "Checkpoints saved"),
    "pricing.dataset_prep_minutes": QT_TRANSLATE_NOOP("Settings", "Dataset preparation (min)"),
    "pricing.disk_write_gbps": QT_TRANSLATE_NOOP("Settings", "Disk write speed (GB/s)"),
    "pricing.download_gbps": QT_TRANSLATE_NOOP("Settings", "Download speed (GB/s)"),
    "pricing.failure_probability": QT_TRANSLATE_NOOP("Settings", "Chance a run fails"),
    "pricing.gpu_power_w": QT_TRANSLATE_NOOP("Settings", "GPU power (W)"),
    "pricing.interruptions_per_hour_high": QT_TRANSLATE_NOOP("Settings", "Interruptions per hour, worst case"),
    "pricing.minimum_billed_minutes": QT_TRANSLATE_NOOP("Settings", "Minimum billed time (min)"),
    "pricing.monthly_price_usd": QT_TRANSLATE_NOOP("Settings", "Monthly price (USD)"),
    "pricing.restart_minutes": QT_TRANSLATE_NOOP("Settings", "Restart after an interruption (min)"),
    "pricing.runs_per_month": QT_TRANSLATE_NOOP("Settings", "Runs per month"),
    "pricing.storage_hours_after_run": QT_TRANSLATE_NOOP("Settings", "Storage kept after the run (h)"),
    "pricing.storage_kind": QT_TRANSLATE_NOOP("Settings", "Storage kind"),
    "pricing.storage_stopped_usd_per_gb_month": QT_TRANSLATE_NOOP("Settings",
                                                                  "Storage while stopped (USD per GB-month)"),
})  # fmt: skip


#: Step terms (``TimeEstimate.step_terms`` keys), the Explain tab's names for them.
TERM_LABELS = TranslatedLabels("Explain", {
    "matmul": QT_TRANSLATE_NOOP("Explain", "Matrix multiplications"),
    "attention": QT_TRANSLATE_NOOP("Explain", "Attention"),
    "other_kernels": QT_TRANSLATE_NOOP("Explain", "Other kernels"),
    "optimizer": QT_TRANSLATE_NOOP("Explain", "Optimizer"),
    "communication": QT_TRANSLATE_NOOP("Explain", "Communication"),
    "offload": QT_TRANSLATE_NOOP("Explain", "CPU offload"),
    "fixed": QT_TRANSLATE_NOOP("Explain", "Host overhead"),
    "reference": QT_TRANSLATE_NOOP("Explain", "Reference forward"),
    "generation": QT_TRANSLATE_NOOP("Explain", "Generation"),
    "eval_generation": QT_TRANSLATE_NOOP("Explain", "Evaluation batch generating"),
    "eval_generation_during": QT_TRANSLATE_NOOP("Explain", "Evaluation batch generating (during training)"),
})  # fmt: skip

#: The moment that sets the memory peak (``MemoryEstimate.peak_phase``), as a phrase.
PEAK_PHASE_TEXTS = TranslatedLabels("Explain", {
    "end of forward": QT_TRANSLATE_NOOP("Explain", "at the end of the forward pass"),
    "backward": QT_TRANSLATE_NOOP("Explain", "during the backward pass"),
    "end of backward": QT_TRANSLATE_NOOP("Explain", "at the end of the backward pass"),
    "recomputed layer": QT_TRANSLATE_NOOP("Explain", "while the last layer is recomputed in the backward pass"),
    "last layer backward": QT_TRANSLATE_NOOP("Explain", "while the backward pass runs through the last layer"),
    "optimizer step": QT_TRANSLATE_NOOP("Explain", "during the optimizer step"),
    "embedding backward": QT_TRANSLATE_NOOP("Explain", "while the backward pass reaches the tied embedding"),
    "generation": QT_TRANSLATE_NOOP("Explain", "while the completions are generated"),
    "evaluation": QT_TRANSLATE_NOOP("Explain", "during an evaluation pass (a no-grad forward of the evaluation "
                                               "micro-batch)"),
    "evaluation generation": QT_TRANSLATE_NOOP("Explain", "while an evaluation generates (predict_with_generate: "
                                                          "the KV cache of the evaluation micro-batch)"),
    "model loading": QT_TRANSLATE_NOOP("Explain", "while the model loads (the whole model on every GPU before "
                                                  "DeepSpeed ZeRO-3 partitions it)"),
})  # fmt: skip


def term_label(key: str) -> str:
    """A step term's name in the UI language (the key itself when unknown)."""
    return TERM_LABELS[key] if key in TERM_LABELS else key


def peak_phase_text(phase: str) -> str:
    """The moment that set the peak (``MemoryEstimate.peak_phase``) as a phrase in the UI language."""
    return PEAK_PHASE_TEXTS[phase] if phase in PEAK_PHASE_TEXTS else phase


def component_label(key: str, fallback: str = "") -> str:
    """A memory component's label in the UI language (``fallback``, the core's label, for unknown keys)."""
    return COMPONENT_LABELS[key] if key in COMPONENT_LABELS else (fallback or key)


def verdict_text(memory: Any) -> str:
    """The verdict of a :class:`~tuneplan.core.result.MemoryEstimate`: ``fits, 3.1 GiB spare`` / ``short by 7.4 GiB``.

    Built from the numbers (the core's ``verdict()`` is English-only), with the locale's decimals.
    """
    spare = memory.headroom_bytes / 2**30
    if spare >= 0:
        return translate("Memory", "fits, {spare} spare").format(spare=fmt_gib(spare))
    return translate("Memory", "short by {short}").format(short=fmt_gib(-spare))


# Colours of the three verdict states (the Plan tab's verdict card, Compare scenarios, advice).
VERDICT_COLORS = {"fits": "#2e7d32", "tight": "#8a5a00", "short": "#c62828"}


def verdict_state(memory: Any) -> str:
    """The verdict's state, the one the Plan tab colours: ``fits`` (green), ``tight`` (amber: the estimate
    fits but the likely range reaches past the card, ``band_risk`` ``tight`` or ``unlikely``) or ``short``
    (red: the estimate does not fit)."""
    if not memory.fits:
        return "short"
    return "tight" if memory.band_risk in {"tight", "unlikely"} else "fits"


def verdict_color(memory: Any) -> str:
    """The verdict's colour (:func:`verdict_state`), the same in every view."""
    return VERDICT_COLORS[verdict_state(memory)]


def verdict_risk_text(memory: Any) -> str:
    """What the likely range adds to the verdict, short: `` · tight``, `` · unlikely to fit``, `` · may fit``
    or nothing (``MemoryEstimate.band_risk``)."""
    return {"tight": translate("Memory", " · tight"), "unlikely": translate("Memory", " · unlikely to fit"),
            "possible": translate("Memory", " · may fit")}.get(memory.band_risk, "")


def plan_verdict(result: Any) -> str:
    """The plan's verdict as every view shows it: :func:`verdict_summary` of its memory, or "cannot run as planned"
    when the memory fits but a note names a combination its stack refuses (``core.estimate.blocking_notes``)."""
    from tuneplan.core.estimate import blocking_notes

    if result.memory.fits and blocking_notes(result):
        return translate("MainWindow", "cannot run as planned")
    return verdict_summary(result.memory)


def plan_verdict_color(result: Any) -> str:
    """:func:`plan_verdict`'s colour: red for a plan that cannot run, else :func:`verdict_color`."""
    from tuneplan.core.estimate import blocking_notes

    if result.memory.fits and blocking_notes(result):
        return VERDICT_COLORS["short"]
    return verdict_color(result.memory)


def verdict_summary(memory: Any) -> str:
    """The verdict with the likely range's word: ``fits, 3.1 GiB spare · tight`` (tables, charts and CSV)."""
    return verdict_text(memory) + verdict_risk_text(memory)


def suggestion_title(suggestion: Any) -> str:
    """A :class:`~tuneplan.core.advice.Suggestion`'s title in the UI language, from its coded ``title_note``."""
    return core_note_text(suggestion.title_note) if suggestion.title_note.code else suggestion.title


def suggestion_detail(suggestion: Any) -> str:
    """Why a suggestion helps in the UI language, from its coded ``reasons``, one sentence each."""
    return " ".join(core_note_text(n) for n in suggestion.reasons) if suggestion.reasons else suggestion.detail


_SPEC = re.compile(r"(?P<group>,)?(?:\.(?P<decimals>\d+))?(?P<kind>[dfg%]?)")


def note_number(value: float, spec: str) -> str:
    """A note parameter in the number locale, keeping its template's format spec (``,.2f`` -> two decimals with
    thousands separators, ``.0%`` -> a whole percentage, ``g`` -> as few digits as it needs, none -> the digits
    Python writes); a spec this does not know is applied as Python writes it. In an English locale the result
    is what ``str.format`` writes."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        return format(value, spec)
    group, kind = bool(m["group"]), m["kind"]
    decimals = int(m["decimals"]) if m["decimals"] is not None else None
    if kind == "%":
        return fmt_number(value * 100.0, decimals or 0, group=group) + number_locale().percent()
    if kind == "f":
        return fmt_number(value, 6 if decimals is None else decimals, group=group)
    if kind == "d" or (kind == "g" and float(value).is_integer()) or isinstance(value, int):
        return fmt_number(value, 0, group=group)
    if not kind:  # as many decimals as Python's shortest repr: 3.0 -> "3.0", 59.8 -> "59.8"
        written = repr(float(value))
        if "e" not in written and "inf" not in written and "nan" not in written:
            return fmt_number(value, len(written.partition(".")[2]), group=group)
    locale = number_locale()
    if not group:
        locale.setNumberOptions(locale.numberOptions() | QLocale.NumberOption.OmitGroupSeparator)
    return locale.toString(float(value), "g", 6 if decimals is None else max(decimals, 1))


def core_note_text(note: Any) -> str:
    """A coded core note (:class:`tuneplan.core.terms.Note`) in the UI language: its catalogue template translated in
    the ``Terms`` context, filled with its parameters, numbers in the user's locale (:func:`note_number`);
    nothing parsed."""
    from tuneplan.core.terms import NOTES, render_note

    template = NOTES.get(note.code)
    return render_note(note, template=translate("Terms", template) if template is not None else None,
                       number=note_number)


# ------------------------------------------------------------------------------------------ the menu


def restart_app(window: Any) -> bool:
    """Close ``window`` (it asks about unsaved changes) and start Tuneplan again; False if the user stayed."""
    if not window.close():
        return False
    # reopen the plan that was open (the file it was saved to, or the one it came from)
    keep = [a for a in sys.argv[1:] if a.startswith("-") and not a.startswith("--scenario-file")]
    path = getattr(window, "path", None)
    if path is not None:
        keep += ["--scenario-file", str(path)]  # what the entry point's parser takes (tuneplan.__main__)
    if getattr(sys, "frozen", False):
        program, args = sys.executable, keep
    else:
        program, args = sys.executable, ["-m", "tuneplan", *keep]
    ok, _pid = QProcess.startDetached(program, args)
    if not ok:
        log.warning("could not restart %s %s", program, args)
    app = QCoreApplication.instance()
    if app is not None:
        app.quit()
    return True


def _ask_restart(window: Any, name: str) -> bool:
    """Tell the user the language changes at the next start; True for "Restart now"."""
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(window)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle(translate("Language", "Language"))
    box.setText(translate("Language", "Tuneplan will use {language} the next time it starts.").format(
        language=name.replace("(&C)", "").replace("&", "")))
    box.setInformativeText(translate("Language", "Restart now? Unsaved changes are asked about first."))
    restart = box.addButton(translate("Language", "Restart now"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(translate("Language", "Later"), QMessageBox.ButtonRole.RejectRole)
    box.exec()
    return box.clickedButton() is restart


def install_language_menu(window: Any) -> tuple[Any, dict[str, Any]]:
    """Add View → Language (System / English / 简体中文) to ``window``; returns the submenu and its actions
    (``{language: QAction}``).

    Choosing an entry stores it (:func:`set_stored_language`) and asks whether to restart now; the
    question is ``window.ask_language_restart(name) -> bool`` when the window has one (tests patch it).
    """
    from PySide6.QtGui import QAction, QActionGroup

    from tuneplan.ui.menus import view_menu

    view = view_menu(window)
    sub = view.addMenu(translate("Language", "&Language"))
    sub.setObjectName("languageMenu")
    group = QActionGroup(window)
    group.setExclusive(True)
    stored = stored_language()
    names = language_names()
    actions: dict[str, Any] = {}

    def choose(language: str) -> None:
        if language == stored_language():
            return
        set_stored_language(language)
        ask = getattr(window, "ask_language_restart", None) or (lambda n: _ask_restart(window, n))
        if ask(names[language]):
            restart_app(window)

    for language in LANGUAGES:
        action = QAction(names[language], window, checkable=True)
        action.setChecked(language == stored)
        action.setToolTip(translate("Language", "Applies the next time Tuneplan starts"))
        action.triggered.connect(lambda _c=False, lang=language: choose(lang))
        group.addAction(action)
        sub.addAction(action)
        actions[language] = action
    return sub, actions
