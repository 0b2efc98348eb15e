"""Tuneplan in Simplified Chinese (issue #8): nothing left in English, every message translated.

The main test builds the window with the zh_CN translator installed, visits every tab (and the
scenario library dock), and collects the UI's words: label texts, button texts, group box
titles, tab texts, menu and toolbar actions, table headers, spin box affixes, combo items that
are UI wording, and the charts' axis labels and legends. A text is "untranslated" when, after
taking out what is not UI wording (the plan's name, catalog model/GPU/provider names, proper
nouns and units in :data:`ALLOWED`), an English word of two letters or more is left. The failure
message lists every such text.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QLabel,
    QMenu,
    QMessageBox,
    QSpinBox,
    QTabBar,
    QTableView,
    QToolBar,
    QWidget,
)

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.core.stacks import STACKS
from tuneplan.core.terms import NOTES, Note, note_fields, render_note
from tuneplan.hw.probe import LocalGpu, ProbeResult, failure, probe_message
from tuneplan.ui import i18n

ROOT = Path(__file__).resolve().parents[2]
FAKE_PROBE = ProbeResult(
    status="ok",
    message="Found 1 NVIDIA GPU",
    code="probe.found_one",
    gpus=[LocalGpu(index=0, name="NVIDIA GeForce RTX 4090", memory_total_bytes=24 * 2**30,
                   memory_free_bytes=int(22.5 * 2**30), catalog_id="rtx4090")],
)
TS = ROOT / "resources" / "translations" / "tuneplan_zh_CN.ts"
QM = TS.with_suffix(".qm")

#: Words that stay as they are in Chinese: proper nouns, units, file formats, technical names.
ALLOWED = {
    "lora", "qlora", "gib", "mib", "gb", "tb", "usd", "nf", "mfu", "fsdp", "zero", "ddp", "bf", "fp", "tf",
    "adamw", "sgd", "adafactor", "foreach", "fused", "torch", "bitsandbytes", "cuda", "nvidia", "nvml",
    "pytorch", "sdpa", "flashattention", "liger", "cce", "deepspeed", "smi", "tuneplan", "hugging", "face",
    "config", "json", "png", "svg", "html", "csv", "tflops", "gflop", "flops", "gpu", "gpus", "cpu", "lm",
    "kv", "token", "pid", "moe", "logits", "eager", "alpha", "dropout", "ctrl", "apple", "amd", "radeon",
    "rx", "xtx", "max", "cublas", "runpod", "kwh", "tok", "peft",
    "autocast", "trainer", "trl", "axolotl", "torchtune", "litgpt",  # framework names and PyTorch's autocast
    "compile",  # torch.compile, an API name
    "int",  # int8, a dtype name
    "hqq",  # HQQ, a quantisation library's name
    "accelerate",  # Hugging Face accelerate
    "tp", "hf",  # citations: "TP §4" (docs' throughput notes), HF = Hugging Face
    "english",  # View → Language lists each language in its own words
    "dpo", "ipo", "kto", "orpo", "cpo", "simpo", "kl", "id",  # preference-training losses by their names; Hub ID
    "grpo", "vllm",  # the RL loss by its name, the vLLM inference engine
}  # fmt: skip
#: Phrases kept in English on purpose (a technical term as practitioners say it).
ALLOWED_PHRASES = ["LM head", "FlashAttention 2", "PyTorch SDPA", "no_sync", "sync_each_batch", "custom_sharded_layers",
                   "vllm-serve", "load_in_4bit", "load_in_8bit", "LLM.int8", "tune cp", "zero.Init", "zero3_init_flag", "quant_method", "ms-swift", "torch_empty_cache_steps", "torch.cuda.empty_cache()"]  # (API names, commands)
#: Combo boxes whose items are data (catalog names), not UI wording.
DATA_COMBOS = {"Model", "GPU", "Price offer", "Copy from catalog card", "Preset"}
_WORD = re.compile(r"[A-Za-z]{2,}")
_TAG = re.compile(r"<[^>]+>")


def _proper_names(plan_name: str) -> list[str]:
    """Names that are data: the plan, catalog models and families, GPUs (full and short), providers."""
    names = {plan_name}
    for m in catalog.list_models():
        names |= {m.name, m.family, m.id}
    for g in catalog.list_gpus():
        names |= {g.name, g.name.removeprefix("GeForce "), g.name.removeprefix("NVIDIA "), g.vendor}
    names |= {p.provider for p in catalog.list_prices()}
    names |= {"NVIDIA GeForce RTX 4090", "RTX 4090"}
    names |= {p.name for p in STACKS if p.key != "pytorch"}  # training stacks (the plain loop is translated)
    return sorted((n for n in names if n), key=len, reverse=True)


def untranslated(texts: list[str], plan_name: str) -> list[str]:
    """The texts that still hold English words (after removing proper names and allowed words)."""
    names = _proper_names(plan_name)
    found = []
    for text in texts:
        plain = " ".join(_TAG.sub(" ", text).replace("&nbsp;", " ").replace("&amp;", "&").split())
        for name in [*names, *ALLOWED_PHRASES]:
            plain = plain.replace(name, " ")
        words = [w for w in _WORD.findall(plain) if w.lower() not in ALLOWED]
        if words:
            found.append(f"{text!r} (English: {', '.join(words)})")
    return found


def _menu_texts(menu: QMenu) -> list[str]:
    out = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        if action.menu() is not None:
            out.append(action.menu().title())
            out += _menu_texts(action.menu())
        elif action.text():
            out.append(action.text())
    return out


def _chart_texts(widget: QWidget) -> list[str]:
    """Axis labels and legend entries of a pyqtgraph PlotWidget."""
    import pyqtgraph as pg

    out = []
    if not isinstance(widget, pg.PlotWidget):
        return out
    plot = widget.getPlotItem()
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        if axis.isVisible() and axis.labelText:
            out.append(axis.labelText)
    for item in plot.scene().items():
        if isinstance(item, pg.LegendItem) and item.isVisible():
            out += [label.text for sample, label in item.items if label.isVisible()]
    return out


def visible_texts(window: QWidget) -> list[str]:
    """Every UI word the window shows now (see the module docstring)."""
    texts: list[str] = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    for menu_action in window.menuBar().actions():
        texts.append(menu_action.text())
        if menu_action.menu() is not None:
            texts += _menu_texts(menu_action.menu())
    for toolbar in window.findChildren(QToolBar):
        texts += [a.iconText() for a in toolbar.actions() if not a.isSeparator() and a.iconText()]
    for w in window.findChildren(QWidget):
        if not w.isVisible():
            continue
        if isinstance(w, QLabel) and w.text():
            texts.append(w.text())
        elif isinstance(w, QAbstractButton) and w.text():
            texts.append(w.text())
        elif isinstance(w, QGroupBox):
            texts.append(w.title())
        elif isinstance(w, QTabBar):
            texts += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QTableView) and w.model() is not None:
            m = w.model()
            texts += [str(m.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(m.columnCount())]
        elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
            texts += [w.prefix(), w.suffix(), w.specialValueText()]
        elif isinstance(w, QComboBox) and w.accessibleName() not in DATA_COMBOS and not w.isEditable():
            texts += [w.itemText(i) for i in range(w.count())]
        texts += _chart_texts(w)
    return [t for t in texts if t and t.strip()]


@pytest.fixture
def chinese(qapp):
    """The zh_CN translator installed for one test (removed afterwards, with the default locale)."""
    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    yield
    i18n.remove_translators(qapp)


def _window(qtbot, monkeypatch):
    from tuneplan.ui.main_window import MainWindow

    monkeypatch.setattr(MainWindow, "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(MainWindow, "show_error", lambda self, title, text: None)
    w = MainWindow(probe=lambda: FAKE_PROBE)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    w._on_probe_finished(FAKE_PROBE)
    return w


def _all_views_texts(w, qtbot) -> list[str]:
    texts = []
    w.library_dock.show()
    for i in range(w.tabs.count()):
        w.tabs.setCurrentIndex(i)
        qtbot.wait(30)
        texts += visible_texts(w)
    return texts


# ------------------------------------------------------------------------------------------ Chinese


def test_no_untranslated_english_in_the_chinese_window(chinese, qtbot, monkeypatch):
    w = _window(qtbot, monkeypatch)
    texts = _all_views_texts(w, qtbot)
    assert len(texts) > 300, "the walk found too few texts: did the window change?"
    left = sorted(set(untranslated(texts, w.store.scenario.name)))
    assert not left, f"{len(left)} untranslated text(s) in the zh_CN window:\n" + "\n".join(left)
    # and it really is Chinese
    assert w.tabs.tabText(0) == "方案"
    assert w.verdict_label.text().startswith("放得下")


def test_a_plan_that_does_not_fit_and_its_notes_are_chinese_too(chinese, qtbot, monkeypatch):
    w = _window(qtbot, monkeypatch)
    w.store.set_fields({"training.method": "full", "training.num_gpus": 2, "training.sharding": "zero3",
                        "training.seq_len": 16384})
    w.store.set_field("training.num_gpus", 1)  # "sharding across one GPU saves no memory"
    qtbot.wait(30)
    assert not w.store.result.memory.fits
    assert w.store.result.warnings, "expected a core warning in the summary"
    assert w.verdict_label.text().startswith("放不下")
    left = sorted(set(untranslated(visible_texts(w), w.store.scenario.name)))
    assert not left, "\n".join(left)


def test_field_errors_are_chinese(chinese, qtbot, monkeypatch):
    w = _window(qtbot, monkeypatch)
    assert not w.store.set_field("training.micro_batch", 0)
    message = w.batch_panel.fields["training.micro_batch"].message.text()
    assert message == "微批次（序列数）不能小于 1。方案仍使用上一个有效值。"


def test_numbers_follow_the_chosen_language(chinese, qtbot, monkeypatch):
    w = _window(qtbot, monkeypatch)
    assert QLocale().name() == "zh_CN"
    assert w.cost_card.value.text() == QLocale().toCurrencyString(w.store.result.cost.total_usd, "$", 2)
    assert w.memory_card.value.text().endswith(" GiB")


def test_core_notes_are_translated_and_unknown_ones_pass_through(chinese):
    assert i18n.core_note_text(Note(code="plan.sharding_one_gpu")) == "只有一块 GPU 时分片不会节省显存"
    assert probe_message(failure("no_gpu", "probe.no_gpu"), i18n.core_note_text) == "未找到 NVIDIA GPU——你仍可以手动填写显卡"
    assert probe_message(failure("no_gpu", "probe.no_gpu"), i18n.core_note_text, by_hand=True) == (
        "未找到 NVIDIA GPU——正在使用你手动填写的显卡")
    assert i18n.core_note_text(Note(code="a.code.the.ui.does.not.know")) == "a.code.the.ui.does.not.know"


def _sample_params(template: str) -> dict[str, object]:
    """A value for each placeholder of a note template: a number where it has a numeric spec, else 7 (which
    also stands in for a name)."""
    return {field: 1234.56 if spec.rstrip("fg%d").endswith((",", ".2", ".1", ".0", "")) and spec else 7
            for field, spec in note_fields(template).items()}


#: Names in notes that stay as they are: products, file formats, units, library and API names, quoted messages.
NOTE_NAMES = ["LLaMA-Factory", "Cut Cross-Entropy", "nvidia-ml-py", "reduce-scatter", "PCIe", "Windows", "WSL", "YAML", "UTF", "KiB",
              "JSONL", "TSV", "Parquet", "Arrow",  # dataset file formats (issue #19)
              "Pod", "RMSNorm", "ParamWrapper", "transformers", "issue", "PR", "true", "false", "True", "auto", "WSL2",
              "bf16-mixed", "SFT", "Triton", "RoPE", "SwiGLU", "unsloth", "step", "stage pt",
              # config keys and recipe words quoted as the stacks write them
              "packing", "packed", "collate", "recipe", "Block",
              # commands and DeepSpeed's own word for a ZeRO level, as users type them
              "tune ls", "accelerate launch", "stage"]
_CAMEL = re.compile(r"\b(?=(?:\w*[A-Z]){2})(?=\w*[a-z])\w+\b")  # class names: SFTTrainer, FSDPStrategy, ForCausalLMLoss
_IDENTIFIER = re.compile(r"[\w.\-]*[_.=(][\w.\-=()]*[\w)]|\"[^\"]*\"|“[^”]*”")


def _note_english(text: str) -> list[str]:
    """English words left in a rendered note, beyond API identifiers (``sync_each_batch=False``), quoted library
    messages and :data:`NOTE_NAMES`."""
    plain = text
    for name in NOTE_NAMES:
        plain = re.sub(rf"\b{re.escape(name)}\b", " ", plain)
    return untranslated([_CAMEL.sub(" ", _IDENTIFIER.sub(" ", plain))], "")


def _every_note_code() -> list[str]:
    import importlib
    import importlib.util

    spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "tools" / "i18n.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for module in tool.CATALOGUE_MODULES:
        importlib.import_module(module)
    return sorted(NOTES)


def test_every_note_code_renders_in_chinese_without_english_words(chinese):
    """#20: the Chinese UI has no English left from core messages. Every code of the catalogue, filled with sample
    parameters, renders in Chinese (its placeholders filled, none left as braces) with no English word beyond the
    allowed technical names."""
    codes = _every_note_code()
    assert len(codes) > 100, "the catalogue lost its notes"
    left, unfilled = [], []
    for code in codes:
        note = Note(code=code, params=_sample_params(NOTES[code]))
        text = i18n.core_note_text(note)
        if "{" in text or text == code:
            unfilled.append(f"{code}: {text!r}")
        left += [f"{code}: {u}" for u in _note_english(text)]
    assert not unfilled, "\n".join(unfilled)
    assert not left, f"{len(left)} note(s) with English in Chinese:\n" + "\n".join(left)


@pytest.fixture
def english(qapp):
    """No translator and a US English default locale for one test (the previous default restored afterwards)."""
    i18n.remove_translators(qapp)
    before = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    yield
    QLocale.setDefault(before)


def test_every_note_code_renders_in_english_as_the_cli_writes_it(english):
    """Without a translator the UI's rendering of every code equals the core's English one (the CLI's), numbers
    included: the locale formatter keeps each template's format spec."""
    for code in _every_note_code():
        note = Note(code=code, params=_sample_params(NOTES[code]))
        assert i18n.core_note_text(note) == render_note(note), code


@pytest.mark.parametrize(("value", "spec", "in_english", "german"), [
    # by hand: Python's format mini-language, then the same digits with German separators (. groups, , decimals)
    (1234.5, ",.2f", "1,234.50", "1.234,50"),
    (0.15, ".0%", "15%", "15\u00a0%"),
    (4.0, "g", "4", "4"),
    (59.8, "", "59.8", "59,8"),
    (3, "", "3", "3"),
    (12345, ",", "12,345", "12.345"),
])
def test_note_numbers_follow_the_locale_and_keep_the_spec(english, value, spec, in_english, german):
    assert i18n.note_number(value, spec) == in_english == format(value, spec)
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    assert i18n.note_number(value, spec).replace("\u202f", "\u00a0") in {german, german.replace("\u00a0", "")}


@pytest.mark.parametrize(("hours", "in_english", "german", "plain"), [
    # by hand: 3.6 s, 24 min, 6.26 h, 80 h = 3.33 days, 30,000 h = 1,250 days
    (0.001, "4 s", "4 s", "4 s"),
    (0.4, "24 min", "24 min", "24 min"),
    (6.26, "6.3 h", "6,3 h", "6.3 h"),
    (80, "80 h (3.3 days)", "80 h (3,3 days)", "80 h (3.3 days)"),
    (30_000, "30,000 h (1,250.0 days)", "30.000 h (1.250,0 days)", "30,000 h (1250.0 days)"),
])
def test_one_hours_format_with_the_locales_digits_or_plain_ones(english, hours, in_english, german, plain):
    """The plan's time card uses the locale's digits; the report and the scenario comparison Python's."""
    assert i18n.format_hours(hours) == in_english
    assert i18n.format_hours(hours, plain=True) == plain
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    assert i18n.format_hours(hours) == german
    assert i18n.format_hours(hours, plain=True) == plain


def test_plain_dollars_ignore_the_locale(english):
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    assert i18n.plain_usd(1234.5) == "$1,234.50"
    assert i18n.plain_usd(12345.6, 0) == "$12,346"
    assert i18n.fmt_usd(1234.5).replace("\u00a0", " ") == "1.234,50 $"


def test_there_is_one_view_menu_with_language_and_theme(chinese, qtbot, monkeypatch):
    w = _window(qtbot, monkeypatch)
    titles = [a.text() for a in w.menuBar().actions()]
    assert titles.count("视图(&V)") == 1, titles
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "视图(&V)")
    subs = [a.text() for a in view.actions() if a.menu() is not None]
    assert "语言(&L)" in subs and "主题(&T)" in subs
    assert [a.text() for a in w.language_actions.values()] == ["跟随系统(&S)", "&English", "简体中文(&C)"]


