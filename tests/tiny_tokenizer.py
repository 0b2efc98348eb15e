"""A real tokenizer small enough to count by hand: one token per space-separated word of :data:`WORDS`.

Built with the ``tokenizers`` library (a WordLevel model, split on whitespace) and saved as ``tokenizer.json``
with a ``tokenizer_config.json`` beside it, as a model folder holds them. Encoding with special tokens puts
``<s>`` first (``"the cat"`` -> ``<s> the cat``, 3 tokens); ``<s>`` and ``</s>`` are split out of running text.
"""

from __future__ import annotations

import json
from pathlib import Path

WORDS = ("[UNK] <s> </s> hello world the cat sat on a mat user assistant system : hi").split()

#: Each message as ``<s>ROLE : CONTENT </s> `` (whitespace split: 4 tokens + the content's words).
CHAT_TEMPLATE = "{% for m in messages %}<s>{{ m['role'] }} : {{ m['content'] }} </s> {% endfor %}"


def write_tiny_tokenizer(folder: Path, *, chat_template: str | None = CHAT_TEMPLATE) -> Path:
    """``folder`` with ``tokenizer.json`` and ``tokenizer_config.json`` (EOS ``</s>``; the chat template unless None)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(["<s>", "</s>"])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    tok.enable_truncation(4)  # a saved truncation setting must not cap the counts
    tok.save(str(folder / "tokenizer.json"))
    config: dict[str, object] = {"bos_token": "<s>", "eos_token": {"content": "</s>"}}
    if chat_template is not None:
        config["chat_template"] = chat_template
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def write_jsonl(path: Path, rows: list[object]) -> Path:
    """One JSON document per line (a str row is written as it is: a broken line)."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path
