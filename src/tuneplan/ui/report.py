"""A one-page HTML report for whoever approves the budget: File → Export report….

:func:`build_report_html` is pure (no widgets, no I/O; its words go through Qt's ``translate``, so
the report is in the UI language): scenarios, their estimates and chart PNGs in,
one self-contained HTML document out (styles inline, charts embedded as ``data:image/png;base64``,
so the file can be mailed and opened in any browser). It shows the key inputs, the memory
breakdown with each component's formula, time, cost, the verdict, the date, the Tuneplan version
and how accurate the memory estimate has been against real measurements.

:func:`export_report` renders the charts (fresh, fixed-size chart widgets, so the images do not
depend on the window's size) and writes the file; :func:`install_report` adds the menu action.
"""

from __future__ import annotations

import base64
import html
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tuneplan import __version__
from tuneplan.core.memory import MEASURED_ERROR
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import OPTIMIZER_LABELS, Scenario

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

    from tuneplan.ui.main_window import MainWindow
    from tuneplan.ui.scenario_compare import ScenarioComparison

__all__ = ["ACCURACY_URL", "build_report_html", "export_report", "install_report", "render_png"]

log = logging.getLogger(__name__)


def translate(context: str, text: str) -> str:
    """Qt's ``QCoreApplication.translate``, imported on first use: importing this module loads no Qt."""
    from PySide6.QtCore import QCoreApplication

    return QCoreApplication.translate(context, text)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name pyside6-lupdate looks for
    """Mark ``text`` for extraction; it is translated where it is shown."""
    return text


def _i18n():  # noqa: ANN202 - the tuneplan.ui.i18n module, imported on first use (it imports Qt)
    from tuneplan.ui import i18n

    return i18n


ACCURACY_URL = "https://github.com/tuneplan/tuneplan/blob/main/docs/accuracy.md"
GOOD, BAD = "#2e7d32", "#c62828"

_CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #222;
       max-width: 1000px; margin: 24px auto; padding: 0 16px; font-size: 14px; line-height: 1.4; }
