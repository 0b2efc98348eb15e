"""Autosave never loses someone else's plan, and says when it is off (issue #22).

Real windows offscreen, real files in the test's data folder, real processes as "other Tuneplans",
and a data folder that is really read-only (permissions, or a read-only bind mount as root).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tuneplan import catalog
from tuneplan.storage import ScenarioLibrary, paths, read_scenario_file, write_scenario_file
from tuneplan.storage.files import SCHEMA_VERSION
from tuneplan.ui.library_view import LibraryController


def _dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True, timeout=60)
    return int(proc.stdout)


def _owner(pid: int) -> bytes:
    """An ``autosave.owner.json`` as a Tuneplan with process id ``pid`` on this host writes it."""
    return json.dumps({"pid": pid, "host": socket.gethostname(), "instance": uuid.uuid4().hex, "path": None,
                       "stamp": None, "saved_at": "2027-01-01T00:00:00+00:00"}).encode()


@pytest.fixture
def newer_autosave() -> tuple[Path, bytes, Path, bytes]:
    """An autosave left by a newer Tuneplan that exited without cleaning up (written before the window starts)."""
    scenario = json.loads(catalog.default_scenario().model_dump_json())
    scenario["something_new"] = {"only": "a newer Tuneplan knows this"}
    raw = json.dumps({"format": "tuneplan-scenario", "schema_version": SCHEMA_VERSION + 1,
                      "scenario": scenario}, indent=2).encode()
    auto = paths.autosave_path(paths.data_dir())
    auto.write_bytes(raw)
    owner_path = auto.with_name("autosave.owner.json")
    owner = _owner(_dead_pid())
    owner_path.write_bytes(owner)
    return auto, raw, owner_path, owner


@pytest.mark.parametrize("edit", [False, True], ids=["start-and-close", "edit-then-close"])
def test_an_autosave_from_a_newer_tuneplan_is_kept_through_start_and_a_clean_exit(newer_autosave, window, edit):
    auto, raw, owner_path, owner = newer_autosave
    docs = window.documents
    assert docs.offer_recovery() is False  # what run_gui does once the window is shown
    if edit:
        assert window.store.set_field("training.seq_len", 1536)
        assert docs.autosave_now() is None  # not written over
    window.close()  # the fixture answers Discard: a clean exit
    assert auto.read_bytes() == raw
    assert owner_path.read_bytes() == owner
    title, text = window.shown_errors[-1]
    assert "newer" in (title + text).lower() and "will not write over it or delete it" in text
    if edit:
        assert "kept in the autosave" in docs.notice.text()


def test_a_saved_or_discarded_plan_still_removes_this_windows_own_autosave(window, qtbot):
    docs = window.documents
    assert window.store.set_field("training.seq_len", 1536)
    auto = docs.autosave_now()
    assert auto is not None and auto.exists() and docs.owner_path.exists()
    assert not docs.notice.isVisible()
    window.close()
    assert not auto.exists() and not docs.owner_path.exists()


@pytest.fixture
def other_instance():
    """Another Tuneplan, alive, that owns the autosave of this data folder."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        auto = paths.autosave_path(paths.data_dir())
        write_scenario_file(auto, catalog.default_scenario().model_copy(update={"name": "The other window's"}))
        owner_path = auto.with_name("autosave.owner.json")
        owner_path.write_bytes(_owner(proc.pid))
        yield auto, auto.read_bytes()
    finally:
        proc.kill()
        proc.wait(30)


def test_a_second_instance_says_in_the_window_that_autosave_is_off(other_instance, window, monkeypatch):
    auto, raw = other_instance
    monkeypatch.setattr(LibraryController, "ask_restore_autosave", lambda *a: pytest.fail("offered a live autosave"))
    docs = window.documents
    assert docs.offer_recovery() is False
    assert docs.notice.isVisible()
    assert "another Tuneplan window owns it" in docs.notice.text()
    assert docs.notices() == [docs.notice.text()]
    assert window.store.set_field("training.seq_len", 1536)
    assert docs.autosave_now() is None
    assert docs.notice.isVisible() and "another Tuneplan window" in docs.notice.text()
    window.close()
    assert auto.read_bytes() == raw  # the other window's crash protection is untouched