def test_standard_buttons_come_from_qts_own_translation(chinese):
    from PySide6.QtWidgets import QDialogButtonBox

    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
    assert {b.text() for b in box.buttons()} == {"保存", "取消"}


# ------------------------------------------------------------------------------------------ English


def test_english_shows_english(qapp, qtbot, monkeypatch):
    assert i18n.install_translator(qapp, "en") == "en"
    try:
        w = _window(qtbot, monkeypatch)
        assert w.tabs.tabText(0) == "Plan"
        assert [a.text() for a in w.menuBar().actions()][:3] == ["&File", "&Edit", "&View"]
        assert w.verdict_label.text() == w.store.result.memory.verdict()
        assert w.memory_card.title.text() == "Peak GPU memory"
        assert not any(re.search(r"[\u4e00-\u9fff]", t) for t in visible_texts(w) if "简体中文" not in t)
    finally:
        i18n.remove_translators(qapp)


def test_core_texts_are_unchanged_without_a_translator(english):
    """Every note the core writes for a range of plans comes back as the CLI writes it (English is the source)."""
    scenarios = [catalog.default_scenario()]
    base = catalog.default_scenario()
    t = base.training
    for update in ({"method": "full", "num_gpus": 1, "sharding": "zero3", "seq_len": 65536, "cpu_offload": True},
                   {"grad_checkpointing": False, "precision": "fp32", "method": "full"},
                   {"micro_batch": 64, "method": "lora"}):
        scenarios.append(base.model_copy(update={"training": t.model_copy(update=update)}))
    scenarios.append(base.model_copy(update={"pricing": base.pricing.model_copy(update={
        "interruptions_per_hour": 0.1, "failure_probability": 0.1, "monthly_price_usd": 500.0, "storage_kind": "volume",
        "storage_hours_after_run": 24.0})}))
    notes = []
    for s in scenarios:
        r = estimate(s)
        notes += [*r.messages, *r.time.messages, *r.cost.messages]
        assert r.warnings == [render_note(n) for n in r.messages]
        assert r.cost.notes == [render_note(n) for n in r.cost.messages]
    assert {"cost.interruptions", "cost.failure_repeats", "cost.storage_volume"} <= {n.code for n in notes}
    for note in notes:
        assert i18n.core_note_text(note) == render_note(note)


