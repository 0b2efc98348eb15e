"""Tuneplan in the user's language: Qt translators, the language setting, locale-aware numbers.

* :func:`install_translator` loads ``tuneplan_<lang>.qm`` (and Qt's own ``qtbase_<lang>.qm`` for the
  standard buttons and file dialogs) for the language chosen under View → Language, or for the
  system locale when the choice is "System". English is the source language and needs no file.
* The choice is stored in ``<data dir>/ui.ini`` (``view/language``), next to the theme, so a test's
  ``TUNEPLAN_DATA_DIR`` isolates it. A new choice applies when Tuneplan next starts: the menu offers
  to restart right away (:func:`install_language_menu`).
* Numbers and US dollars are written with :func:`number_locale` (the system locale, or the chosen
  language's when the user picked one): :func:`fmt_number`, :func:`fmt_usd`, :func:`fmt_gib`.
* The core computes in English. Its memory component labels, its verdict and its notes are put
  into words here (:func:`component_label`, :func:`verdict_text`, :func:`translate_core_text`);
  formulas and literature sources stay in English on purpose (they are code-like and cite English
  papers) and their tooltips say so.

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
from typing import Any

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

__all__ = [
    "core_note_text",
    "LANGUAGES",
    "TranslatedLabels",
    "component_label",
    "current_language",
    "fmt_capacity",
    "fmt_gib",
    "fmt_number",
    "fmt_usd",
    "install_language_menu",
    "install_translator",
    "language_names",
    "number_locale",
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
    "translate_core_text",
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
SETTINGS_FILE = "ui.ini"
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
    from tuneplan.storage import paths

    return QSettings(str(paths.data_dir() / SETTINGS_FILE), QSettings.Format.IniFormat)


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


def fmt_usd(value: float, decimals: int = 2) -> str:
    """US dollars in the number locale: ``$1,234.50`` (en, zh), ``1.234,50 $`` (de)."""
    return number_locale().toCurrencyString(float(value), "$", decimals)


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
})  # fmt: skip

#: Run phases (``TimeEstimate.phases`` keys, ``CostPoint.phase``).
PHASE_LABELS = TranslatedLabels("Phases", {
    "setup": QT_TRANSLATE_NOOP("Phases", "Setup"),
    "training": QT_TRANSLATE_NOOP("Phases", "Training"),
    "evaluation": QT_TRANSLATE_NOOP("Phases", "Evaluation"),
    "checkpoints": QT_TRANSLATE_NOOP("Phases", "Checkpoints"),
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


def verdict_summary(memory: Any) -> str:
    """The verdict with the likely range's word: ``fits, 3.1 GiB spare · tight`` (tables, charts and CSV)."""
    return verdict_text(memory) + verdict_risk_text(memory)


