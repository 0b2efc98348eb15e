"""Import a training command line (issue #17): ``accelerate launch``, ``torchrun``, ``deepspeed``, ``python``,
``trl``, ``swift``, ``tune run`` and ``llamafactory-cli``, as people keep them in ``train.sh``.

:func:`map_training_command` reads the text (nothing is run: the words are only read), takes the launcher's
GPU count and distributed settings and the script's ``--key value`` arguments, and maps the arguments with the
format they belong to (:func:`~tuneplan.core.training_config.map_training_config`): Hugging Face
``TrainingArguments`` for a script or ``trl``, ms-swift's for ``swift``, torchtune's ``key=value`` overrides for
``tune run``, LLaMA-Factory's for ``llamafactory-cli``. The result is one :class:`ConfigImport` whose items say what
the launcher set (``launcher.*`` keys) and what the arguments set; a launcher's GPU count replaces the arguments'
"no GPU count" item.

Sources: accelerate ``commands/launch.py`` (``--num_processes`` is every process of the run, ``--num_machines``,
``--mixed_precision``, ``--use_fsdp``/``--use_deepspeed``/``--multi_gpu``, ``--zero_stage``, ``--offload_*_device``,
``--fsdp_*``), torch ``distributed/run.py`` (``--nproc-per-node``/``--nproc_per_node`` x ``--nnodes``),
DeepSpeed ``launcher/runner.py`` (``--num_gpus``, ``--num_nodes``, ``--include``), ms-swift ``swift/cli`` (the
``NPROC_PER_NODE``/``NNODES`` environment variables start torchrun; without them ``CUDA_VISIBLE_DEVICES`` GPUs hold
one model split by ``device_map``), torchtune ``tune run [--nproc_per_node N] RECIPE --config CONFIG [k=v ...]``,
LLaMA-Factory ``llamafactory-cli train FILE [k=v ...]`` (``FORCE_TORCHRUN``, ``NNODES``, ``NPROC_PER_NODE``; without
``FORCE_TORCHRUN`` it starts torchrun by itself when more than one GPU is visible).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from tuneplan.core.terms import N_, NOTES, Note
from tuneplan.core.training_config import (
    ConfigImport,
    ImportItem,
    TrainingConfigError,
    detect_format,
    map_training_config,
)

__all__ = ["LAUNCHERS", "looks_like_command", "map_training_command"]

NOTES.update({
    "command.gpus": N_("{key} = {value}: {field} set to {setting}"),
    "command.config_file": N_("{key} = {value}: import that file too for its settings"),
    "command.builtin_config": N_("{key} = {value}: a config shipped with {framework}; copy it (tune cp {value} .) "
                                 "and import the copy for its settings"),
    "command.data_parallel": N_("{n} processes and no sharding named: {field} set to {setting} (a copy of the "
                                "model on every GPU)"),
    "command.ignored": N_("{key}: does not change memory or time"),
    "command.not_training": N_("the command does not start a training run Tuneplan reads ({program})"),
    "command.empty": N_("no command in the file"),
    "command.syntax": N_("the command line cannot be read: {problem}"),
})

#: The programs a training command starts with (after ``VAR=value`` words, ``nohup``, ``python -m``).
LAUNCHERS = ("accelerate", "torchrun", "deepspeed", "python", "python3", "trl", "swift", "tune", "llamafactory-cli",
             "lmf", "axolotl")
#: accelerate launch's flags that take no value (the rest take one).
_ACCELERATE_FLAGS = {"--multi_gpu", "--use_fsdp", "--use_deepspeed", "--use_megatron_lm", "--cpu", "--tpu",
                     "--no_python", "--module", "-m", "--quiet", "-q", "--debug", "--same_network", "--use_xpu",
                     "--mps", "--enable_cpu_affinity"}
#: torchrun's flags without a value.
_TORCHRUN_FLAGS = {"--standalone", "--no-python", "--no_python", "--module", "-m", "--run-path", "--run_path"}
#: deepspeed's flags without a value.
_DEEPSPEED_FLAGS = {"--no_python", "--module", "--no_local_rank", "--autotuning", "--force_multi", "--save_pid",
                    "--enable_each_rank_log", "--bind_cores_to_rank", "--no_ssh_check", "--elastic_training"}
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Environment variables that decide how many GPUs a command uses (the rest are ignored).
_GPU_ENV = ("CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE", "NNODES", "FORCE_TORCHRUN", "WORLD_SIZE")


def _logical_lines(text: str) -> list[str]:
    """The text's commands: ``\\``-continued lines joined, comments and blank lines dropped, ``&&``/``;`` kept."""
    joined = re.sub(r"\\\r?\n", " ", text)
    out = []
    for line in joined.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            out.append(stripped)
    return out