# ------------------------------------------------------------------------------------------ the language setting


def test_system_language_picks_simplified_chinese_only_where_it_fits():
    pick = i18n._system_language
    assert pick(QLocale("zh_CN")) == "zh_CN"
    assert pick(QLocale("zh_SG")) == "zh_CN"
    assert pick(QLocale("zh_TW")) == "en"
    assert pick(QLocale("zh_HK")) == "en"
    assert pick(QLocale("de_DE")) == "en"
    assert pick(QLocale("en_US")) == "en"


def test_install_follows_the_system_locale(qapp):
    try:
        assert i18n.install_translator(qapp, "system", system=QLocale("zh_CN")) == "zh_CN"
        assert QCoreApplication.translate("MainWindow", "Plan") == "方案"
        assert i18n.install_translator(qapp, "system", system=QLocale("fr_FR")) == "en"
        assert QCoreApplication.translate("MainWindow", "Plan") == "Plan"
    finally:
        i18n.remove_translators(qapp)


def test_language_menu_stores_the_choice_and_offers_a_restart(qtbot, monkeypatch):
    w = _window(qtbot, monkeypatch)
    asked: list[str] = []
    w.ask_language_restart = lambda name: asked.append(name) or False
    assert i18n.stored_language() == "system"
    assert w.language_actions["system"].isChecked()
    w.language_actions["zh_CN"].trigger()
    assert i18n.stored_language() == "zh_CN"
    assert asked == ["简体中文(&C)"]
    assert w.isVisible()  # "Later": nothing restarts
    w.language_actions["zh_CN"].trigger()  # the same choice again: no question
    assert len(asked) == 1
    with pytest.raises(ValueError):
        i18n.set_stored_language("tlh")


