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

import math
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
    map_torchtune_overrides,
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
    "command.too_long": N_("a command line longer than {limit} characters"),
    "command.several": N_("the file starts {n} training runs: the first ({program}) is read"),
    "command.shell_value": N_("{key} = {value}: computed by the shell when it runs; the plan keeps its setting"),
    "command.all_gpus": N_("{key} = {value}: every GPU of the machine; set the GPU count in the plan"),
})

#: The programs a training command starts with (after ``VAR=value`` words, ``nohup``, ``python -m``).
LAUNCHERS = ("accelerate", "torchrun", "deepspeed", "python", "python3", "trl", "swift", "tune", "llamafactory-cli",
             "lmf", "axolotl")
#: accelerate launch's flags that take no value (the rest take one).
_ACCELERATE_FLAGS = {"--multi_gpu", "--use_fsdp", "--use_deepspeed", "--use_megatron_lm", "--cpu", "--tpu",
                     "--no_python", "--module", "-m", "--quiet", "-q", "--debug", "--same_network", "--use_xpu",
                     "--mps", "--enable_cpu_affinity", "--downcast_bf16", "--dynamo_use_fullgraph",
                     "--dynamo_use_dynamic", "--tpu_use_cluster", "--tpu_use_sudo", "--use_parallelism_config",
                     "--dynamo_use_regional_compilation"}
#: torchrun's flags without a value (torch/distributed/run.py ``get_args_parser``).
_TORCHRUN_FLAGS = {"--standalone", "--no-python", "--no_python", "--module", "-m", "--run-path", "--run_path",
                   "--use-env", "--use_env", "--virtual-local-rank", "--virtual_local_rank"}
#: deepspeed's flags without a value (deepspeed/launcher/runner.py ``parse_args``; ``--autotuning`` takes one).
_DEEPSPEED_FLAGS = {"--no_python", "--module", "--no_local_rank", "--force_multi", "--save_pid", "--no_ssh",
                    "--enable_each_rank_log", "--bind_cores_to_rank", "--no_ssh_check", "--elastic_training"}
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Environment variables that decide how many GPUs a command uses (the rest are ignored).
_GPU_ENV = ("CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE", "NNODES", "FORCE_TORCHRUN", "WORLD_SIZE")
#: The longest command line read (characters): Python's shlex grows a word one character at a time, so a
#: megabyte-long word would take tens of seconds to read.
MAX_LINE_CHARS = 65_536
#: A line worth reading as words: it names a launcher, or sets a shell variable.
_CANDIDATE = re.compile(r"(?:^|[\s/;&|=(])(?:accelerate|torchrun|deepspeed|python[0-9.]*|trl|swift|tune|"
                        r"llamafactory-cli|lmf|axolotl)(?:\s|$)|^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=")
#: Shell redirections (``> log.txt``, ``2>&1``, ``&> all.log``, ``< in``): dropped before the words are read.
_REDIRECT = re.compile(r"(?:^|(?<=\s))(?:\d*|&)(?:>>|>|<)(?:&\d+|\s*[^\s;&|<>]+)")
#: What the shell computes when it runs (``$(nvidia-smi -L | wc -l)``, backticks): unknown until then.
_SUBST = re.compile(r"\$\([^()]*\)|`[^`]*`")
SHELL_VALUE = "$(...)"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?")
_PYTHON = re.compile(r"^python[0-9.]*$")


def _logical_lines(text: str) -> list[str]:
    """The text's commands: ``\\``-continued lines joined, comments, blank lines and heredoc bodies dropped."""
    joined = re.sub(r"\\\r?\n", " ", text)
    out = []
    until: str | None = None
    for line in joined.splitlines():
        stripped = line.strip()
        if until is not None:  # inside a heredoc: its body is data for a command, not commands
            if stripped == until:
                until = None
            continue
        if stripped and not stripped.startswith("#"):
            out.append(stripped)
            here = _HEREDOC.search(stripped)
            if here:
                until = here.group(1)
    return out


def _words(line: str) -> list[str]:
    if len(line) > MAX_LINE_CHARS:
        raise TrainingConfigError("command.too_long", limit=MAX_LINE_CHARS)
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return list(lexer)
    except ValueError as exc:  # an unclosed quote
        raise TrainingConfigError("command.syntax", problem=str(exc)) from None