#: The core's notes and warnings (English sentences with numbers) -> a template in the UI
#: language. Each pattern's named groups fill the template's placeholders; a note that matches no
#: pattern (a new one in the core) is shown as the core wrote it.
_CORE_TEXTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"sequence length (?P<n>\d+) exceeds the model's max_position_embeddings \((?P<m>\d+)\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "sequence length {n} exceeds the model's max_position_embeddings ({m})")),
    (re.compile(r"(?P<gpu>.+) has no BF16 tensor cores: train in FP16 with loss scaling"),
     QT_TRANSLATE_NOOP("CoreNotes", "{gpu} has no BF16 tensor cores: train in FP16 with loss scaling")),
    (re.compile(r"the optimizer step fused into backward cannot accumulate gradients: set gradient accumulation "
                r"to 1 \(torchtune refuses this combination\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "the optimizer step fused into backward cannot accumulate gradients: set "
                       "gradient accumulation to 1 (torchtune refuses this combination)")),
    (re.compile(r"paged optimizer states \((?P<p>[\d.]+) GiB\) exceed the (?P<f>[\d.]+) GiB left on the GPU: about "
                r"(?P<o>[\d.]+) GiB live in CPU RAM and cross PCIe at every optimizer step, which the time "
                r"estimate includes \(on Windows and WSL2 CUDA cannot page them out: there they must fit "
                r"on the GPU\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "paged optimizer states ({p} GiB) exceed the {f} GiB left on the GPU: about {o} "
                       "GiB live in CPU RAM and cross PCIe at every optimizer step, which the time estimate "
                       "includes (on Windows and WSL2 CUDA cannot page them out: there they must fit on the "
                       "GPU)")),
    (re.compile(r"bitsandbytes does not quantise the stacked experts of this mixture-of-experts model "
                r"\(transformers 5 keeps them as 3-D tensors, bitsandbytes issue #1849\): they are counted "
                r"unquantised; Unsloth's loader quantises them"),
     QT_TRANSLATE_NOOP("CoreNotes", "bitsandbytes does not quantise the stacked experts of this mixture-of-experts "
                       "model (transformers 5 keeps them as 3-D tensors, bitsandbytes issue #1849): they are "
                       "counted unquantised; Unsloth's loader quantises them")),
    (re.compile(r"PEFT adapts the stacked experts through ParamWrapper, which refuses LoRA dropout: "
                r"set dropout to 0 or target the attention projections only"),
     QT_TRANSLATE_NOOP("CoreNotes", "PEFT adapts the stacked experts through ParamWrapper, which refuses LoRA "
                       "dropout: set dropout to 0 or target the attention projections only")),
    (re.compile(r"sharding across one GPU saves no memory"),
     QT_TRANSLATE_NOOP("CoreNotes", "sharding across one GPU saves no memory")),
    (re.compile(r"the FP32 upcast is not applied: sharded QLoRA \(FSDP/ZeRO-3\) skips "
                r"prepare_model_for_kbit_training so that every shard has one dtype"),
     QT_TRANSLATE_NOOP("CoreNotes", "the FP32 upcast is not applied: sharded QLoRA (FSDP/ZeRO-3) skips "
                       "prepare_model_for_kbit_training so that every shard has one dtype")),
    (re.compile(r"FP16 training with FP16 trainable parameters: PyTorch's loss scaler refuses them "
                r"\(\"Attempting to unscale FP16 gradients\"\); keep the trained weights in FP32 or train in BF16"),
     QT_TRANSLATE_NOOP("CoreNotes", "FP16 training with FP16 trainable parameters: PyTorch's loss scaler refuses them "
                       "(\"Attempting to unscale FP16 gradients\"); keep the trained weights in FP32 or train in BF16")),
    (re.compile(r"torch\.compile's smaller saved set is modelled for RMSNorm layers \(Llama, Qwen, Mistral, "
                r"Gemma\); for this model the eager figures are used"),
     QT_TRANSLATE_NOOP("CoreNotes", "torch.compile's smaller saved set is modelled for RMSNorm layers (Llama, Qwen, "
                       "Mistral, Gemma); for this model the eager figures are used")),
    (re.compile(r"the LoRA adapter setting \((?P<mode>[a-z0-9-]+)\) does not apply: adapters inside their layer's FSDP "
                r"unit take the weights' dtype"),
     QT_TRANSLATE_NOOP("CoreNotes", "the LoRA adapter setting ({mode}) does not apply: adapters inside their layer's "
                       "FSDP unit take the weights' dtype")),
    (re.compile(r"the LoRA adapter setting \((?P<mode>[a-z0-9-]+)\) does not apply: with FP32 master weights the "
                r"adapters are FP32 under autocast"),
     QT_TRANSLATE_NOOP("CoreNotes", "the LoRA adapter setting ({mode}) does not apply: with FP32 master weights the "
                       "adapters are FP32 under autocast")),
    (re.compile(r"(?P<n>\d+) GPUs without sharding: the layers are split across the GPUs and run one GPU at a time "
                r"\(naive model parallelism, HF device_map\); choose DDP, ZeRO or FSDP to train in parallel"),
     QT_TRANSLATE_NOOP("CoreNotes", "{n} GPUs without sharding: the layers are split across the GPUs and run one GPU "
                       "at a time (naive model parallelism, HF device_map); choose DDP, ZeRO or FSDP to train in "
                       "parallel")),
    (re.compile(r"full FT on plain HF: optimized full-FT MFU x the column's HF/optimized LoRA ratio \(TP §4, §6\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "full FT on plain HF: optimized full-FT MFU x the column's HF/optimized LoRA ratio (TP §4, §6)")),
    (re.compile(r"sequence length >= (?P<n>\d+): MFU x (?P<f>[\d.]+) \(TP §6\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "sequence length >= {n}: MFU x {f} (TP §6)")),
    (re.compile(r"FP32 training: TF32 tensor rate taken as half the BF16 rate"),
     QT_TRANSLATE_NOOP("CoreNotes", "FP32 training: TF32 tensor rate taken as half the BF16 rate")),
    (re.compile(r"(?P<gpu>.+) has no BF16: timed at its FP16 rate"),
     QT_TRANSLATE_NOOP("CoreNotes", "{gpu} has no BF16: timed at its FP16 rate")),
    (re.compile(r"MFU override (?P<u>[\d.]+): model FLOPs / spec peak; replaces the defaults and the "
                r"checkpointing, QLoRA and long-context factors"),
     QT_TRANSLATE_NOOP("CoreNotes", "MFU override {u}: model FLOPs / spec peak; replaces the defaults and the "
                       "checkpointing, QLoRA and long-context factors")),
    (re.compile(r"QLoRA dequantisation: time x (?P<f>[\d.]+) \(TP §4\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "QLoRA dequantisation: time x {f} (TP §4)")),
    (re.compile(r"CPU offload: throughput x (?P<f>[\d.]+) \(TP §5\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "CPU offload: throughput x {f} (TP §5)")),
    (re.compile(r"adapters inside their layer's FSDP unit only matter for LoRA under FSDP over several GPUs "
                r"\(QLoRA's 4-bit weights cannot take gradients; full fine-tuning trains every weight anyway\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "adapters inside their layer's FSDP unit only matter for LoRA under FSDP over several "
                       "GPUs (QLoRA's 4-bit weights cannot take gradients; full fine-tuning trains every weight "
                       "anyway)")),
    (re.compile(r"FSDP units mix frozen and trainable weights: the frozen weights' gradients are computed too, "
                r"time x (?P<f>[\d.]+)"),
     QT_TRANSLATE_NOOP("CoreNotes", "FSDP units mix frozen and trainable weights: the frozen weights' gradients are "
                       "computed too, time x {f}")),
    (re.compile(r"no activation checkpointing: no recomputed forward, time x (?P<f>[\d.]+)"),
     QT_TRANSLATE_NOOP("CoreNotes", "no activation checkpointing: no recomputed forward, time x {f}")),
    (re.compile(r"memory-bound: streaming the weights \((?P<a>[\d,]+) ms\) outlasts the math \((?P<b>[\d,]+) ms\) "
                r"per micro-batch; a larger micro-batch is faster"),
     QT_TRANSLATE_NOOP("CoreNotes", "memory-bound: streaming the weights ({a} ms) outlasts the math "
                       "({b} ms) per micro-batch; a larger micro-batch is faster")),
    (re.compile(r"examples of (?P<n>\d+) tokens are truncated to seq_len (?P<m>\d+)"),
     QT_TRANSLATE_NOOP("CoreNotes", "examples of {n} tokens are truncated to seq_len {m}")),
    (re.compile(r"container disk: billed only while running and wiped on stop; copy results out before stopping"),
     QT_TRANSLATE_NOOP("CoreNotes", "container disk: billed only while running and wiped on stop; copy "
                       "results out before stopping")),
    (re.compile(r"pod volume: kept while the pod is stopped \(stopped-pod rate\), deleted with the pod"),
     QT_TRANSLATE_NOOP("CoreNotes", "pod volume: kept while the pod is stopped (stopped-pod rate), "
                       "deleted with the pod")),
    (re.compile(r"network volume: persists independently of pods and is billed until deleted"),
     QT_TRANSLATE_NOOP("CoreNotes", "network volume: persists independently of pods and is billed until deleted")),
    (re.compile(r"(?P<n>[\d.]+) expected interruptions lose (?P<h>[\d.]+) h \(\$(?P<usd>[\d,.]+)\); "
                r"pessimistic: (?P<p>\d+) lose (?P<ph>[\d.]+) h"),
     QT_TRANSLATE_NOOP("CoreNotes", "{n} expected interruptions lose {h} h (${usd}); pessimistic: {p} lose {ph} h")),
    (re.compile(r"failure probability (?P<p>\d+%): (?P<n>[\d.]+) attempts per completed run \(\+\$(?P<usd>[\d,.]+)\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "failure probability {p}: {n} attempts per completed run (+${usd})")),
    (re.compile(r"monthly server \$(?P<m>[\d,]+)/month vs \$(?P<h>[\d,.]+)/month hourly for (?P<r>[\d.e+]+) runs: "
                r"break-even at (?P<be>[\d.]+) runs/month, monthly is cheaper(?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "monthly server ${m}/month vs ${h}/month hourly for {r} runs: "
                       "break-even at {be} runs/month, monthly is cheaper{rest}")),
    (re.compile(r"monthly server \$(?P<m>[\d,]+)/month vs \$(?P<h>[\d,.]+)/month hourly for (?P<r>[\d.e+]+) runs: "
                r"break-even at (?P<be>[\d.]+) runs/month, hourly is cheaper(?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "monthly server ${m}/month vs ${h}/month hourly for {r} runs: "
                       "break-even at {be} runs/month, hourly is cheaper{rest}")),
    (re.compile(r"; the runs do not fit in one month"),
     QT_TRANSLATE_NOOP("CoreNotes", "; the runs do not fit in one month")),
    (re.compile(r"own card(?P<s>s?): electricity \$(?P<usd>[\d,.]+) per run \((?P<w>\d+) W x (?P<n>\d+) x (?P<h>[\d.]+) h "
                r"at \$(?P<rate>[\d.e-]+)/kWh\)"),
     QT_TRANSLATE_NOOP("CoreNotes", "own card{s}: electricity ${usd} per run ({w} W x {n} x {h} h at ${rate}/kWh)")),
    # core.compare: why a GPU is not compatible (GpuComparisonRow.note)
    (re.compile(r"(?P<gpu>.+) has no (?P<rest>.+?) support \(needs an Ampere or newer GPU\): use FP16 and SDPA"),
     QT_TRANSLATE_NOOP("CoreNotes", "{gpu} has no {rest} support (needs an Ampere or newer GPU): use FP16 and SDPA")),
    (re.compile(r"BF16 or FlashAttention 2"), QT_TRANSLATE_NOOP("CoreNotes", "BF16 or FlashAttention 2")),
    # core.advice: why each suggestion helps (Suggestion.detail, one sentence at a time)
    (re.compile(r"Keeps one hidden state per layer and recomputes the rest in backward: about a third more compute\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Keeps one hidden state per layer and recomputes the rest in backward: about a "
                       "third more compute.")),
    (re.compile(r"Keeps embeddings, LM head, norms \(and stacked MoE experts\) in the training precision, as "
                r"axolotl, TRL, torchtune and Unsloth do, instead of PEFT's prepare_model_for_kbit_training: "
                r"2 bytes per parameter instead of 4, and a 16-bit residual stream between layers\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Keeps embeddings, LM head, norms (and stacked MoE experts) in the training "
                       "precision, as axolotl, TRL, torchtune and Unsloth do, instead of PEFT's "
                       "prepare_model_for_kbit_training: 2 bytes per parameter instead of 4, and a 16-bit residual "
                       "stream between layers.")),
    (re.compile(r"Reduce-scatters each micro-batch's gradients, so every GPU keeps a shard instead of the whole "
                r"unsharded gradient \(accelerate sync_each_batch=True\); more communication, which the time "
                r"estimate includes\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Reduce-scatters each micro-batch's gradients, so every GPU keeps a shard instead "
                       "of the whole unsharded gradient (accelerate sync_each_batch=True); more communication, which "
                       "the time estimate includes.")),
    (re.compile(r"Frozen weights then get no gradients \(PEFT's fsdp_auto_wrap_policy, torchtune; litgpt PR #1538\)\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Frozen weights then get no gradients (PEFT's fsdp_auto_wrap_policy, torchtune; "
                       "litgpt PR #1538).")),
    (re.compile(r"No gradients or optimizer states for the base weights\."),
     QT_TRANSLATE_NOOP("CoreNotes", "No gradients or optimizer states for the base weights.")),
    (re.compile(r"Stores the frozen base in 4 bits; roughly a quarter of the bf16 weights, a little slower\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Stores the frozen base in 4 bits; roughly a quarter of the bf16 weights, a "
                       "little slower.")),
    (re.compile(r"torch\.optim\.AdamW\(fused=True\) updates in one kernel, without the foreach path's temporary copy "
                r"of the second moments; same maths, no slowdown\."),
     QT_TRANSLATE_NOOP("CoreNotes", "torch.optim.AdamW(fused=True) updates in one kernel, without the foreach path's "
                       "temporary copy of the second moments; same maths, no slowdown.")),
    (re.compile(r"bitsandbytes keeps both moments in 8 bits: 2 bytes per parameter instead of 4 or 8\."),
     QT_TRANSLATE_NOOP("CoreNotes", "bitsandbytes keeps both moments in 8 bits: 2 bytes per parameter instead of 4 or 8.")),
    (re.compile(r"Frees each gradient as soon as its parameter is updated \(no gradient accumulation\)\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Frees each gradient as soon as its parameter is updated (no gradient accumulation).")),
    (re.compile(r"Same effective batch, fewer tokens in flight at once\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Same effective batch, fewer tokens in flight at once.")),
    (re.compile(r"The loss never materialises the full fp32 logits\."),
     QT_TRANSLATE_NOOP("CoreNotes", "The loss never materialises the full fp32 logits.")),
    (re.compile(r"Truncates or splits long examples: check your data's length distribution first\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Truncates or splits long examples: check your data's length distribution first.")),
    (re.compile(r"Moves saved hidden states to host memory over PCIe; the time shown does not charge the transfers "
                r"\(overlapped with compute when the link keeps up\)\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Moves saved hidden states to host memory over PCIe; the time shown does not charge the transfers (overlapped with compute when the link keeps up).")),
    (re.compile(r"Weights, gradients and optimizer states split across GPUs; each GPU pays for its own time\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Weights, gradients and optimizer states split across GPUs; each GPU pays for its "
                       "own time.")),
    (re.compile(r"The smallest catalog GPU with enough memory for the plan as it is\."),
     QT_TRANSLATE_NOOP("CoreNotes", "The smallest catalog GPU with enough memory for the plan as it is.")),
    (re.compile(r"Priced at \$(?P<price>[\d,.]+)/GPU-hour\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Priced at ${price}/GPU-hour.")),
    (re.compile(r"Keeps the current price per GPU-hour \(no price known for it\)\."),
     QT_TRANSLATE_NOOP("CoreNotes", "Keeps the current price per GPU-hour (no price known for it).")),
    # the local GPU probe (tuneplan.hw.probe)
    (re.compile(r"Found 1 NVIDIA GPU(?P<rest>(?! ?s).*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "Found 1 NVIDIA GPU{rest}")),
    (re.compile(r"Found (?P<n>\d+) NVIDIA GPUs(?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "Found {n} NVIDIA GPUs{rest}")),
    (re.compile(r" \((?P<n>\d+) skipped: see notes\)"),
     QT_TRANSLATE_NOOP("CoreNotes", " ({n} skipped: see notes)")),
    (re.compile(r"No NVIDIA GPU found — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "No NVIDIA GPU found — {rest}")),
    (re.compile(r"NVML library not found \(no NVIDIA driver installed\) — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "NVML library not found (no NVIDIA driver installed) — {rest}")),
    (re.compile(r"NVIDIA driver not loaded — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "NVIDIA driver not loaded — {rest}")),
    (re.compile(r"driver/library version mismatch — reboot after a driver update, or (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "driver/library version mismatch — reboot after a driver update, or {rest}")),
    (re.compile(r"permission denied reading the GPU — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "permission denied reading the GPU — {rest}")),
    (re.compile(r"GPU detection unavailable: the nvidia-ml-py package is not installed — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "GPU detection unavailable: the nvidia-ml-py package is not installed — {rest}")),
    (re.compile(r"GPU detection unavailable: the nvidia-ml-py package looks broken — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "GPU detection unavailable: the nvidia-ml-py package looks broken — {rest}")),
    (re.compile(r"the GPU stopped responding while it was being read — check the card or reboot, or (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "the GPU stopped responding while it was being read — check the card or "
                       "reboot, or {rest}")),
    (re.compile(r"the NVIDIA driver is too old for GPU detection — update it, or (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "the NVIDIA driver is too old for GPU detection — update it, or {rest}")),
    (re.compile(r"the NVIDIA driver could not be queried \((?P<detail>.*)\) — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "the NVIDIA driver could not be queried ({detail}) — {rest}")),
    (re.compile(r"unexpected error while reading the GPUs — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "unexpected error while reading the GPUs — {rest}")),
    (re.compile(r"the NVIDIA driver did not answer within (?P<s>[\d.]+) s — (?P<rest>.*)"),
     QT_TRANSLATE_NOOP("CoreNotes", "the NVIDIA driver did not answer within {s} s — {rest}")),
    (re.compile(r"you can still enter your card by hand"),
     QT_TRANSLATE_NOOP("CoreNotes", "you can still enter your card by hand")),
    (re.compile(r"using the card you entered by hand"),
     QT_TRANSLATE_NOOP("CoreNotes", "using the card you entered by hand")),
]  # fmt: skip


def translate_core_text(text: str) -> str:
    """A note, warning or probe message of the core in the UI language (as written when unknown).

    Whole-sentence patterns first; their trailing parts (``{rest}``) are translated the same way,
    so "No NVIDIA GPU found — you can still enter your card by hand" comes out whole.
    """
    if not text:
        return text
    for pattern, template in _CORE_TEXTS:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        values = {k: translate_core_text(v) if k == "rest" else v for k, v in m.groupdict().items()}
        return translate("CoreNotes", template).format(**values)
    return text


def suggestion_title(suggestion: Any) -> str:
    """A :class:`~tuneplan.core.advice.Suggestion`'s title in the UI language, built from its key and changes.

    The core's English title for a key this function does not know.
    """
    key, ch = suggestion.key, suggestion.changes
    fixed = {
        "grad_checkpointing": QT_TRANSLATE_NOOP("Advice", "Turn on gradient checkpointing"),
        "lora": QT_TRANSLATE_NOOP("Advice", "Train LoRA adapters instead of all weights"),
        "qlora": QT_TRANSLATE_NOOP("Advice", "Use QLoRA (4-bit NF4 base)"),
        "adamw_fused": QT_TRANSLATE_NOOP("Advice", "Use fused AdamW"),
        "kbit_bf16": QT_TRANSLATE_NOOP("Advice", "Skip the FP32 upcast of the unquantised weights"),
        "adamw_8bit": QT_TRANSLATE_NOOP("Advice", "Use 8-bit AdamW"),
        "optimizer_in_backward": QT_TRANSLATE_NOOP("Advice", "Fuse the optimizer step into backward"),
        "fused_ce": QT_TRANSLATE_NOOP("Advice", "Use a fused cross-entropy (Liger, Cut Cross-Entropy)"),
        "activation_offload": QT_TRANSLATE_NOOP("Advice", "Offload checkpointed activations to CPU"),
        "grad_sync": QT_TRANSLATE_NOOP("Advice", "Sync gradients every micro-batch"),
        "fsdp_units": QT_TRANSLATE_NOOP("Advice", "Wrap the adapters in their own FSDP units"),
    }
    if key in fixed:
        return translate("Advice", fixed[key])
    try:
        if key == "micro_batch":
            return translate("Advice", "Micro-batch {mb} with gradient accumulation {ga}").format(
                mb=ch["training.micro_batch"], ga=ch["training.grad_accumulation"])
        if key == "seq_len":
            return translate("Advice", "Shorten sequences to {n} tokens").format(n=f"{ch['training.seq_len']:,}")
        if key.startswith("gpus_"):
            return translate("Advice", "Shard across {n} GPUs with FSDP (ZeRO-3)").format(n=ch["training.num_gpus"])
        if key.startswith("gpu_"):
            gpu = ch["gpu"]
            return translate("Advice", "Use a larger GPU: {gpu} ({memory})").format(
                gpu=gpu["name"], memory=fmt_capacity(gpu["memory_gib"]))
    except (KeyError, TypeError):
        pass
    return suggestion.title


def suggestion_detail(suggestion: Any) -> str:
    """Why a suggestion helps, sentence by sentence in the UI language (unknown sentences as written)."""
    sentences = re.split(r"(?<=\.)\s+", suggestion.detail.strip())
    return " ".join(translate_core_text(sentence) for sentence in sentences if sentence)


# ------------------------------------------------------------------------------------------ the menu


def _view_menu(window: Any) -> Any:
    """The window's View menu, created when missing (the theme adds to the same one)."""
    from PySide6.QtWidgets import QMenu

    wanted = translate("Theme", "View").replace("&", "")
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and (
            menu.objectName() == "viewMenu" or action.text().replace("&", "") == wanted
        ):
            return menu
    # the same message as the theme's, so both find this one menu
    menu = window.menuBar().addMenu(translate("Theme", "&View"))
    menu.setObjectName("viewMenu")
    return menu


def core_note_text(note: Any) -> str:
    """A coded core note (:class:`tuneplan.core.terms.Note`) in the UI language: its catalogue template translated in
    the ``Terms`` context, filled with its parameters (nothing parsed)."""
    from tuneplan.core.terms import NOTES, render_note

    template = NOTES.get(note.code)
    return render_note(note, template=translate("Terms", template) if template is not None else None)


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


def install_language_menu(window: Any) -> Any:
    """Add View → Language (System / English / 简体中文) to ``window``; returns the submenu.

    Choosing an entry stores it (:func:`set_stored_language`) and asks whether to restart now; the
    question is ``window.ask_language_restart(name) -> bool`` when the window has one (tests patch it).
    The actions are ``window.language_actions`` (``{language: QAction}``).
    """
    from PySide6.QtGui import QAction, QActionGroup

    view = _view_menu(window)
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
    window.language_actions = actions
    return sub
