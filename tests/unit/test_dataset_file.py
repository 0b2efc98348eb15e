"""Counting a dataset file's tokens (storage/dataset_file.py) on real files and a real tokenizer (issue #19).

The tokenizer (tests/tiny_tokenizer.py) has one token per word, so every count is written out by hand:
text gets ``<s>`` in front and ``</s>`` appended (``the cat sat on a mat`` -> 8); a chat message renders as
``<s>ROLE : CONTENT </s>``, 4 tokens plus the content's words.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

from tiny_tokenizer import write_jsonl, write_tiny_tokenizer
from tuneplan.storage import dataset_file as df
from tuneplan.storage.dataset_file import CountCancelled, DatasetFileError, count_dataset, find_tokenizer

HELLO_CHAT = [{"role": "user", "content": "hello world"}, {"role": "assistant", "content": "hi"}]
HELLO_TOKENS = (4 + 2) + (4 + 1)  # <s>user : hello world </s>  <s>assistant : hi </s>


@pytest.fixture
def tok(tmp_path: Path) -> Path:
    return write_tiny_tokenizer(tmp_path / "model")


def test_jsonl_chat_messages_through_the_template_with_broken_lines(tmp_path: Path, tok: Path) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", [
        {"messages": HELLO_CHAT},
        "not json",
        {"messages": [{"role": "user", "content": "the cat"}]},  # <s>user : the cat </s> = 6
        {"other": 1},  # no messages
        [1, 2],  # not an object
    ])
    c = count_dataset(path, tok)
    assert (c.format, c.field, c.column, c.chat_template) == ("jsonl", "messages", "messages", True)
    assert c.counts == (HELLO_TOKENS, 6)
    assert (c.rows, c.total, c.counted, c.broken) == (2, 5, 2, 3)
    broken = next(n for n in c.notes if n.code == "dataset.broken")
    assert broken.params["row"] == 2 and broken.params["unit"] == "line" and "JSON" in broken.params["reason"]
    assert broken.params["broken"] == 3 and broken.params["total"] == 5


def test_alpaca_json_list_as_user_and_assistant_messages(tmp_path: Path, tok: Path) -> None:
    path = tmp_path / "alpaca.json"
    path.write_text(json.dumps([
        {"instruction": "hello", "input": "world", "output": "hi"},  # user "hello\n\nworld", assistant "hi": 11
        {"instruction": "the cat", "input": "", "output": "sat on a mat", "system": "hi"},  # 5 + 6 + 8 = 19
    ]), encoding="utf-8")
    c = count_dataset(path, tok)
    assert c.field == "instruction-output" and c.counts == (11, 19)


def test_json_object_holding_one_list_and_jsonl_named_json(tmp_path: Path, tok: Path) -> None:
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"version": 1, "data": [{"text": "hello"}]}), encoding="utf-8")
    assert count_dataset(wrapped, tok).counts == (3,)  # <s> hello </s>
    lines = write_jsonl(tmp_path / "lines.json", [{"text": "hello"}, {"text": "the cat"}])
    assert count_dataset(lines, tok).counts == (3, 4)


def test_csv_prompt_completion_and_tsv_text(tmp_path: Path, tok: Path) -> None:
    csv_path = tmp_path / "pc.csv"
    csv_path.write_text('prompt,completion\n"the cat ","sat on a mat"\nhello,\n"a, mat",hi\nbroken\n', encoding="utf-8")
    c = count_dataset(csv_path, tok)
    # "the cat sat on a mat" -> 8; "hello" + "" -> 3; "a, mat" + "hi" -> <s> a, mathi </s>: "a," and "mathi" unknown, 4
    assert c.field == "prompt-completion" and c.counts == (8, 3, 4)
    assert c.broken == 1 and c.notes[0].params["row"] == 5
    tsv = tmp_path / "t.tsv"
    tsv.write_text("id\tbody\n1\thello world\n", encoding="utf-8")
    assert count_dataset(tsv, tok, field="body").counts == (4,)


def test_sharegpt_conversations_and_a_column_chosen_by_name(tmp_path: Path, tok: Path) -> None:
    path = write_jsonl(tmp_path / "sg.jsonl", [{"conversations": [{"from": "human", "value": "hello world"},
                                                                    {"from": "gpt", "value": "hi"}], "note": "the"}])
    assert count_dataset(path, tok).counts == (HELLO_TOKENS,)  # human -> user, gpt -> assistant
    assert count_dataset(path, tok, field="note").counts == (3,)


def test_without_a_chat_template_messages_count_role_and_content_tokens(tmp_path: Path) -> None:
    tok = write_tiny_tokenizer(tmp_path / "plain", chat_template=None)
    path = write_jsonl(tmp_path / "chat.jsonl", [{"messages": HELLO_CHAT}])
    c = count_dataset(path, tok)
    assert c.counts == (1 + 2 + 1 + 1,)  # user, hello world, assistant, hi: no markup, no constant added
    assert not c.chat_template and [n.code for n in c.notes] == ["dataset.no_chat_template"]


def test_without_jinja2_the_template_is_not_rendered(tmp_path: Path, tok: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jinja2", None)  # import jinja2 raises ImportError
    c = count_dataset(write_jsonl(tmp_path / "chat.jsonl", [{"messages": HELLO_CHAT}]), tok)
    assert c.counts == (5,) and [n.code for n in c.notes] == ["dataset.no_jinja2"]


def test_a_row_the_template_refuses_is_broken(tmp_path: Path) -> None:
    strict = ("{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('no system role') }}"
              "{% endif %}{{ m['content'] }} {% endfor %}")
    tok = write_tiny_tokenizer(tmp_path / "strict", chat_template=strict)
    path = write_jsonl(tmp_path / "chat.jsonl", [{"messages": [{"role": "system", "content": "hi"}]},
                                                  {"messages": [{"role": "user", "content": "hello world"}]}])
    c = count_dataset(path, tok)
    assert c.counts == (2,) and c.broken == 1
    assert "no system role" in c.notes[0].params["reason"]


def test_the_template_sandbox_refuses_python_internals(tmp_path: Path) -> None:
    evil = "{{ messages.__class__.__mro__[1].__subclasses__() }}"
    tok = write_tiny_tokenizer(tmp_path / "evil", chat_template=evil)
    c_err = None
    try:
        count_dataset(write_jsonl(tmp_path / "chat.jsonl", [{"messages": HELLO_CHAT}]), tok)
    except DatasetFileError as exc:
        c_err = exc
    assert c_err is not None and c_err.code == "dataset.all_broken" and "refused" in c_err.params["reason"]


def test_a_huge_line_is_broken_and_never_read_whole(tmp_path: Path, tok: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(df, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps({"text": "hello " * 5000}) + "\n" + json.dumps({"text": "hi"}) + "\n", encoding="utf-8")
    c = count_dataset(path, tok)
    assert c.counts == (3,) and c.broken == 1 and c.notes[0].params["row"] == 1
    assert "longer than" in c.notes[0].params["reason"]


def test_all_broken_empty_binary_and_missing_files_are_one_clear_error(tmp_path: Path, tok: Path) -> None:
    cases = {
        "dataset.all_broken": write_jsonl(tmp_path / "bad.jsonl", ["{oops", "nope"]),
        "dataset.empty": write_jsonl(tmp_path / "empty.jsonl", []),
        "dataset.binary": tmp_path / "blob.jsonl",
        "dataset.missing": tmp_path / "nowhere.jsonl",
        "dataset.unknown_format": tmp_path / "notes.txt",
        "dataset.no_field": write_jsonl(tmp_path / "odd.jsonl", [{"a": 1, "b": 2}]),
    }
    (tmp_path / "blob.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    for code, path in cases.items():
        with pytest.raises(DatasetFileError) as info:
            count_dataset(path, tok)
        assert info.value.code == code, path
        assert str(info.value).startswith(f"{path.name}: ") and "\n" not in str(info.value)
    with pytest.raises(DatasetFileError) as info:
        count_dataset(cases["dataset.no_field"], tok)
    assert info.value.params["columns"] == "a, b"
    with pytest.raises(DatasetFileError) as info:
        count_dataset(write_jsonl(tmp_path / "t.jsonl", [{"text": "hi"}]), tok, field="messages")
    assert info.value.code == "dataset.field_missing" and info.value.params["columns"] == "text"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, tok: Path) -> None:
    fifo = tmp_path / "data.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(DatasetFileError) as info:
        count_dataset(fifo, tok)
    assert info.value.code == "dataset.not_regular"


def test_a_json_document_over_the_limit_asks_for_jsonl(tmp_path: Path, tok: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(df, "MAX_JSON_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"text": "hello"}] * 20), encoding="utf-8")
    with pytest.raises(DatasetFileError) as info:
        count_dataset(path, tok)
    assert info.value.code == "dataset.json_too_large" and "JSONL" in str(info.value)


def test_beyond_the_sample_size_a_reproducible_uniform_sample(tmp_path: Path, tok: Path) -> None:
    # row i holds i+1 words "hello ...": i+3 tokens; 300 rows, 40 counted
    path = write_jsonl(tmp_path / "many.jsonl", [{"text": " ".join(["hello"] * (i + 1))} for i in range(300)])
    c = count_dataset(path, tok, sample_rows=40)
    assert (c.rows, c.counted, c.total) == (300, 40, 300)
    assert len(set(c.counts)) == 40 and all(3 <= n <= 302 for n in c.counts)
    assert max(c.counts) > 200  # reaches beyond the first rows: a sample of the whole file, not its head
    assert count_dataset(path, tok, sample_rows=40).counts == c.counts  # a fixed seed
    assert sorted(count_dataset(path, tok, sample_rows=300).counts) == list(range(3, 303))


def test_progress_reaches_the_end_and_cancel_stops(tmp_path: Path, tok: Path) -> None:
    path = write_jsonl(tmp_path / "many.jsonl", [{"text": "hello"}] * 2000)
    seen: list[tuple[float, int]] = []
    count_dataset(path, tok, progress=lambda f, rows: seen.append((f, rows)))
    assert seen[-1] == (1.0, 2000) and all(0.0 <= f <= 1.0 for f, _r in seen)
    stop = threading.Event()
    stop.set()
    with pytest.raises(CountCancelled):
        count_dataset(path, tok, cancel=stop)


def test_parquet_file(tmp_path: Path, tok: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "train.parquet"
    table = pa.table({"messages": [HELLO_CHAT, [{"role": "user", "content": "the cat"}]], "id": [1, 2]})
    pq.write_table(table, path)
    c = count_dataset(path, tok)
    assert (c.format, c.field, c.counts) == ("parquet", "messages", (HELLO_TOKENS, 6))


def test_datasets_save_to_disk_folder(tmp_path: Path, tok: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.ipc

    # the layout datasets' save_to_disk writes: a DatasetDict folder, one folder per split, Arrow IPC streams
    root = tmp_path / "saved"
    for split, texts in (("train", ["hello", "the cat sat"]), ("test", ["hi"])):
        folder = root / split
        folder.mkdir(parents=True)
        table = pa.table({"text": texts})
        with pyarrow.ipc.new_stream(str(folder / "data-00000-of-00001.arrow"), table.schema) as writer:
            writer.write_table(table)
        (folder / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    (root / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    c = count_dataset(root, tok)
    assert (c.format, c.counts) == ("hf-folder", (3, 5))  # the train split
    assert count_dataset(root / "test", tok).counts == (3,)


def test_parquet_without_pyarrow_says_so(tmp_path: Path, tok: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "train.parquet"
    path.write_bytes(b"PAR1" + b"\x00" * 16 + b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(DatasetFileError) as info:
        count_dataset(path, tok)
    assert info.value.code == "dataset.needs_pyarrow" and "pip install pyarrow" in str(info.value)


def test_tokenizer_from_the_hf_cache_offline_and_a_clear_message_when_missing(tmp_path: Path, tok: Path) -> None:
    commit = "a" * 40
    repo = tmp_path / "hub" / "models--org--tiny"
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (snap / name).write_bytes((tok / name).read_bytes())
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    found = find_tokenizer("org/tiny", cache_dir=tmp_path / "hub")
    assert found.tokenizer_json == snap / "tokenizer.json" and found.config == snap / "tokenizer_config.json"
    assert df.cached_tokenizers(tmp_path / "hub") == ["org/tiny"]
    assert count_dataset(write_jsonl(tmp_path / "d.jsonl", [{"text": "hello"}]), found).counts == (3,)
    with pytest.raises(DatasetFileError) as info:
        find_tokenizer("org/absent", cache_dir=tmp_path / "hub")
    assert info.value.code == "dataset.no_tokenizer" and "hf download org/absent" in str(info.value)
    with pytest.raises(DatasetFileError) as info:
        find_tokenizer(tmp_path / "hub")  # a folder without tokenizer.json
    assert info.value.code == "dataset.no_tokenizer"


def test_a_file_that_is_no_tokenizer(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": 1}', encoding="utf-8")
    with pytest.raises(DatasetFileError) as info:
        df.load_tokenizer(bad)
    assert info.value.code == "dataset.bad_tokenizer" and str(info.value).startswith("tokenizer.json: ")


def test_the_plan_models_tokenizer_id() -> None:
    assert df.model_tokenizer_ref("llama-3.1-8b", "Llama 3.1 8B") == "meta-llama/Llama-3.1-8B"
    assert df.model_tokenizer_ref("", "Qwen/Qwen2.5-0.5B") == "Qwen/Qwen2.5-0.5B"
    assert df.model_tokenizer_ref("", "My model") is None


def test_a_huge_record_in_a_json_array_is_a_broken_row_as_in_jsonl(tmp_path: Path, tok: Path) -> None:
    # the 16 MiB per-line limit of JSONL holds for a record of a JSON array too (attack review): 17 MiB of text in
    # one record is left out, the other record counted
    import json as _json

    from tuneplan.storage.dataset_file import MAX_LINE_BYTES

    path = tmp_path / "big.json"
    path.write_text(_json.dumps([{"text": "hello world"}, {"text": "x" * (MAX_LINE_BYTES + 2**20)}]), "utf-8")
    counted = count_dataset(path, tok)
    assert (counted.rows, counted.broken) == (1, 1)


def test_preference_pairs_count_as_their_longer_row(tmp_path: Path, tok: Path) -> None:
    """TRL's preference rows (prompt + chosen/rejected, as text or as messages) count as the longer of the two rows,
    the prompt included: DPO-style collators pad chosen and rejected to one length (new-user trial: a DPO user's
    own data could not be counted). Counts by hand with the tiny tokenizer (one token per word; text gets <s> and
    </s>; a message is "<s>ROLE : CONTENT </s>", 4 tokens + its words)."""
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        # "the cat sat on a mat": 1 + 6 + 1 = 8; "the cat sat": 1 + 3 + 1 = 5 -> 8
        {"prompt": "the cat ", "chosen": "sat on a mat", "rejected": "sat"},
        # chosen: user "hi" 5 + assistant "hello world" 6 = 11; rejected: 5 + 5 = 10 -> 11
        {"chosen": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello world"}],
         "rejected": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hi"}]},
        # prompt as messages: user "the cat" 6; chosen "sat" 5 -> 11; rejected "sat on a mat" 8 -> 14
        {"prompt": [{"role": "user", "content": "the cat"}], "chosen": [{"role": "assistant", "content": "sat"}],
         "rejected": [{"role": "assistant", "content": "sat on a mat"}]},
        {"prompt": "hi", "chosen": "hello"},  # no rejected: a broken row
    ])
    c = count_dataset(path, tok)
    assert c.field == "preference"
    assert c.counts == (8, 11, 14)
    assert (c.rows, c.broken) == (3, 1)
    # chosen explicitly: the same
    assert count_dataset(path, tok, field="preference").counts == (8, 11, 14)