def _program(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """Leading ``VAR=value`` words, and the words from the program on (``nohup``, ``exec``, ``env``, ``uv run``
    skipped)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i]
        base = w.rsplit("/", 1)[-1]
        if w == "export" and i + 1 < len(words) and _ENV.match(words[i + 1]):
            i += 1
            continue
        if _ENV.match(w):
            name, _, value = w.partition("=")
            env[name] = value
            i += 1
            continue
        if base in {"nohup", "exec", "time", "env", "srun", "sudo"}:
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
        if w in {";", "&&", "||", "|", "&", ";;"}:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def _prog(words: list[str]) -> str:
    name = words[0].rsplit("/", 1)[-1]
    return "python" if _PYTHON.match(name) else name


#: Subcommands that train, per launcher; a launcher word with another subcommand (``tune download``, ``accelerate
#: config``, ``llamafactory-cli env``, ``axolotl preprocess``) does not start a run.
_TRAINING_SUBCOMMANDS = {"accelerate": {"launch"}, "tune": {"run"}, "llamafactory-cli": {"train"},
                         "lmf": {"train"}, "axolotl": {"train"}, "swift": {"sft", "pt", "rlhf"},
                         "trl": {"sft", "dpo", "grpo", "kto", "reward", "orpo"}}


def _training_rank(words: list[str]) -> int:
    """2: a launcher that starts training (``accelerate launch``, ``torchrun``, ``swift sft`` ...); 1: a Python script
    with ``--`` options (``python train.py --per_device_train_batch_size 4``); 0: anything else (``pip install``,
    ``setup.py``, ``tune download``)."""
    prog = _prog(words)
    if prog in {"torchrun", "deepspeed"}:
        return 2
    if prog in _TRAINING_SUBCOMMANDS:
        return 2 if len(words) > 1 and words[1] in _TRAINING_SUBCOMMANDS[prog] else 0
    if prog == "python":
        rest = words[1:]
        if rest[:2] in (["-m", "torch.distributed.run"], ["-m", "torch.distributed.launch"],
                        ["-m", "accelerate.commands.launch"], ["-m", "deepspeed.launcher.runner"]):
            return 2
        if rest[:1] == ["-m"] and len(rest) > 1 and rest[1].split(".")[0] in {"pip", "venv", "ensurepip"}:
            return 0
        script = next((w for w in rest if not w.startswith("-")), "")
        if script.endswith("setup.py") or not any(w.startswith("--") for w in rest):
            return 0
        return 1
    return 0


def _assignments(line: str, known: dict[str, str]) -> None:
    """``VAR=value`` and ``export VAR=value`` lines (the value without ``$``): kept to fill ``$VAR`` later."""
    m = re.fullmatch(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)", line)
    if m and "$" not in m.group(2) and "`" not in m.group(2):
        known[m.group(1)] = m.group(2).strip("'\"")


def _prepare(line: str, known: dict[str, str]) -> str:
    """A line ready to be read as words: computed values marked unknown, known variables filled in, redirections
    dropped."""
    line = _SUBST.sub(lambda _m: SHELL_VALUE, line)
    line = _VAR.sub(lambda m: known.get(m.group(1) or m.group(2), m.group(0)), line)
    return _REDIRECT.sub(" ", line)


def _commands(text: str) -> tuple[dict[str, str], list[list[str]]]:
    """The environment the file sets and its commands that may train, in order, as ``(rank, words)``-sortable
    lists (the launcher's words, after ``VAR=value`` and ``nohup``)."""
    env: dict[str, str] = {}
    known: dict[str, str] = {}
    found: list[list[str]] = []
    for line in _logical_lines(text):
        if not _CANDIDATE.search(line):
            continue
        _assignments(line, known)
        for command in _split_commands(_words(_prepare(line, known))):
            local, rest = _program(command)
            env.update(local)
            if rest and _training_rank(rest) > 0:
                found.append(rest)
    return env, found


def looks_like_command(text: str) -> bool:
    """Whether ``text`` holds a command that starts training (:func:`_training_rank`: a launcher, or a Python script
    with options)."""
    try:
        return bool(_commands(text)[1])
    except TrainingConfigError:
        return False


def _find(text: str) -> tuple[dict[str, str], list[str] | None, int]:
    """The environment the file sets, the training command read (the first launcher, else the first Python script
    with options; None when there is none) and how many launchers start training."""
    env, found = _commands(text)
    launchers = [c for c in found if _training_rank(c) == 2]
    chosen = launchers[0] if launchers else (found[0] if found else None)
    return env, chosen, len(launchers)


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
        number = float(text) if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text) else None
    except ValueError:
        return text
    return number if number is not None and math.isfinite(number) else text


def _script_arguments(words: list[str], launch: _Launch | None = None) -> dict[str, Any]:
    """``--key value``, ``--key=value``, ``--flag`` (True) and ``--key a b c`` (a list), as HfArgumentParser reads
    them. A value the shell computes (``$VAR`` it does not set, ``$(...)``) is left out, with an item on ``launch``."""
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
            values = [val]
            j = i + 1
        else:
            values = []
            j = i + 1
            while j < len(words) and not (words[j].startswith("--") and len(words[j]) > 2):
                values.append(words[j])
                j += 1
        i = j
        if any("$" in v or "`" in v for v in values):
            if launch is not None:
                launch.unsupported(f"--{key}", " ".join(values)[:60], "command.shell_value")
            continue
        out[key] = True if not values else _value(values[0]) if len(values) == 1 else [_value(v) for v in values]
    return out


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


def _count(key: str, value: str, launch: _Launch) -> int | None:
    """A GPU or node count from the command line; None (with an item) for one the shell computes or ``-1`` (every GPU).

    Raises:
        TrainingConfigError: not a whole number, or outside 1..4096.
    """
    if "$" in value or "`" in value:
        launch.unsupported(key, value[:60], "command.shell_value")
        return None
    if value.strip() == "-1":
        launch.unsupported(key, value, "command.all_gpus")
        return None
    try:
        n = int(value)
    except ValueError:
        raise TrainingConfigError("config.not_integer", key=key, value=value[:40]) from None
    if not 1 <= n <= 4096:
        raise TrainingConfigError("config.out_of_range", key=key, value=value, field="training.num_gpus")
    return n


def _total(key: str, shown: str, n: int) -> int:
    """A GPU count that multiplies per-node GPUs by nodes, within the plan's 4096.

    Raises:
        TrainingConfigError: more than 4096 GPUs.
    """
    if n > 4096:
        raise TrainingConfigError("config.out_of_range", key=key, value=shown, field="training.num_gpus")
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
    per = opts.get("--nproc_per_node")
    nodes = opts.get("--nnodes")
    for key in opts:
        if key not in {"--nproc_per_node", "--nnodes"}:
            launch.ignore(key)
    if per is None or per in {"gpu", "auto"}:
        if per is not None:
            launch.unsupported("--nproc_per_node", per, "command.all_gpus")
        return
    n = _count("--nproc_per_node", per, launch)
    if n is None:
        return
    key, shown = "--nproc_per_node", per
    if nodes is not None:
        if ":" in nodes:  # elastic min:max
            launch.unsupported("--nnodes", nodes, "config.unknown_value")
        else:
            m = _count("--nnodes", nodes, launch)
            if m is None:
                return
            key, shown = "--nproc_per_node x --nnodes", f"{per} x {nodes}"
            n = _total(key, shown, n * m)
    launch.take(key, shown, "training.num_gpus", n)


def _deepspeed_gpus(opts: dict[str, str], launch: _Launch) -> None:
    """deepspeed's ``--num_gpus``/``--num_accelerators`` (x ``--num_nodes``) or ``--include host:0,1`` (``-i``)."""
    n = None
    key = next((k for k in ("--num_gpus", "--num_accelerators") if k in opts), None)
    include = opts.get("--include", opts.get("--i"))
    shown = ""
    if key is not None:
        shown = opts[key]
        n = _count(key, shown, launch)
    elif include is not None:
        key, shown = "--include", include
        if "@" in include or include.count(":") != 1:  # several hosts: host:0,1@host2:0,1
            launch.unsupported(key, include, "config.unknown_value")
        else:
            n = _visible(include.split(":", 1)[1])
    if n is not None and "--num_nodes" in opts:
        m = _count("--num_nodes", opts["--num_nodes"], launch)
        if m is not None:
            key, shown = f"{key} x --num_nodes", f"{shown} x {opts['--num_nodes']}"
            n = _total(key, shown, n * m)
    if n is not None and key is not None:
        launch.take(key, shown, "training.num_gpus", n)
    for k in opts:
        if k not in {"--num_gpus", "--num_accelerators", "--num_nodes", "--include", "--i"}:
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
    args = _script_arguments(words[1:], launch)
    if not args:
        return None
    try:
        fmt = detect_format(args)
    except TrainingConfigError:
        fmt = "hf"
    return map_training_config(args, fmt if fmt in {"llamafactory", "swift"} else "hf")


#: The deepest ``a.b.c=value`` override read.
MAX_OVERRIDE_DEPTH = 32


def _overrides(words: list[str]) -> dict[str, Any]:
    """``key=value`` and ``key.sub=value`` words as a nested mapping (torchtune, LLaMA-Factory)."""
    out: dict[str, Any] = {}
    for w in words:
        key, eq, val = w.partition("=")
        if not eq or not key or key.startswith("-"):
            continue
        node = out
        parts = key.lstrip("~").split(".")
        if len(parts) > MAX_OVERRIDE_DEPTH:  # as deep as a YAML file may nest (storage.training_config.MAX_DEPTH)
            raise TrainingConfigError("config.too_deep", depth=MAX_OVERRIDE_DEPTH)
        if "$" in val or "`" in val:
            continue  # computed by the shell: left to the plan
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
    env, words, launchers = _find(text)
    if words is None:
        lines = _logical_lines(text)
        if not lines:
            raise TrainingConfigError("command.empty")
        first = _program(_words(_prepare(lines[0][:MAX_LINE_CHARS], {})))[1]
        raise TrainingConfigError("command.not_training", program=(first[0] if first else lines[0])[:60])
    launch = _Launch()
    if launchers > 1:
        launch.items.append(ImportItem(status="ignored", key="commands", note=Note(
            code="command.several", params={"n": launchers, "program": " ".join(words[:2])[:60]})))
    for name in _GPU_ENV:
        if name in env and name not in {"CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE", "NNODES", "FORCE_TORCHRUN"}:
            launch.ignore(name)
    prog = _prog(words)
    rest = words[1:]
    if prog == "python":
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
        n = _count("NPROC_PER_NODE", env["NPROC_PER_NODE"], launch)
        if n is not None and "NNODES" in env:
            m = _count("NNODES", env["NNODES"], launch)
            n = None if m is None else _total("NPROC_PER_NODE x NNODES", f"{n} x {m}", n * m)
        if n is not None:
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
    prog = _prog(words)
    if prog == "python":
        words = words[1:]
        if words[:1] == ["-m"]:
            words = words[1:]
        return _inner(words, env, launch)
    if prog == "trl" and len(words) > 1:
        args = _script_arguments(words[2:], launch)
        result = map_training_config(args, "hf") if args else None
        workload = {"dpo": "dpo", "kto": "kto", "grpo": "grpo", "reward": "reward", "orpo": "orpo"}.get(words[1])
        if workload:
            launch.take(f"trl {words[1]}", words[1], "training.workload", workload)
        if "CUDA_VISIBLE_DEVICES" in env:
            launch.ignore("CUDA_VISIBLE_DEVICES")
        return result or ConfigImport(format="hf", updates={}, items=())
    if prog == "swift" and len(words) > 1:
        args = _script_arguments(words[2:], launch)
        if isinstance(args.get("config"), str):
            launch.unsupported("--config", args.pop("config"), "command.config_file")
        for w in words[2:]:
            if w.startswith("--"):
                break
            if w.endswith((".yaml", ".yml", ".json")):  # swift sft sft.yaml (swift/cli/_base.py reads it)
                launch.unsupported("config file", w, "command.config_file")
        if words[1] == "pt":  # swift/cli/main.py: pt runs the SFT pipeline on plain text (continued pretraining)
            launch.take("swift pt", "pt", "training.workload", "pt")
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
        method = None
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
        if "dpo" in recipe:  # lora_dpo_single_device, full_dpo_distributed (recipes/*dpo*.py)
            launch.take("recipe", recipe, "training.workload", "dpo")
        elif "ppo" in recipe:
            launch.unsupported("recipe", recipe, "config.unknown_value")
        elif recipe:
            launch.ignore(f"recipe {recipe}")
        return map_torchtune_overrides(data, method)
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
        # llamafactory-cli train FILE key=value ..., or its arguments as --key value without a file
        data = {**_script_arguments(words[2:], launch), **_overrides(words[2:])}
        return map_training_config(data, "llamafactory") if data else ConfigImport(
            format="llamafactory", updates={}, items=())
    if prog == "axolotl" and len(words) > 1:  # axolotl train CONFIG.yml (axolotl/cli/main.py)
        if words[1] != "train":
            raise TrainingConfigError("command.not_training", program=" ".join(words[:2])[:60])
        for w in words[2:]:
            if w.endswith((".yaml", ".yml")):
                launch.unsupported("config file", w, "command.config_file")
        args = _script_arguments(words[2:], launch)
        return map_training_config(args, "axolotl") if args else ConfigImport(format="axolotl", updates={}, items=())
    # a script (train.py, sft.py, -m trl.scripts.sft ...): HF TrainingArguments-style flags
    if "CUDA_VISIBLE_DEVICES" in env and "training.num_gpus" not in launch.updates:
        launch.ignore("CUDA_VISIBLE_DEVICES")
    return _script(words, launch)
