"""``tuneplan export-config``: the plan as a training stack's starting config (issue #17 part 5). No Qt imports.

The plan comes from the same flags as ``tuneplan estimate`` (``--scenario``, ``--model``, ``--training-config``,
``--stack`` ...); :func:`tuneplan.core.config_export.export_config` builds the document and
:mod:`tuneplan.storage.config_export` renders and writes it. Without ``-o`` the file goes to standard output; with
it the file is written atomically and one line says what was written.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from tuneplan.core.text import terminal_safe

__all__ = ["FORMATS", "add_export_arguments", "run_export_config"]

#: ``tuneplan.core.config_export.EXPORT_FORMATS`` (a test keeps the two equal), written out so that building the
#: parser, which every command and ``--version`` does, does not import the estimator.
FORMATS = ("llama-factory", "axolotl", "trl", "torchtune", "ms-swift", "deepspeed")


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``export-config`` beyond the plan's (``add_plan_arguments``)."""
    p.add_argument("--format", choices=FORMATS,
                   help="the file to write: a LLaMA-Factory, axolotl, TRL (trl sft --config), ms-swift (swift sft) YAML, "
                        "torchtune recipe overrides, or a DeepSpeed JSON (default: the plan's --stack)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the file here (atomically) instead of standard output")
    p.add_argument("--deepspeed-values", choices=["auto", "explicit"],
                   help="DeepSpeed JSON: 'auto' where Hugging Face Trainer fills batch size, accumulation, clipping and "
                        "precision (default for the HF-based stacks), or the plan's numbers (default for plain PyTorch)")


def run_export_config(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Write the plan's config (to ``out``, default standard output, when no ``-o``); 2 on bad input or when the
    file cannot be written."""
    out = out if out is not None else sys.stdout  # looked up now: a caller may have replaced it
    from tuneplan.cli import _fail, scenario_or_failure
    from tuneplan.core.config_export import EXPORT_FORMAT_NAMES, default_format
    from tuneplan.storage.config_export import ConfigWriteError, build_export, render_config, write_config

    scenario = scenario_or_failure(args)
    if isinstance(scenario, int):
        return scenario
    fmt = args.format or default_format(scenario.training)
    if fmt is None:
        stack = scenario.training.stack
        if stack is None:
            return _fail("--format is needed: the plan names no training stack whose file it would be (--stack)")
        from tuneplan.core.stacks import get_stack

        return _fail(f"--format is needed: {get_stack(stack).name} has no file of its own among "
                     f"{', '.join(EXPORT_FORMAT_NAMES.values())}")
    auto = None if args.deepspeed_values is None else args.deepspeed_values == "auto"
    export = build_export(scenario, fmt, deepspeed_auto=auto)
    if not args.output:
        out.write(render_config(export))
        return 0
    from pathlib import Path

    try:
        path = write_config(args.output, render_config(export, Path(args.output).name))
    except ConfigWriteError as exc:
        return _fail(str(exc))
    unexpressed = len(export.notes)
    print(terminal_safe(f"wrote {path} ({EXPORT_FORMAT_NAMES[fmt]}) for {scenario.name}: {export.verdict}"
                        + (f"; {unexpressed} note{'s' if unexpressed != 1 else ''} in its header" if unexpressed
                           else "")), file=out)
    return 0
