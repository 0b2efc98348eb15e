"""A local stand-in for the Hugging Face Hub (http.server in a thread) and real model files for it.

It answers what huggingface_hub 2.x asks (``huggingface_hub/file_download.py`` and ``hf_api.py``):

* ``HEAD`` / ``GET /<org>/<name>/resolve/<revision>/<file>``: ``X-Repo-Commit``, ``ETag`` and ``Content-Length``
  headers (``get_hf_file_metadata`` needs the first two, ``hf_hub_download`` refuses a file without them);
* ``GET`` with ``Range: bytes=a-b`` on a ``.safetensors`` file: ``206`` and those bytes
  (``parse_safetensors_file_metadata`` reads the first 100,000 bytes, then the rest of a longer header);
* errors as the Hub sends them: ``401`` + ``X-Error-Code: GatedRepo`` (gated), ``404`` + ``RepoNotFound`` /
  ``EntryNotFound`` / ``RevisionNotFound``, and a repository that answers after a delay (for timeouts).

The model values are published ones: EleutherAI/pythia-70m (``config.json`` on the Hub; tensor names and shapes of
its GPT-NeoX checkpoint) and Qwen/Qwen2.5-0.5B. Safetensors files are written with real bytes: an 8-byte
little-endian header length, the JSON header, then the tensor data (zeros; huggingface_hub reads headers only, so
the data region may be left out of the served file with ``header_only``).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import math
import struct
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

# https://huggingface.co/EleutherAI/pythia-70m/blob/main/config.json
PYTHIA_70M_CONFIG: dict[str, Any] = {
    "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
    "hidden_size": 512, "initializer_range": 0.02, "intermediate_size": 2048, "layer_norm_eps": 1e-05,
    "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 8, "num_hidden_layers": 6,
    "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": False, "torch_dtype": "float16",
    "transformers_version": "4.24.0", "use_cache": True, "use_parallel_residual": True, "vocab_size": 50304,
}

# https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json
QWEN25_05B_CONFIG: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
    "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
    "max_position_embeddings": 32768, "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14,
    "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.40.1",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}

# https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4/blob/main/config.json (quantization_config)
QWEN25_05B_GPTQ_CONFIG: dict[str, Any] = {
    **QWEN25_05B_CONFIG, "torch_dtype": "float16",
    "quantization_config": {"batch_size": 1, "bits": 4, "block_name_to_quantize": None, "cache_block_outputs": True,
                            "damp_percent": 0.01, "dataset": None, "desc_act": False, "exllama_config": {"version": 1},
                            "group_size": 128, "max_input_length": None, "model_seqlen": None,
                            "module_name_preceding_first_block": None, "modules_in_block_to_quantize": None,
                            "pad_token_id": None, "quant_method": "gptq", "sym": True, "tokenizer": None,
                            "true_sequential": True, "use_cuda_fp16": False, "use_exllama": True},
}

ELEMENT_BYTES = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "I8": 1, "U8": 1, "F8_E4M3": 1, "I64": 8}


def pythia_70m_tensors() -> list[tuple[str, str, list[int]]]:
    """The tensors of EleutherAI/pythia-70m's GPT-NeoX checkpoint (names as transformers saves them), FP16."""
    h, i, v = 512, 2048, 50304
    out = [("gpt_neox.embed_in.weight", "F16", [v, h])]
    for n in range(6):
        p = f"gpt_neox.layers.{n}."
        out += [(p + "input_layernorm.weight", "F16", [h]), (p + "input_layernorm.bias", "F16", [h]),
                (p + "post_attention_layernorm.weight", "F16", [h]), (p + "post_attention_layernorm.bias", "F16", [h]),
                (p + "attention.query_key_value.weight", "F16", [3 * h, h]),
                (p + "attention.query_key_value.bias", "F16", [3 * h]),
                (p + "attention.dense.weight", "F16", [h, h]), (p + "attention.dense.bias", "F16", [h]),
                (p + "mlp.dense_h_to_4h.weight", "F16", [i, h]), (p + "mlp.dense_h_to_4h.bias", "F16", [i]),
                (p + "mlp.dense_4h_to_h.weight", "F16", [h, i]), (p + "mlp.dense_4h_to_h.bias", "F16", [h])]
    out += [("gpt_neox.final_layer_norm.weight", "F16", [h]), ("gpt_neox.final_layer_norm.bias", "F16", [h]),
            ("embed_out.weight", "F16", [v, h])]
    return out


def _qwen_linears() -> list[tuple[str, int, int, bool]]:
    """(name, in, out, bias) of every layer matrix of Qwen2.5-0.5B."""
    h, i, kv = 896, 4864, 128
    out = []
    for n in range(24):
        p = f"model.layers.{n}."
        out += [(p + "self_attn.q_proj", h, h, True), (p + "self_attn.k_proj", h, kv, True),
                (p + "self_attn.v_proj", h, kv, True), (p + "self_attn.o_proj", h, h, False),
                (p + "mlp.gate_proj", h, i, False), (p + "mlp.up_proj", h, i, False), (p + "mlp.down_proj", i, h, False)]
    return out