h1 { font-size: 22px; margin: 0 0 2px 0; }
h2 { font-size: 17px; margin: 22px 0 6px 0; border-bottom: 1px solid #ddd; padding-bottom: 3px; }
h3 { font-size: 14px; margin: 12px 0 4px 0; color: #444; }
.meta { color: #666; margin: 0 0 14px 0; }
table { border-collapse: collapse; margin: 4px 0 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f6f8; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.formula { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; color: #333; }
td.source { font-size: 12px; color: #555; }
tr.total td { font-weight: 600; background: #fafafa; }
.good { color: #2e7d32; font-weight: 600; }
.bad { color: #c62828; font-weight: 600; }
.cols { display: flex; gap: 24px; flex-wrap: wrap; }
.cols > div { flex: 1 1 300px; }
figure { margin: 8px 0 14px 0; }
figure img { max-width: 100%; border: 1px solid #e3e3e3; }
figcaption { color: #444; font-weight: 600; font-size: 13px; margin-bottom: 2px; }
.note { background: #fff8e1; border: 1px solid #f0d98c; padding: 8px 12px; border-radius: 4px; font-size: 13px; }
.warn { color: #8a5a00; }
@media print { body { margin: 0; max-width: none; font-size: 11px; } h2 { break-after: avoid; }
               section { break-inside: avoid; } figure img { max-height: 260px; } }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _tr(text: str) -> str:
    """A string marked elsewhere with ``QT_TRANSLATE_NOOP("Report", ...)``, in the UI language."""
    return translate("Report", text)


def _method(method: str) -> str:
    """``full fine-tune``, ``LoRA`` or ``QLoRA`` in the UI language (the store's words, as the library panel says them)."""
    from tuneplan.ui.store import METHOD_LABELS

    return translate("AppStore", METHOD_LABELS.get(method, method))


def _tokens(n: float) -> str:
    for suffix, scale in ((QT_TRANSLATE_NOOP("Report", "{n} billion"), 1e9),
                          (QT_TRANSLATE_NOOP("Report", "{n} million"), 1e6),
                          (QT_TRANSLATE_NOOP("Report", "{n} thousand"), 1e3)):
        if n >= scale:
            return _tr(suffix).format(n=f"{n / scale:.3g}")
    return f"{n:.0f}"


def _verdict(r: Estimate) -> str:
    i18n = _i18n()
    blocked = r.memory.fits and i18n.plan_verdict_color(r) == i18n.VERDICT_COLORS["short"]  # a stack refuses it
    cls = "good" if r.memory.fits and not blocked else "bad"
    text = i18n.plan_verdict(r) if blocked else i18n.verdict_text(r.memory)
    return f'<span class="{cls}">{_e(text)}</span>'


def _table(rows: Sequence[tuple[str, str]], header: tuple[str, str] | None = None) -> str:
    out = ["<table>"]
    if header:
        out.append(f"<tr><th>{_e(header[0])}</th><th>{_e(header[1])}</th></tr>")
    for k, v in rows:
        out.append(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _inputs(s: Scenario, r: Estimate) -> list[tuple[str, str]]:
    t, d, p = s.training, s.dataset, s.pricing
    i18n = _i18n()
    method = _method(t.method)
    if t.method != "full":
        method += translate("Report", " (rank {rank}, {targets})").format(rank=t.lora_rank, targets=t.lora_targets)
    gpus = f"{t.num_gpus} × {s.gpu.name}" + (
        f", {i18n.SHARDING_LABELS.get(t.sharding, t.sharding)}" if t.num_gpus > 1 else "")
    if t.sharding == "fsdp" and t.num_gpus > 1:
        gpus += ", " + {"layers": translate("Report", "embeddings in the root unit"),
                        "separate-embeddings": translate("Report", "embeddings sharded apart"),
                        "blocks-with-adapters": translate("Report", "LoRA adapters in their layer's unit")}[t.fsdp_wrap]
        if t.unsharded_accumulation:
            gpus += ", " + translate("Report", "gradients synced at the optimizer step (no_sync)")
        elif t.grad_accumulation > 1 and not t.optimizer_in_backward:
            gpus += ", " + translate("Report", "gradients synced every micro-batch")
    optimizer = i18n.OPTIMIZER_LABELS.get(t.optimizer, OPTIMIZER_LABELS.get(t.optimizer, t.optimizer))
    return [
        (translate("Report", "Model"), _e(translate("Report", "{model} · {n} B parameters").format(model=s.model.name, n=f"{r.parameters / 1e9:.2f}"))),
        (translate("Report", "Method"), _e(method)),
        (translate("Report", "Trainable parameters"), _e(f"{r.trainable_parameters / 1e6:,.1f} M")),
        (translate("Report", "Precision · optimizer"), _e(f"{t.precision} · {optimizer}")),
        (translate("Report", "Batch"), _e(translate("Report", "{mb} × {seq} tokens per GPU, gradient accumulation {ga}, checkpointing {ckpt}").format(
            mb=t.micro_batch, seq=f"{t.seq_len:,}", ga=t.grad_accumulation,
            ckpt=translate("Report", "on") if t.grad_checkpointing else translate("Report", "off")))),
        (translate("Report", "GPUs"), _e(translate("Report", "{gpus} ({memory} GiB each)").format(gpus=gpus, memory=f"{s.gpu.memory_gib:g}"))),
        (translate("Report", "Data"), _e(translate("Report", "{tokens} tokens per epoch × {epochs} epochs").format(
            tokens=_tokens(d.tokens_per_epoch), epochs=f"{d.epochs:g}"))),
        (translate("Report", "Price"), _e(translate("Report", "{price} per GPU-hour · {provider} ({kind})").format(
            price=i18n.plain_usd(p.price_per_gpu_hour), provider=p.provider, kind=i18n.OFFER_KIND_LABELS.get(p.offer_kind, p.offer_kind))
            + (translate("Report", ", seen {date}").format(date=p.price_date) if p.price_date else ""))),
    ]


def _time_cost(s: Scenario, r: Estimate) -> list[tuple[str, str]]:
    t, c = r.time, r.cost
    i18n = _i18n()
    phases = " · ".join(f"{_e(i18n.PHASE_LABELS.get(name, name))} {i18n.format_hours(sec / 3600, plain=True)}"
                        for name, sec in t.phases.items() if sec > 0)
    rows = [
        (translate("Report", "Time"), f"<b>{i18n.format_hours(t.hours, plain=True)}</b> ({phases})"),
        (translate("Report", "Throughput"), _e(translate("Report", "{tps} tokens/s per GPU · {steps} optimizer steps").format(
            tps=f"{t.tokens_per_second:,.0f}", steps=f"{t.steps:,.0f}"))),
        (translate("Report", "Cost"), translate("Report", "<b>{usd}</b> expected · {pessimistic} pessimistic").format(
            usd=i18n.plain_usd(c.total_usd), pessimistic=i18n.plain_usd(c.pessimistic_usd))),
        (translate("Report", "GPU time"), _e(translate("Report", "{hours} billed h × {n} GPU × {price} = {usd}").format(
            hours=f"{c.billed_hours:.2f}", n=s.training.num_gpus, price=i18n.plain_usd(s.pricing.price_per_gpu_hour),
            usd=i18n.plain_usd(c.gpu_usd)))),
    ]
    for name, usd in c.breakdown.items():
        if usd and name.lower() not in {"gpu", "gpu time"}:
            rows.append((i18n.COST_LABELS.get(name, name), _e(i18n.plain_usd(usd))))
    return rows


def _memory_table(r: Estimate) -> str:
    m = r.memory
    heads = (translate("Report", "Component"), translate("Report", "GiB per GPU"), translate("Report", "Formula"),
             translate("Report", "Source"))
    out = ['<table><tr><th>{}</th><th class="num">{}</th><th>{}</th><th>{}</th></tr>'.format(*heads)]
    for comp in m.components:
        if comp.bytes <= 0:
            continue
        out.append(f'<tr><td>{_e(_i18n().component_label(comp.key, comp.label))}</td>'
                   f'<td class="num">{comp.bytes / GIB:.2f}</td>'
                   f'<td class="formula">{_e(_i18n().component_formula(comp))}</td><td class="source">{_e(comp.source)}</td></tr>')
    for label, value, note in (
        (translate("Report", "Peak allocated"), m.peak_allocated_bytes, "torch.cuda.max_memory_allocated()"),
        (translate("Report", "Peak reserved"), m.peak_reserved_bytes, "torch.cuda.max_memory_reserved()" + (
            translate("Report", "; includes {cache} GiB of cached blocks of earlier, shorter batches (dynamic padding), "
                                "released before out of memory").format(cache=f"{m.cache_bytes / GIB:.2f}")
            if m.cache_bytes else "")),
        (translate("Report", "Device total"), m.total_bytes,
         translate("Report", "what must fit; nvidia-smi will show about {smi} GiB once the cache has built up (it "
                             "can grow until the card is full); the verdict uses this").format(smi=f"{(m.total_bytes + m.cache_bytes) / GIB:.2f}") if m.cache_bytes
         else translate("Report", "what nvidia-smi shows; the verdict uses this")),
        *([(translate("Report", "Paged optimizer states (not counted)"), m.paged_bytes,
            translate("Report", "CUDA unified memory: paged out to CPU RAM on Linux when the GPU is full"))]
          if m.paged_bytes else []),
        (translate("Report", "GPU capacity"), m.capacity_bytes, translate("Report", "usable memory as the driver reports it")),
    ):
        out.append(f'<tr class="total"><td>{_e(label)}</td><td class="num">{value / GIB:.2f}</td>'
                   f'<td colspan="2" class="source">{_e(note)}</td></tr>')
    out.append("</table>")
    tight = {"none": "", "tight": translate("Report", " · <b>tight</b>: the upper bound does not fit"),
             "unlikely": translate("Report", " · <b>unlikely to fit</b>: even the lower bound does not"),
             "possible": translate("Report", " · <b>may fit</b>: the lower bound does")}[m.band_risk]
    out.append("<p>" + translate("Report", "Verdict: {verdict} · likely {low}–{high} GiB").format(
        verdict=_verdict(r), low=f"{m.low_bytes / GIB:.1f}", high=f"{m.high_bytes / GIB:.1f}") + f"{tight}</p>")
    return "".join(out)


def _images(images: Mapping[str, bytes] | Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    return list(images.items()) if isinstance(images, Mapping) else list(images)


def build_report_html(
    scenarios: Sequence[Scenario],
    estimates: Sequence[Estimate],
    images: Mapping[str, bytes] | Sequence[tuple[str, bytes]] = (),
    *,
    generated: datetime | None = None,
    version: str = __version__,
    title: str | None = None,
    differences: Sequence[tuple[str, Sequence[str]]] = (),
) -> str:
    """The report as one self-contained HTML document (pure: no Qt, no files).

    Args:
        scenarios: one or more plans (several: a comparison table comes first).
        estimates: ``core.estimate`` of each scenario, in the same order.
        images: ``caption -> PNG bytes`` (or pairs), embedded as base64 ``<img>``.
        generated: the report's date (now by default).
        version: the Tuneplan version printed in the header.
        title: the heading (the scenario's name, or "Comparison of N scenarios").
        differences: rows ``(field label, one text per scenario)`` of what differs between the
            scenarios (the comparison table), shown after the summary.

    Raises:
        ValueError: no scenarios, or not one estimate per scenario.
    """
    if not scenarios or len(scenarios) != len(estimates):
        raise ValueError("build_report_html needs one estimate per scenario (and at least one)")
    when = (generated or datetime.now().astimezone()).strftime("%Y-%m-%d %H:%M")
    heading = title or (scenarios[0].name if len(scenarios) == 1
                        else translate("Report", "Comparison of {n} scenarios").format(n=len(scenarios)))
    i18n = _i18n()
    lang = i18n.current_language().replace("_", "-")
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{_e(lang)}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>" + translate("Report", "{heading} — Tuneplan report").format(heading=_e(heading)) + "</title>",
        f'<meta name="generator" content="Tuneplan {_e(version)}">',
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(heading)}</h1>",
        '<p class="meta">' + translate("Report", "LLM fine-tuning plan · generated {when} by Tuneplan {version} · "
                                 "estimates, not measurements (see the accuracy note at the end)").format(
            when=_e(when), version=_e(version)) + "</p>",
    ]
    # ---------------------------------------------------------------- the answer first
    heads = (translate("Report", "Summary"), translate("Report", "Scenario"), translate("Report", "Model · method"),
             translate("Report", "Peak memory per GPU"), translate("Report", "Verdict"), translate("Report", "Time"),
             translate("Report", "Cost"))
    parts.append('<h2>{}</h2><table><tr><th>{}</th><th>{}</th><th>GPU</th><th class="num">{}</th><th>{}</th>'
                 '<th class="num">{}</th><th class="num">{}</th></tr>'.format(*heads))
    for s, r in zip(scenarios, estimates, strict=True):
        m = r.memory
        gpus = f"{s.training.num_gpus} × " if s.training.num_gpus > 1 else ""
        c = r.cost
        pessimistic = ("<br><small>" + translate("Report", "pessimistic {usd}").format(usd=i18n.plain_usd(c.pessimistic_usd)) + "</small>"
                       if c.pessimistic_usd > c.total_usd * 1.005 else "")
        parts.append(
            f"<tr><td>{_e(s.name)}</td>"
            f"<td>{_e(s.model.name)} · {_e(_method(s.training.method))}</td>"
            f"<td>{_e(gpus + s.gpu.name.removeprefix('GeForce '))}</td>"
            '<td class="num">' + translate("Report", "{total} of {capacity} GiB").format(
                total=f"{m.total_bytes / GIB:.1f}", capacity=f"{m.capacity_bytes / GIB:.2f}") + "</td>"
            f"<td>{_verdict(r)}</td>"
            f'<td class="num">{_e(i18n.format_hours(r.time.hours, plain=True))}</td>'
            f'<td class="num"><b>{i18n.plain_usd(c.total_usd)}</b>{pessimistic}</td></tr>'
        )
    parts.append("</table>")
    if differences and len(scenarios) > 1:
        parts.append("<h3>" + translate("Report", "What differs") + "</h3><table><tr><th></th>"
                     + "".join(f"<th>{_e(s.name)}</th>" for s in scenarios) + "</tr>")
        for label, values in differences:
            parts.append(f"<tr><th>{_e(label)}</th>" + "".join(f"<td>{_e(v)}</td>" for v in values) + "</tr>")
        parts.append("</table>")
    for caption, png in _images(images):
        data = base64.b64encode(png).decode("ascii")
        parts.append(f"<figure><figcaption>{_e(caption)}</figcaption>"
                     f'<img alt="{_e(caption)}" src="data:image/png;base64,{data}"></figure>')
    # ---------------------------------------------------------------- each scenario
    for s, r in zip(scenarios, estimates, strict=True):
        parts.append("<section>")
        parts.append(f"<h2>{_e(s.name)}</h2>")
        parts.append('<div class="cols"><div><h3>' + translate("Report", "Key inputs") + "</h3>")
        parts.append(_table(_inputs(s, r)))
        parts.append("</div><div><h3>" + translate("Report", "Time and cost") + "</h3>")
        parts.append(_table(_time_cost(s, r)))
        parts.append("</div></div>")
        parts.append("<h3>" + translate("Report", "Memory per GPU at the step's peak ({phase})").format(
            phase=_e(i18n.peak_phase_text(r.memory.peak_phase))) + "</h3>")
        parts.append(_memory_table(r))
        notes = [i18n.core_note_text(n) for n in (*r.messages, *r.time.messages, *r.cost.messages)]
        for note in notes:
            parts.append(f'<p class="warn">⚠ {_e(note)}</p>')
        if s.notes.strip():
            parts.append("<p><b>" + translate("Report", "Notes:") + f"</b> {_e(s.notes)}</p>")
        parts.append("</section>")
    # ---------------------------------------------------------------- how far to trust it
    parts.append(
        "<h2>" + translate("Report", "Accuracy") + '</h2><p class="note">'
        + translate("Report", "Memory is estimated from the model architecture and the "
              "training settings, not measured. Against published measurements of real fine-tuning runs the "
              "estimate's signed error ranged from {p10}% to {p90}% (10th to 90th percentile): the “likely” range "
              "above is the estimate widened by that error, and "
              "a plan whose upper bound exceeds the GPU's memory may not fit. Time and cost follow from an "
              "assumed hardware utilisation and the listed price. Details, per method and per source: {link}.").format(
            p10=f"{MEASURED_ERROR[0] * 100:+.1f}", p90=f"{MEASURED_ERROR[1] * 100:+.1f}",
            link=f'<a href="{_e(ACCURACY_URL)}">{_e(ACCURACY_URL)}</a>')
        + "</p>"
    )
    parts.append(f'<p class="meta">Tuneplan {_e(version)} · {_e(when)}</p>')
    parts.append("</body></html>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Qt side


def render_png(widget: QWidget, width: int = 1000, height: int = 340) -> bytes:
    """Render a (possibly hidden) widget at ``width`` x ``height`` into PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtWidgets import QApplication

    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.resize(width, height)
    widget.show()
    QApplication.processEvents()
    pixmap = widget.grab()
    widget.hide()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    pixmap.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def report_images(scenarios: Sequence[Scenario], estimates: Sequence[Estimate],
                  colors: Sequence[str] | None = None) -> list[tuple[str, bytes]]:
    """Chart PNGs for the report: the plan's two charts for one scenario, the comparison charts for several."""
    from tuneplan.ui.charts import SCENARIO_COLORS, CompareCostChart, CompareVramChart, CostChart, VramChart

    images: list[tuple[str, bytes]] = []
    if len(scenarios) == 1:
        s, r = scenarios[0], estimates[0]
        vram = VramChart()
        vram.set_estimate(r, s.gpu.name)
        images.append((translate("Report", "Memory per GPU at the step's peak, {gpu} (red line: its memory)").format(gpu=s.gpu.name),
                       render_png(vram, 1000, 260)))
        cost = CostChart()
        cost.set_cost(r.cost, r.time)
        images.append((translate("Report", "Cumulative cost over the run"), render_png(cost, 1000, 300)))
        for w in (vram, cost):
            w.deleteLater()
        return images
    palette = list(colors) if colors else SCENARIO_COLORS
    vram_c = CompareVramChart()
    vram_c.set_entries([(s.name, r, s.gpu.name) for s, r in zip(scenarios, estimates, strict=True)])
    images.append((translate("Report", "Memory per GPU at the step's peak, one bar per scenario (red lines: each GPU's memory)"),
                   render_png(vram_c, 1000, 380)))
    cost_c = CompareCostChart()
    cost_c.set_entries([(s.name, r, palette[i % len(palette)])
                        for i, (s, r) in enumerate(zip(scenarios, estimates, strict=True))])
    images.append((translate("Report", "Cumulative cost over the run"), render_png(cost_c, 1000, 300)))
    for w in (vram_c, cost_c):
        w.deleteLater()
    return images


def _ask_report_path(window: MainWindow, suggestion: str) -> str | None:
    from PySide6.QtWidgets import QFileDialog

    from tuneplan.ui.export_folder import export_folder, remember_export

    path, _ = QFileDialog.getSaveFileName(window, translate("Report", "Export report"), str(export_folder() / suggestion),
                                          translate("Report", "Web page (*.html)"))
    if path and not path.lower().endswith((".html", ".htm")):
        path += ".html"
    remember_export(path)
    return path or None


def export_report(window: MainWindow, path: str | Path | None = None,
                  comparison: ScenarioComparison | None = None) -> Path | None:
    """Write the report of the compared scenarios (when ``comparison`` has any) or of the current plan.

    Asks for the file (``window.ask_report_path`` when the window has one, so tests can answer).
    Returns the file, or None when cancelled or failed (the error is shown).
    """
    from tuneplan.storage.library import slugify

    if comparison is not None and comparison.entries:
        scenarios = [e.scenario for e in comparison.entries]
        estimates = [e.result for e in comparison.entries]
        colors = [e.color for e in comparison.entries]
        differences = [(row.label, row.texts) for row in comparison.rows(True)]
    else:
        scenarios, estimates, colors = [window.store.scenario], [window.store.result], None
        differences = []
    if path is None:
        suggestion = f"{slugify(scenarios[0].name if len(scenarios) == 1 else 'comparison')}-report.html"
        ask = getattr(window, "ask_report_path", None)
        path = ask(suggestion) if ask is not None else _ask_report_path(window, suggestion)
        if not path:
            return None
    target = Path(path)
    try:
        images = report_images(scenarios, estimates, colors)
        text = build_report_html(scenarios, estimates, images, differences=differences)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        log.exception("report export failed")
        window.show_error(translate("Report", "Cannot export report"), f"{target}: {exc}")
        return None
    window.statusBar().showMessage(translate("Report", "Exported {path}").format(path=target), 5000)
    return target


def install_report(window: MainWindow) -> QAction:
    """Add File → Export report… (the compared scenarios when the comparison tab is open, else the plan); returns
    its action."""
    from PySide6.QtGui import QAction

    from tuneplan.ui.menus import EXPORT_CHART_MENU, file_menu, submenu_action

    def run() -> None:
        view = getattr(window, "compare_view", None)
        comparing = view is not None and window.tabs.currentWidget() is view
        export_report(window, comparison=window.comparison if comparing else None)

    action = QAction(translate("Report", "Export &report (HTML)…"), window)
    action.setToolTip(translate("Report", "A one-page report to share: inputs, memory breakdown, time, cost and verdict"))
    action.triggered.connect(run)
    menu = file_menu(window)
    chart_menu = submenu_action(menu, EXPORT_CHART_MENU)
    actions = menu.actions()
    if chart_menu is not None:
        index = actions.index(chart_menu)
        after = actions[index + 1] if index + 1 < len(actions) else None
        if after is not None:
            menu.insertAction(after, action)
        else:
            menu.addAction(action)
    else:
        menu.addAction(action)
    return action