def _words(line: str) -> list[str]:
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return list(lexer)
    except ValueError as exc:  # an unclosed quote
        raise TrainingConfigError("command.syntax", problem=str(exc)) from None


def _program(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """Leading ``VAR=value`` words, and the words from the program on (``nohup``, ``exec``, ``uv run`` skipped)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w == "export" and i + 1 < len(words) and _ENV.match(words[i + 1]):
            i += 1
            continue
        if _ENV.match(w):
            name, _, value = w.partition("=")
            env[name] = value
            i += 1
            continue
        if w in {"nohup", "exec", "time", "env", "srun"}:
            i += 1
            continue
        if w == "uv" and i + 1 < len(words) and words[i + 1] == "run":
            i += 2
            continue
        break
    return env, words[i:]


def _split_commands(words: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if w in {";", "&&", "||", "|", "&"}:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def looks_like_command(text: str) -> bool:
    """Whether ``text`` holds a training command line (its first command starts with one of :data:`LAUNCHERS`)."""
    try:
        return _find(text)[1] is not None
    except TrainingConfigError:
        return False


def _find(text: str) -> tuple[dict[str, str], list[str] | None]:
    """The environment the file exports and the first training command (None when there is none)."""
    env: dict[str, str] = {}
    for line in _logical_lines(text):
        for command in _split_commands(_words(line)):
            local, rest = _program(command)
            env.update(local)
            if rest and rest[0].rsplit("/", 1)[-1] in LAUNCHERS:
                return env, rest
    return env, None


def _value(text: str) -> Any:
    """A command-line value as YAML would read it: ``true``/``false``, whole numbers, numbers, else the text."""
    low = text.lower()
    if low in {"true", "false"}:
        return low == "true"
    if low in {"none", "null"}:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text) if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text) else text
    except ValueError:
        return text


def _script_arguments(words: list[str]) -> dict[str, Any]:
    """``--key value``, ``--key=value``, ``--flag`` (True) and ``--key a b c`` (a list), as HfArgumentParser reads
    them."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if not w.startswith("--") or w == "--":
            i += 1
            continue
        key, eq, val = w[2:].partition("=")
        key = key.replace("-", "_")
        if eq:
            out[key] = _value(val)
            i += 1
            continue
        values = []
        j = i + 1
        while j < len(words) and not (words[j].startswith("--") and len(words[j]) > 2):
            values.append(words[j])
            j += 1
        out[key] = True if not values else _value(values[0]) if len(values) == 1 else [_value(v) for v in values]
        i = j
    return out


def _launcher_options(words: list[str], flags: set[str]) -> tuple[dict[str, str], list[str]]:
    """A launcher's ``--option value`` words up to its script (the first word that is no option), and the words
    from the script on."""
    opts: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if not w.startswith("-"):
            break
        key, eq, val = w.partition("=")
        norm = "--" + key.lstrip("-").replace("-", "_")
        if eq:
            opts[norm] = val
            i += 1
        elif w in flags or norm in {f.replace("-", "_") for f in flags}:
            opts[norm] = "true"
            i += 1
            if norm in {"--module", "--m"} or w == "-m":  # -m MODULE: the script is a module
                break
        else:
            opts[norm] = words[i + 1] if i + 1 < len(words) else ""
            i += 2
    return opts, words[i:]


class _Launch:
    """What the launcher says: items (``launcher.*``) and plan updates, the GPU count among them."""

    def __init__(self) -> None:
        self.updates: dict[str, Any] = {}
        self.items: list[ImportItem] = []

    def take(self, key: str, value: Any, path: str, setting: Any) -> None:
        self.updates[path] = setting
        self.items.append(ImportItem(status="taken", key=key, fields=(path,), note=Note(
            code="command.gpus", params={"key": key, "value": str(value), "field": path, "setting": setting})))

    def ignore(self, key: str) -> None:
        self.items.append(ImportItem(status="ignored", key=key, note=Note(code="command.ignored", params={"key": key})))

    def unsupported(self, key: str, value: Any, code: str, **params: Any) -> None:
        self.items.append(ImportItem(status="unsupported", key=key, note=Note(
            code=code, params={"key": key, "value": str(value), **params})))


def _count(key: str, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise TrainingConfigError("config.not_integer", key=key, value=value[:40]) from None
    if not 1 <= n <= 4096:
        raise TrainingConfigError("config.out_of_range", key=key, value=value, field="training.num_gpus")
    return n


def _visible(value: str) -> int:
    return len([d for d in value.split(",") if d.strip()])


def _accelerate_launch(opts: dict[str, str], launch: _Launch) -> dict[str, Any]:
    """accelerate launch's options as an accelerate config (``_accelerate`` maps it)."""
    cfg: dict[str, Any] = {}
    ds: dict[str, Any] = {}
    fsdp: dict[str, Any] = {}
    for key, value in opts.items():
        name = key.removeprefix("--")
        if name == "num_processes":
            cfg["num_processes"] = _value(value)
        elif name == "num_machines":
            cfg["num_machines"] = _value(value)
        elif name == "mixed_precision":
            cfg["mixed_precision"] = value
        elif name == "use_fsdp":
            cfg["distributed_type"] = "FSDP"
        elif name == "use_deepspeed":
            cfg["distributed_type"] = "DEEPSPEED"
        elif name == "multi_gpu":
            cfg.setdefault("distributed_type", "MULTI_GPU")
        elif name in {"zero_stage", "offload_optimizer_device", "offload_param_device", "gradient_accumulation_steps",
                      "zero3_init_flag"}:
            ds[name] = _value(value)
        elif name == "deepspeed_config_file":
            launch.unsupported(key, value, "command.config_file")
        elif name.startswith("fsdp_"):
            fsdp[name] = _value(value)
        elif name == "config_file":
            launch.unsupported(key, value, "command.config_file")
        else:
            launch.ignore(key)
    if ds:
        cfg["deepspeed_config"] = ds
        cfg.setdefault("distributed_type", "DEEPSPEED")
    if fsdp:
        cfg["fsdp_config"] = fsdp
        cfg.setdefault("distributed_type", "FSDP")
    return cfg


def _torchrun_gpus(opts: dict[str, str], launch: _Launch) -> None:
    per = next((opts[k] for k in ("--nproc_per_node",) if k in opts), None)
    nodes = opts.get("--nnodes")
    for key in opts:
        if key not in {"--nproc_per_node", "--nnodes"}:
            launch.ignore(key)
    if per is None or per in {"gpu", "auto"}:
        if per is not None:
            launch.unsupported("--nproc_per_node", per, "config.unknown_value")
        return
    n = _count("--nproc_per_node", per)
    if nodes is not None:
        if ":" in nodes:  # elastic min:max
            launch.unsupported("--nnodes", nodes, "config.unknown_value")
        else:
            n *= _count("--nnodes", nodes)
    launch.take("--nproc_per_node" + (" x --nnodes" if nodes and ":" not in nodes else ""),
                per if not nodes else f"{per} x {nodes}", "training.num_gpus", n)


def _deepspeed_gpus(opts: dict[str, str], launch: _Launch) -> None:
    n = None
    if "--num_gpus" in opts:
        n = _count("--num_gpus", opts["--num_gpus"])
        key, shown = "--num_gpus", opts["--num_gpus"]
    elif "--include" in opts and opts["--include"].count(":") == 1:
        devices = opts["--include"].split(":", 1)[1]
        n, key, shown = _visible(devices), "--include", opts["--include"]
    if n is not None and "--num_nodes" in opts:
        n *= _count("--num_nodes", opts["--num_nodes"])
    if n is not None:
        launch.take(key, shown, "training.num_gpus", n)
    for k in opts:
        if k not in {"--num_gpus", "--num_nodes", "--include"}:
            launch.ignore(k)


def _merge(launch: _Launch, *parts: ConfigImport, fmt: str) -> ConfigImport:
    """The launcher's items and updates, then each part's; a launched GPU count drops the parts' "no GPU count"."""
    updates: dict[str, Any] = {}
    items: list[ImportItem] = list(launch.items)
    has_gpus = "training.num_gpus" in launch.updates or any("training.num_gpus" in p.updates for p in parts)
    for p in parts:
        updates.update(p.updates)
        items += [i for i in p.items if not (has_gpus and i.note.code == "config.no_gpu_count")]
    updates.update(launch.updates)
    gpus = updates.get("training.num_gpus", 1)
    if gpus > 1 and "training.sharding" not in updates:
        # several processes and no sharding named: data parallel (DDP: accelerate's MULTI_GPU, torchrun, deepspeed)
        updates["training.sharding"] = "ddp"
        items.append(ImportItem(status="taken", key="num_gpus", fields=("training.sharding",), note=Note(
            code="command.data_parallel", params={"n": gpus, "field": "training.sharding", "setting": "ddp"})))
    if gpus == 1 and updates.get("training.sharding") == "ddp":
        updates["training.sharding"] = "none"
    return ConfigImport(format=fmt, updates=updates, items=tuple(items))


def _script(words: list[str], launch: _Launch) -> ConfigImport | None:
    """The script's arguments as a config: LLaMA-Factory's or ms-swift's when their keys say so (``torchrun
    src/train.py --finetuning_type lora ...``), else Hugging Face ``TrainingArguments`` (TRL's and most scripts'
    ``HfArgumentParser``). A config file named on the line (``-m axolotl.cli.train lora.yml``) gets an item."""
    if not words:
        return None
    for w in words[1:]:  # positional words before the first option: a config file the script reads
        if w.startswith("-"):
            break
        if w.endswith((".yaml", ".yml", ".json")):
            launch.unsupported("config file", w, "command.config_file")
    args = _script_arguments(words[1:])
    if not args:
        return None
    try:
        fmt = detect_format(args)
    except TrainingConfigError:
        fmt = "hf"
    return map_training_config(args, fmt if fmt in {"llamafactory", "swift"} else "hf")


def _overrides(words: list[str]) -> dict[str, Any]:
    """``key=value`` and ``key.sub=value`` words as a nested mapping (torchtune, LLaMA-Factory)."""
    out: dict[str, Any] = {}
    for w in words:
        key, eq, val = w.partition("=")
        if not eq or not key or key.startswith("-"):
            continue
        node = out
        parts = key.lstrip("~").split(".")
        for p in parts[:-1]:
            nxt = node.get(p)
            if not isinstance(nxt, dict):
                nxt = node[p] = {}
            node = nxt
        node[parts[-1]] = _value(val)
    return out


def map_training_command(text: str) -> ConfigImport:
    """Map the first training command in ``text`` onto the plan (see the module docstring).

    Raises:
        TrainingConfigError: ``command.empty`` (no command at all), ``command.not_training`` (a command, but none
            of :data:`LAUNCHERS`), ``command.syntax`` (an unclosed quote), or what the arguments' mapping raises.
    """
    env, words = _find(text)
    if words is None:
        lines = _logical_lines(text)
        if not lines:
            raise TrainingConfigError("command.empty")
        first = _program(_words(lines[0]))[1]
        raise TrainingConfigError("command.not_training", program=(first[0] if first else lines[0])[:60])
    launch = _Launch()
    for name in _GPU_ENV:
        if name in env and name not in {"CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE", "NNODES", "FORCE_TORCHRUN"}:
            launch.ignore(name)
    prog = words[0].rsplit("/", 1)[-1]
    rest = words[1:]
    if prog in {"python", "python3"}:
        if rest[:2] in (["-m", "torch.distributed.run"], ["-m", "torch.distributed.launch"]):
            prog, rest = "torchrun", rest[2:]
        elif rest[:2] == ["-m", "accelerate.commands.launch"]:
            prog, rest = "accelerate", ["launch", *rest[2:]]
        elif rest[:2] == ["-m", "deepspeed.launcher.runner"]:
            prog, rest = "deepspeed", rest[2:]
        elif rest[:1] == ["-m"] and len(rest) > 1:
            rest = rest[1:]  # python -m package.module ARGS
    if prog == "accelerate":
        if not rest or rest[0] != "launch":
            raise TrainingConfigError("command.not_training", program=" ".join(words[:2])[:60])
        opts, script = _launcher_options(rest[1:], _ACCELERATE_FLAGS)
        cfg = _accelerate_launch(opts, launch)
        parts = [map_training_config(cfg, "accelerate")] if cfg else []
        inner = _inner(script, env, launch)
        return _merge(launch, *parts, *([inner] if inner else []), fmt=inner.format if inner else "accelerate")
    if prog == "torchrun":
        opts, script = _launcher_options(rest, _TORCHRUN_FLAGS)
        _torchrun_gpus(opts, launch)
        inner = _inner(script, env, launch)
        return _merge(launch, *([inner] if inner else []), fmt=inner.format if inner else "hf")
    if prog == "deepspeed":
        opts, script = _launcher_options(rest, _DEEPSPEED_FLAGS)
        _deepspeed_gpus(opts, launch)
        inner = _inner(script, env, launch)
        return _merge(launch, *([inner] if inner else []), fmt=inner.format if inner else "hf")
    inner = _inner(words, env, launch)
    if inner is None:
        raise TrainingConfigError("command.not_training", program=" ".join(words[:2])[:60])
    return _merge(launch, inner, fmt=inner.format)


def _env_gpus(env: Mapping[str, str], launch: _Launch, *, split_without_torchrun: bool) -> None:
    """GPUs from ``NPROC_PER_NODE`` (x ``NNODES``) or, failing that, ``CUDA_VISIBLE_DEVICES``."""
    if "NPROC_PER_NODE" in env:
        n = _count("NPROC_PER_NODE", env["NPROC_PER_NODE"])
        if "NNODES" in env:
            n *= _count("NNODES", env["NNODES"])
        launch.take("NPROC_PER_NODE", env["NPROC_PER_NODE"], "training.num_gpus", n)
        if "CUDA_VISIBLE_DEVICES" in env:
            launch.ignore("CUDA_VISIBLE_DEVICES")
    elif "CUDA_VISIBLE_DEVICES" in env and _visible(env["CUDA_VISIBLE_DEVICES"]):
        n = _visible(env["CUDA_VISIBLE_DEVICES"])
        launch.take("CUDA_VISIBLE_DEVICES", env["CUDA_VISIBLE_DEVICES"], "training.num_gpus", n)
        if n > 1 and split_without_torchrun:
            # one process holding the model across the visible GPUs (device_map): the layers are split
            launch.updates["training.sharding"] = "none"


def _inner(words: list[str], env: Mapping[str, str], launch: _Launch) -> ConfigImport | None:
    """The launched program: a Python script or module (its arguments), ``trl``, ``swift``, ``tune run``,
    ``llamafactory-cli``."""
    if not words:
        return None
    prog = words[0].rsplit("/", 1)[-1]
    if prog in {"python", "python3"}:
        words = words[1:]
        if words[:1] == ["-m"]:
            words = words[1:]
        return _inner(words, env, launch)
    if prog == "trl" and len(words) > 1:
        args = _script_arguments(words[2:])
        result = map_training_config(args, "hf") if args else None
        workload = {"dpo": "dpo", "kto": "kto", "grpo": "grpo", "reward": "reward", "orpo": "orpo"}.get(words[1])
        if workload:
            launch.take(f"trl {words[1]}", words[1], "training.workload", workload)
        if "CUDA_VISIBLE_DEVICES" in env:
            launch.ignore("CUDA_VISIBLE_DEVICES")
        return result or ConfigImport(format="hf", updates={}, items=())
    if prog == "swift" and len(words) > 1:
        args = _script_arguments(words[2:])
        if isinstance(args.get("config"), str):
            launch.unsupported("--config", args.pop("config"), "command.config_file")
        for w in words[2:]:
            if w.startswith("--"):
                break
            if w.endswith((".yaml", ".yml", ".json")):  # swift sft sft.yaml (swift/cli/_base.py reads it)
                launch.unsupported("config file", w, "command.config_file")
        if words[1] == "rlhf" and "rlhf_type" not in args:
            args["rlhf_type"] = "dpo"  # swift/arguments/rlhf_args.py: rlhf_type defaults to dpo
        # swift/cli/main.py: NPROC_PER_NODE starts torchrun; else one process sees every visible GPU (device_map)
        _env_gpus(env, launch, split_without_torchrun=True)
        return map_training_config(args, "swift")
    if prog == "tune" and len(words) > 1 and words[1] == "run":
        opts, after = _launcher_options(words[2:], _TORCHRUN_FLAGS)
        recipe = after[0] if after else ""
        _torchrun_gpus(opts, launch)
        rest = after[1:]
        config = None
        for i, w in enumerate(rest):
            if w == "--config" and i + 1 < len(rest):
                config = rest[i + 1]
            elif w.startswith("--config="):
                config = w.split("=", 1)[1]
        data = _overrides([w for w in rest if not w.startswith("--") and w != config])
        if config is not None and not config.endswith((".yaml", ".yml")):
            launch.unsupported("--config", config, "command.builtin_config", framework="torchtune")
            # the shipped config's name says the method (llama3_1/8B_qlora_single_device, .../70B_lora)
            leaf = config.rsplit("/", 1)[-1].lower()
            method = "qlora" if "qlora" in leaf else "lora" if "lora" in leaf else "full" if "full" in leaf else None
            if method:
                launch.take("--config", config, "training.method", method)
        elif config is not None:
            launch.unsupported("--config", config, "command.config_file")
        if "distributed" in recipe:
            launch.updates.setdefault("training.sharding", "fsdp")  # torchtune's distributed recipes shard with FSDP
        if recipe:
            launch.ignore(f"recipe {recipe}")
        result = map_training_config(data, "torchtune")
        return ConfigImport(format="torchtune", updates={k: v for k, v in result.updates.items()
                                                         if k != "training.method" or "model" in data},
                            items=result.items)
    if prog in {"llamafactory-cli", "lmf"} and len(words) > 1:
        if words[1] != "train":
            raise TrainingConfigError("command.not_training", program=" ".join(words[:2])[:60])
        files = [w for w in words[2:] if w.endswith((".yaml", ".yml", ".json")) and "=" not in w]
        for f in files:
            launch.unsupported("config file", f, "command.config_file")
        if "FORCE_TORCHRUN" in env or "NPROC_PER_NODE" in env:
            _env_gpus(env, launch, split_without_torchrun=False)
        elif "CUDA_VISIBLE_DEVICES" in env:
            # llamafactory-cli starts torchrun by itself when more than one GPU is visible (cli.py)
            _env_gpus(env, launch, split_without_torchrun=False)
        data = _overrides(words[2:])
        return map_training_config(data, "llamafactory") if data else ConfigImport(
            format="llamafactory", updates={}, items=())
    if prog == "axolotl" and len(words) > 1:  # axolotl train CONFIG.yml (axolotl/cli/main.py)
        if words[1] != "train":
            raise TrainingConfigError("command.not_training", program=" ".join(words[:2])[:60])
        for w in words[2:]:
            if w.endswith((".yaml", ".yml")):
                launch.unsupported("config file", w, "command.config_file")
        args = _script_arguments(words[2:])
        return map_training_config(args, "axolotl") if args else ConfigImport(format="axolotl", updates={}, items=())
    # a script (train.py, sft.py, -m trl.scripts.sft ...): HF TrainingArguments-style flags
    if "CUDA_VISIBLE_DEVICES" in env and "training.num_gpus" not in launch.updates:
        launch.ignore("CUDA_VISIBLE_DEVICES")
    return _script(words, launch)