def test_autosave_resumes_and_the_notice_goes_once_the_other_instance_is_gone(other_instance, window):
    auto, _raw = other_instance
    docs = window.documents
    docs.offer_recovery()
    assert docs.notice.isVisible()
    docs.clear_autosave()
    assert auto.exists()  # not ours: never deleted
    auto.unlink()  # the other window saved its plan and closed normally
    docs.owner_path.unlink()
    assert window.store.set_field("training.seq_len", 1536)
    assert docs.autosave_now() == auto
    assert not docs.notice.isVisible()
    assert read_scenario_file(auto) == window.store.scenario


# --------------------------------------------------------------------------- read-only data folder


def _make_read_only(folder: Path) -> object:
    """Make ``folder`` really read-only; returns how to undo it. Skips when this machine cannot."""
    if os.geteuid() != 0:
        for sub in [folder, *[p for p in folder.rglob("*") if p.is_dir()]]:
            sub.chmod(0o555)
        return lambda: [p.chmod(0o755) for p in [folder, *[p for p in folder.rglob("*") if p.is_dir()]]]
    # root ignores permissions: a read-only bind mount refuses writes even to root (EROFS)
    mount = shutil.which("mount")
    if mount is None or sys.platform != "linux":
        pytest.skip("running as root without mount: cannot make a folder read-only")
    bind = subprocess.run([mount, "--bind", str(folder), str(folder)], capture_output=True, text=True)
    if bind.returncode != 0:
        pytest.skip(f"running as root without permission to mount: {bind.stderr.strip()}")
    ro = subprocess.run([mount, "-o", "remount,ro,bind", str(folder)], capture_output=True, text=True)
    undo = lambda: subprocess.run(["umount", str(folder)], check=True)  # noqa: E731
    if ro.returncode != 0:
        undo()
        pytest.skip(f"cannot remount read-only: {ro.stderr.strip()}")
    return undo


@pytest.fixture
def read_only_data(tmp_path, monkeypatch):
    """A data folder with one saved plan (no trash/, no quarantine/) that cannot be written."""
    folder = tmp_path / "readonly-data"
    saved = ScenarioLibrary(folder).save(catalog.default_scenario().model_copy(update={"name": "Already saved"}))
    for extra in ("trash", "quarantine", "logs"):
        shutil.rmtree(folder / extra, ignore_errors=True)
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(folder))
    undo = _make_read_only(folder)
    try:
        with pytest.raises(OSError):
            (folder / "probe").write_bytes(b"")
        before = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
        yield folder, saved, before
    finally:
        undo()


def test_a_read_only_data_folder_starts_says_so_and_saves_elsewhere(read_only_data, window, tmp_path, monkeypatch):
    folder, saved, before = read_only_data
    docs = window.documents
    assert docs.read_only_error is not None
    assert docs.notice.isVisible() and "Read-only data folder" in docs.notice.text()
    assert "Save As" in docs.notice.text()
    assert docs.offer_recovery() is False
    assert window.library_panel.names() == ["Already saved"]  # the library is still listed
    assert window.open_plan(saved)
    assert window.store.set_field("training.seq_len", 1536)
    assert docs.autosave_now() is None  # off, without an error
    (tmp_path / "elsewhere").mkdir()  # a folder the user picks in the file dialog
    elsewhere = tmp_path / "elsewhere" / "plan.json"
    asked: list[bool] = []
    monkeypatch.setattr(LibraryController, "ask_save_elsewhere_path",
                        lambda self: asked.append(True) or str(elsewhere))
    monkeypatch.setattr(LibraryController, "ask_scenario_name", lambda *a: pytest.fail("asked for a library name"))
    assert window.save_plan_as(), window.shown_errors  # File → Save As…: asks for a file, not a name in the library
    assert asked and not window.store.dirty
    assert read_scenario_file(elsewhere) == window.store.scenario
    assert window.path == elsewhere
    window.close()  # no EROFS from the autosave cleanup
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == before
    assert window.shown_errors == []