def test_stored_choice_is_used_at_start(qapp):
    i18n.set_stored_language("zh_CN")
    try:
        assert i18n.install_translator(qapp) == "zh_CN"
    finally:
        i18n.remove_translators(qapp)


def test_plain_text_drops_mnemonics():
    assert i18n.plain_text("新建(&N)") == "新建"
    assert i18n.plain_text("Save &As…") == "Save As…"
    assert i18n.plain_text("Logits && loss") == "Logits & loss"


# ------------------------------------------------------------------------------------------ the files


def test_every_message_has_a_translation():
    root = ET.parse(TS).getroot()
    assert root.get("language") == "zh_CN"
    missing = []
    count = 0
    for context in root.iter("context"):
        for message in context.iter("message"):
            count += 1
            tr = message.find("translation")
            # a plural message (numerus="yes") holds its text in <numerusform> children
            text = "" if tr is None else (tr.text or "").strip() or "".join(n.text or "" for n in tr.iter("numerusform"))
            if tr is None or tr.get("type") in {"unfinished", "vanished", "obsolete"} or not text.strip():
                missing.append(f"[{context.findtext('name')}] {message.findtext('source')!r}")
    assert count > 900
    assert not missing, f"{len(missing)} message(s) without a translation:\n" + "\n".join(missing)


