"""``tuneplan estimate --dataset-file FILE``: the plan's dataset from the user's own file (issue #19). No Qt.

The file's tokens are counted with the model's tokenizer (``--tokenizer``: a model folder, a ``tokenizer.json``
or a Hugging Face id in the local cache; default the plan's model), and the plan takes the number of rows, the
mean tokens per example after truncation, the dynamic-padding efficiency at the plan's micro-batch and, under
dynamic padding, the longest example as the sequence length (:func:`tuneplan.core.lengths.dataset_updates`).
Dataset flags given on the command line win over what the file says.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from pydantic import ValidationError

from tuneplan.core.lengths import LengthStats, dataset_updates, length_stats
from tuneplan.core.scenario import Scenario, explain_validation_error
from tuneplan.core.terms import render_note
from tuneplan.core.text import terminal_safe

__all__ = ["add_dataset_file_arguments", "apply_dataset_file", "print_dataset_file"]

#: plan field -> the flag that sets it by hand (that flag then wins over the file). Not ``--seq-len``: the counts
#: are truncated at it, and under dynamic padding it is shortened only to the longest example, which it then is.
_FLAGS = {"dataset.examples": "dataset_examples", "dataset.tokens_per_example": "tokens_per_example",
          "dataset.total_tokens": "total_tokens", "dataset.padding_efficiency": "padding_efficiency",
          "dataset.rank_padding_efficiency": "rank_padding_efficiency", "dataset.tokens_std": "tokens_std",
          "dataset.longest_tokens": "longest_tokens", "dataset.packing_efficiency": "packing_efficiency"}
_TOKENIZER_ERRORS = {"dataset.no_tokenizer", "dataset.no_tokenizer_given", "dataset.bad_tokenizer"}


def _rows(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of rows, got {text[:40]!r}") from None
    if not 1 <= value <= 100_000_000:
        raise argparse.ArgumentTypeError("must be between 1 and 100000000")
    return value


def add_dataset_file_arguments(p: argparse.ArgumentParser) -> None:
    """``--dataset-file``, ``--dataset-field``, ``--tokenizer`` and ``--dataset-sample-rows`` on ``p``."""
    from tuneplan.storage.dataset_file import DEFAULT_SAMPLE_ROWS, FIELD_KINDS

    g = p.add_argument_group("dataset from a file")
    g.add_argument("--dataset-file", metavar="FILE",
                   help="count the tokens of your dataset (JSONL, JSON, CSV, TSV, Parquet or a datasets "
                        "save_to_disk folder) and plan with them")
    g.add_argument("--dataset-field", metavar="FIELD", default="auto",
                   help=f"what the rows hold: {', '.join(FIELD_KINDS)}, or a column name read as text "
                        "(default auto)")
    g.add_argument("--tokenizer", metavar="PATH_OR_HUB_ID",
                   help="a model folder or tokenizer.json, or a Hugging Face id in the local cache (default: the "
                        "plan's model; never downloaded)")
    g.add_argument("--dataset-sample-rows", type=_rows, default=DEFAULT_SAMPLE_ROWS, metavar="N",
                   help=f"count at most N rows, a uniform sample beyond (default {DEFAULT_SAMPLE_ROWS:,})")


def apply_dataset_file(args: argparse.Namespace, scenario: Scenario) -> tuple[Scenario, dict[str, Any] | None]:
    """The plan with ``--dataset-file``'s figures, and what was counted (None without the flag).

    Raises:
        ValueError: the file, its field or the tokenizer cannot be used (one line: the
            :class:`~tuneplan.storage.dataset_file.DatasetFileError` message), or the plan refuses the figures.
    """
    path = getattr(args, "dataset_file", None)
    if not path:
        return scenario, None
    from tuneplan.storage.dataset_file import DatasetFileError, count_dataset, model_tokenizer_ref

    ref = getattr(args, "tokenizer", None) or model_tokenizer_ref(scenario.model_id, scenario.model.name)
    try:
        if not ref:
            raise DatasetFileError("dataset.no_tokenizer_given")
        counted = count_dataset(path, ref, field=args.dataset_field or "auto", sample_rows=args.dataset_sample_rows)
    except DatasetFileError as exc:
        flag = "--tokenizer" if exc.code in _TOKENIZER_ERRORS else "--dataset-file"
        raise ValueError(f"{flag} {exc}" if exc.file and flag == "--dataset-file" else f"{flag}: {exc}") from None
    stats = length_stats(counted.counts, scenario.training, rows=counted.rows)
    updates = dataset_updates(stats)
    kept = {k: v for k, v in updates.items() if k not in _FLAGS or getattr(args, _FLAGS[k], None) is None}
    data = scenario.model_dump()
    for dotted, value in kept.items():
        section, key = dotted.split(".", 1)
        data[section][key] = value
    try:
        new = Scenario.model_validate(data)
    except ValidationError as exc:
        where, msg = explain_validation_error(exc, Scenario)
        raise ValueError(f"--dataset-file: the plan does not take the counted {where}: {msg}") from None
    info = {"counted": counted.model_dump(exclude={"counts"}), "stats": stats.model_dump(exclude={"histogram"}),
            "histogram": [b.model_dump() for b in stats.histogram], "set": kept,
            "kept_by_flags": sorted(set(updates) - set(kept))}
    info["counted"]["notes"] = [{"code": n.code, "params": n.params, "text": render_note(n)} for n in counted.notes]
    info["stats"]["notes"] = [{"code": n.code, "params": n.params, "text": render_note(n)} for n in stats.notes]
    return new, info


def print_dataset_file(info: dict[str, Any], out: TextIO = sys.stdout) -> None:
    """What was counted, in a few lines, before the estimate."""
    from tuneplan.storage.dataset_file import FORMAT_NAMES

    c, s = info["counted"], LengthStats.model_validate({**info["stats"], "histogram": info["histogram"]})
    field = c["field"] + (f" ({c['column']})" if c["column"] and c["column"] not in c["field"] else "")
    print(f"Dataset file {terminal_safe(c['file'])} ({FORMAT_NAMES.get(c['format'], c['format'])}, {field}; "
          f"tokenizer {terminal_safe(c['tokenizer'])}{', chat template' if c['chat_template'] else ''}):", file=out)
    print(f"  rows {c['rows']:,}, counted {c['counted']:,}" + (" (sampled)" if c["counted"] < c["rows"] else "")
          + f", broken {c['broken']:,}", file=out)
    print(f"  tokens per example: mean {s.mean_tokens:,.1f}, p50 {s.p50_tokens:,}, p95 {s.p95_tokens:,}, "
          f"max {s.max_tokens:,}; truncated at {s.seq_len:,}: {s.truncated_share:.1%}", file=out)
    print(f"  padding waste (dynamic, micro-batch {s.micro_batch}): {s.padding_waste:.1%}; packing efficiency "
          f"{s.packing_efficiency:.1%}; longest batch {s.longest_batch_tokens:,} tokens", file=out)
    for note in [*c["notes"], *info["stats"]["notes"]]:
        print(f"  note: {terminal_safe(note['text'])}", file=out)
    shown = ", ".join(f"{k.split('.', 1)[1]} = {v if v is not None else 'none'}" for k, v in info["set"].items())
    print(f"  set: {shown}" + (f" (kept from flags: {', '.join(info['kept_by_flags'])})"
                                if info["kept_by_flags"] else ""), file=out)
    print(file=out)
