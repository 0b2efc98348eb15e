"""``tuneplan scenarios list|show|export|import``: the scenario library from the command line.

    tuneplan scenarios list [--json]           every saved scenario (broken ones flagged)
    tuneplan scenarios show NAME [--json]      the scenario and its estimate summary
    tuneplan scenarios export [NAME] -o FILE   one scenario (or, without NAME, all) to a file
    tuneplan scenarios import FILE             add the scenarios of a shared file

NAME is a scenario name (case-insensitive) or a path to a scenario file. Errors print one line,
``tuneplan: error: ...``, on stderr and exit with status 2. No Qt.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from tuneplan.core.result import GIB
from tuneplan.core.scenario import SCHEMA_VERSION, Scenario
from tuneplan.core.text import json_terminal_safe, terminal_safe
from tuneplan.storage.files import ScenarioFileError, read_scenario_file
from tuneplan.storage.library import ScenarioInfo, ScenarioLibrary

__all__ = ["scenarios_command"]


class _UsageError(Exception):
    """A user error for the one-line message."""


def _fail(message: str) -> int:
    print(f"tuneplan: error: {terminal_safe(message)}", file=sys.stderr)
    return 2


def _dump(document: Any, out: TextIO) -> None:
    """``document`` as indented JSON, non-ASCII kept, control characters as ``\\uXXXX`` (a name from a shared
    file cannot drive the terminal)."""
    out.write(json_terminal_safe(json.dumps(document, indent=2, ensure_ascii=False)))
    out.write("\n")


def _info_json(info: ScenarioInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "path": str(info.path),
        "modified": info.modified.isoformat(timespec="seconds"),
        "schema_version": info.schema_version,
        "ok": info.ok,
        "problem": info.problem,
    }


def _resolve(library: ScenarioLibrary, name: str | None) -> tuple[Path, Scenario]:
    if not name:
        raise _UsageError("give a scenario name (see 'tuneplan scenarios list')")
    matches = library.find(name)
    if len(matches) == 1:
        path = matches[0].path
        return path, library.load(path, remember=False)
    if len(matches) > 1:
        raise _UsageError(
            f"{len(matches)} scenarios are named {name!r}; give the file path instead "
            f"({', '.join(str(m.path) for m in matches)})"
        )
    candidate = Path(name).expanduser()
    if candidate.is_file():
        return candidate, library.load(candidate, remember=False)
    broken = [i for i in library.list() if not i.ok and i.name.casefold() == name.casefold()]
    if broken:
        raise _UsageError(f"{broken[0].path}: {broken[0].problem}")
    raise _UsageError(f"no scenario named {name!r} (see 'tuneplan scenarios list')")


def _summary(scenario: Scenario) -> dict[str, Any]:
    from tuneplan.core.estimate import estimate

    result = estimate(scenario)
    m, t, c = result.memory, result.time, result.cost
    return {
        "total_bytes": m.total_bytes,
        "paged_bytes": m.paged_bytes,
        "capacity_bytes": m.capacity_bytes,
        "peak_allocated_bytes": m.peak_allocated_bytes,
        "fits": m.total_bytes <= m.capacity_bytes,
        "verdict": m.verdict(),
        "hours": t.hours,
        "total_usd": c.total_usd,
        "warnings": list(result.warnings),
    }


def _list(library: ScenarioLibrary, as_json: bool, out: TextIO) -> int:
    infos = library.list()
    if as_json:
        _dump([_info_json(i) for i in infos], out)
        return 0
    if not infos:
        print(f"no saved scenarios in {terminal_safe(str(library.scenarios_dir))}", file=out)
        return 0
    names = [terminal_safe(i.name) for i in infos]  # names and problems come from files: print them escaped
    width = min(48, max(4, *(len(n) for n in names)))
    print(f"{'NAME':<{width}}  {'MODIFIED (UTC)':<16}  {'SCHEMA':>6}  STATUS", file=out)
    for info, name in zip(infos, names, strict=True):
        if info.ok:
            status = "ok"
        elif info.schema_version is not None and info.schema_version > SCHEMA_VERSION:
            status = f"NEWER: {terminal_safe(str(info.problem))}"
        else:
            status = f"BROKEN: {terminal_safe(str(info.problem))}"
        schema = "-" if info.schema_version is None else str(info.schema_version)
        print(
            f"{name[:width]:<{width}}  {info.modified.strftime('%Y-%m-%d %H:%M'):<16}  {schema:>6}  {status}",
            file=out,
        )
    return 0


def _show(library: ScenarioLibrary, name: str | None, as_json: bool, out: TextIO) -> int:
    path, scenario = _resolve(library, name)
    summary = _summary(scenario)
    if as_json:
        document = {"path": str(path), "scenario": scenario.model_dump(mode="json"), "estimate": summary}
        _dump(document, out)
        return 0
    print(f"# {terminal_safe(str(path))}", file=out)
    print(json_terminal_safe(scenario.model_dump_json(indent=2)), file=out)
    print(
        f"\nEstimate: {summary['total_bytes'] / GIB:.2f} GiB of {summary['capacity_bytes'] / GIB:.2f} GiB per GPU "
        f"({summary['verdict']}), {summary['hours']:.2f} h, ${summary['total_usd']:,.2f}",
        file=out,
    )
    for warning in summary["warnings"]:
        print(f"warning: {terminal_safe(warning)}", file=out)
    return 0


def _export(library: ScenarioLibrary, name: str | None, output: str | None, out: TextIO) -> int:
    if not output:
        raise _UsageError("export needs -o FILE")
    if name:
        sources = [_resolve(library, name)[0]]
    else:
        sources = [i.path for i in library.list() if i.ok]
        if not sources:
            raise _UsageError("the library has no scenarios to export")
    dest = library.export_scenarios(sources, output, bundle=None if name else True)
    print(f"exported {len(sources)} scenario{'s' if len(sources) != 1 else ''} to {terminal_safe(str(dest))}", file=out)
    return 0


def _import(library: ScenarioLibrary, file: str | None, as_json: bool, out: TextIO) -> int:
    if not file:
        raise _UsageError("import needs a FILE")
    written = library.import_scenarios(file)
    if as_json:
        rows = [{"name": read_scenario_file(p).name, "path": str(p)} for p in written]
        _dump(rows, out)
        return 0
    for path in written:
        print(f"imported {terminal_safe(repr(read_scenario_file(path).name))} -> {terminal_safe(str(path))}", file=out)
    return 0


def scenarios_command(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Run ``tuneplan scenarios ACTION``; returns the exit status (0, or 2 on any error).

    ``args`` has ``action`` (``list``/``show``/``export``/``import``), ``name``, ``output`` and
    ``json``, as built by :func:`tuneplan.__main__.build_parser`.
    """
    library = ScenarioLibrary()
    action = getattr(args, "action", None)
    name = getattr(args, "name", None)
    as_json = bool(getattr(args, "json", False))
    try:
        if action == "list":
            return _list(library, as_json, out)
        if action == "show":
            return _show(library, name, as_json, out)
        if action == "export":
            return _export(library, name, getattr(args, "output", None), out)
        if action == "import":
            return _import(library, name, as_json, out)
        return _fail(f"unknown action {action!r} (list, show, export, import)")
    except _UsageError as exc:
        return _fail(str(exc))
    except ScenarioFileError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.filename or 'scenario library'}: {exc.strerror or exc}")
    except ValueError as exc:  # an estimate that cannot be computed
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