def test_placeholders_survive_translation():
    root = ET.parse(TS).getroot()
    ph = re.compile(r"\{[A-Za-z_]*\}")
    wrong = []
    for context in root.iter("context"):
        for message in context.iter("message"):
            src, tr = message.findtext("source") or "", message.findtext("translation") or ""
            if set(ph.findall(src)) - {"{s}"} != set(ph.findall(tr)) - {"{s}"}:
                wrong.append(f"[{context.findtext('name')}] {src!r} -> {tr!r}")
    assert not wrong, "\n".join(wrong)


def _lrelease() -> str | None:
    here = Path(sys.executable).parent
    for name in ("pyside6-lrelease", "pyside6-lrelease.exe"):
        if (here / name).is_file():
            return str(here / name)
    return shutil.which("pyside6-lrelease")


def test_qm_is_newer_than_the_ts_or_identical_to_a_fresh_compile(tmp_path):
    """The shipped .qm holds the .ts as it is (a fresh checkout may give both files one mtime)."""
    assert QM.is_file(), "run python tools/i18n.py"
    if QM.stat().st_mtime >= TS.stat().st_mtime:
        return
    tool = _lrelease()
    if tool is None:
        pytest.fail(f"{QM.name} is older than {TS.name}: run python tools/i18n.py compile")
    fresh = tmp_path / "fresh.qm"
    subprocess.run([tool, str(TS), "-qm", str(fresh)], check=True, capture_output=True)
    assert fresh.read_bytes() == QM.read_bytes(), f"{QM.name} is stale: run python tools/i18n.py compile"