def qwen25_05b_tensors(with_lm_head: bool = False) -> list[tuple[str, str, list[int]]]:
    """Qwen2.5-0.5B in BF16 (its LM head is tied: transformers saves no ``lm_head.weight`` unless asked)."""
    h, v = 896, 151936
    out = [("model.embed_tokens.weight", "BF16", [v, h])]
    for name, d_in, d_out, bias in _qwen_linears():
        out.append((name + ".weight", "BF16", [d_out, d_in]))
        if bias:
            out.append((name + ".bias", "BF16", [d_out]))
    for n in range(24):
        out += [(f"model.layers.{n}.input_layernorm.weight", "BF16", [h]),
                (f"model.layers.{n}.post_attention_layernorm.weight", "BF16", [h])]
    out.append(("model.norm.weight", "BF16", [h]))
    if with_lm_head:
        out.append(("lm_head.weight", "BF16", [v, h]))
    return out


def qwen25_05b_gptq_tensors() -> list[tuple[str, str, list[int]]]:
    """Qwen2.5-0.5B as AutoGPTQ / GPTQModel save it at 4 bits, group size 128 (``QuantLinear`` buffers):
    qweight int32 [in/8, out], qzeros int32 [in/128, out/8], scales fp16 [in/128, out], g_idx int32 [in]."""
    h, v = 896, 151936
    out = [("model.embed_tokens.weight", "F16", [v, h])]
    for name, d_in, d_out, bias in _qwen_linears():
        groups = d_in // 128
        out += [(name + ".qweight", "I32", [d_in // 8, d_out]), (name + ".qzeros", "I32", [groups, d_out // 8]),
                (name + ".scales", "F16", [groups, d_out]), (name + ".g_idx", "I32", [d_in])]
        if bias:
            out.append((name + ".bias", "F16", [d_out]))
    for n in range(24):
        out += [(f"model.layers.{n}.input_layernorm.weight", "F16", [h]),
                (f"model.layers.{n}.post_attention_layernorm.weight", "F16", [h])]
    out += [("model.norm.weight", "F16", [h]), ("lm_head.weight", "F16", [v, h])]
    return out


def safetensors_bytes(tensors: list[tuple[str, str, list[int]]], header_only: bool = False) -> bytes:
    """A safetensors file: ``<u64 LE header length><JSON header><tensor data>`` (data zeros, or left out)."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, dtype, shape in tensors:
        size = math.prod(shape) * ELEMENT_BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the format pads the header to 8 bytes with spaces
    body = b"" if header_only else bytes(offset)
    return struct.pack("<Q", len(raw)) + raw + body


def write_cache_repo(cache: Path, repo_id: str, files: dict[str, bytes], commit: str | None = None,
                     ref: str = "main") -> Path:
    """Lay out ``repo_id`` in an HF hub cache as huggingface_hub does: ``models--org--name/blobs/<etag>``,
    ``snapshots/<commit>/<file>`` symlinks to the blobs and ``refs/<ref>`` holding the commit. Returns the snapshot."""
    commit = commit or hashlib.sha1(repo_id.encode()).hexdigest()
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snap = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snap.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / ref).write_text(commit)
    for name, data in files.items():
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = snap / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(Path("../" * (1 + name.count("/")) + "../blobs") / blob.name)
    return snap


class FakeHub:
    """The server. ``repos[repo_id] = {"files": {name: bytes}, "commit": hex40, "gated": bool, "delay": s}``."""

    def __init__(self) -> None:
        self.repos: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, Range header)
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:  # noqa: N802
                self._answer(head=True)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(head=False)

            def _send(self, status: int, headers: dict[str, str], body: bytes, head: bool) -> None:
                self.send_response(status)
                for k, val in headers.items():
                    self.send_header(k, val)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def _answer(self, head: bool) -> None:
                path = unquote(self.path.split("?", 1)[0])
                hub.requests.append(("HEAD" if head else "GET", path, self.headers.get("Range")))
                parts = path.strip("/").split("/")
                if len(parts) < 5 or parts[2] != "resolve":
                    return self._send(404, {"X-Error-Code": "RepoNotFound"}, b'{"error":"not found"}', head)
                repo_id, revision, filename = "/".join(parts[:2]), parts[3], "/".join(parts[4:])
                repo = hub.repos.get(repo_id)
                if repo is None:
                    return self._send(404, {"X-Error-Code": "RepoNotFound"},
                                      b'{"error":"Repository not found"}', head)
                if repo.get("delay"):
                    time.sleep(repo["delay"])
                if repo.get("gated") and "authorization" not in {k.lower() for k in self.headers}:
                    return self._send(401, {"X-Error-Code": "GatedRepo", "X-Error-Message": "Access restricted"},
                                      b'{"error":"Access to model is restricted"}', head)
                commit = repo["commit"]
                if revision not in {"main", commit}:
                    return self._send(404, {"X-Error-Code": "RevisionNotFound"}, b'{"error":"Invalid rev"}', head)
                data = repo["files"].get(filename)
                if data is None:
                    return self._send(404, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit},
                                      b'{"error":"Entry not found"}', head)
                headers = {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                           "Accept-Ranges": "bytes"}
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes=") and not head:
                    start_s, _, end_s = rng[6:].partition("-")
                    start, end = int(start_s), min(int(end_s) if end_s else len(data) - 1, len(data) - 1)
                    headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
                    return self._send(206, headers, data[start:end + 1], head)
                return self._send(200, headers, data, head)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def add(self, repo_id: str, files: dict[str, bytes], **options: Any) -> str:
        """Serve ``files`` as ``repo_id``; returns its commit hash."""
        commit = options.pop("commit", hashlib.sha1(repo_id.encode()).hexdigest())
        self.repos[repo_id] = {"files": files, "commit": commit, **options}
        return commit

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