def test_ts_holds_every_string_the_code_marks(tmp_path):
    """A string added to the UI without running tools/i18n.py (and translating it) fails here."""
    lupdate = Path(sys.executable).parent / "pyside6-lupdate"
    if not lupdate.is_file() and shutil.which("pyside6-lupdate") is None:
        pytest.skip("pyside6-lupdate not available")
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in (ROOT / "src" / "tuneplan" / "ui").glob("*.py"))
    subprocess.run([str(lupdate) if lupdate.is_file() else "pyside6-lupdate", *sources, "-locations", "none",
                    "-ts", str(fresh)], check=True, capture_output=True)

    def keys(path: Path) -> set[tuple[str, str]]:
        root = ET.parse(path).getroot()
        return {(c.findtext("name") or "", m.findtext("source") or "") for c in root.iter("context")
                for m in c.iter("message")}

    new = keys(fresh) - keys(TS)
    assert not new, "strings not in the .ts (run python tools/i18n.py, then translate):\n" + "\n".join(
        f"[{c}] {s!r}" for c, s in sorted(new))


def test_qm_is_found_from_the_source_tree_and_bundled(monkeypatch):
    assert i18n.translations_dir() == QM.parent
    assert i18n.qm_path("zh_CN") == QM
    assert i18n.qm_path("xx") is None
    # a PyInstaller bundle: <_MEIPASS>/resources/translations
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import spec_inputs
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    bundled = {f"{dest}/{src.name}" for src, dest in spec_inputs.data_files()}
    assert "resources/translations/tuneplan_zh_CN.qm" in bundled
    assert spec_inputs.keep_data("resources/translations/tuneplan_zh_CN.qm")
    assert spec_inputs.keep_data("PySide6/Qt/translations/qtbase_zh_CN.qm")
    assert not spec_inputs.keep_data("PySide6/Qt/translations/qtbase_de.qm")


def test_paged_and_fused_step_warnings_are_translated(chinese):
    out = i18n.core_note_text(Note(code="plan.paged_spill", params={"paged": 59.8, "free": 4.4, "over": 55.4}))
    assert out.startswith("分页优化器状态（59.8 GiB）") and "55.4 GiB" in out and "WSL2" in out
    assert i18n.core_note_text(Note(code="plan.optimizer_in_backward_accumulation")).startswith("融合进反向传播的优化器步骤")
    assert i18n.core_note_text(Note(code="plan.expert_lora_dropout")).startswith("PEFT 通过 ParamWrapper")


def test_moe_qlora_warning_is_translated(chinese):
    assert i18n.core_note_text(Note(code="plan.moe_experts_unquantised")).startswith("bitsandbytes 不会量化")


def test_every_peak_moment_has_a_chinese_phrase(chinese):
    for phase in ("end of forward", "backward", "end of backward", "recomputed layer", "last layer backward",
                  "optimizer step", "embedding backward"):
        assert not re.search(r"[A-Za-z]{3,}", i18n.peak_phase_text(phase)), phase


def test_core_templates_are_marked_for_translation():
    # the core's formula and note templates reach Qt's tools through ui/core_strings.py, generated from the catalogue
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("i18n_tool", root / "tools" / "i18n.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert (root / "src" / "tuneplan" / "ui" / "core_strings.py").read_text(encoding="utf-8") == tool.core_source()


def test_time_terms_render_in_chinese(qapp):
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate
    from tuneplan.core.terms import FORMULAS, render_formula
    from tuneplan.ui.i18n import install_translator, translate

    install_translator(qapp, "zh_CN")
    try:
        term = estimate(catalog.default_scenario()).time.term("matmul")
        text = render_formula(term, template=translate("Terms", FORMULAS["matmul"]))
        assert "每个微批次" in text and "{" not in text
    finally:
        install_translator(qapp, "en")
