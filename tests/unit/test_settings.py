"""The "Your GPUs" settings in settings.json: round trip, shared file, corrupt files, failures."""

from __future__ import annotations

import json
import os
from pathlib import Path

import filelock
import pytest
from pydantic import ValidationError

from tuneplan.storage import ScenarioLibrary, paths
from tuneplan.storage.settings import (
    SETTINGS_KEY,
    LocalGpuSettings,
    ManualGpu,
    SettingsSaveError,
    load_local_gpu_settings,
    save_local_gpu_settings,
)

MANUAL = ManualGpu(name="Apple M3 Max", memory_gib=96, bf16_tflops=28.4)


def test_missing_file_gives_defaults_without_message(tmp_path: Path) -> None:
    loaded = load_local_gpu_settings(tmp_path)
    assert loaded.settings == LocalGpuSettings()
    assert loaded.message is None


def test_round_trip(tmp_path: Path) -> None:
    settings = LocalGpuSettings(manual=MANUAL, manual_alongside=True, ignored_uuids=["GPU-1"])
    path = save_local_gpu_settings(settings, tmp_path)
    assert path == tmp_path / "settings.json"
    loaded = load_local_gpu_settings(tmp_path)
    assert loaded.settings == settings and loaded.message is None
    assert json.loads(path.read_text("utf-8"))[SETTINGS_KEY]["manual"]["memory_gib"] == 96


def test_default_root_is_the_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(paths.DATA_DIR_ENV, str(tmp_path / "data"))
    save_local_gpu_settings(LocalGpuSettings(manual=MANUAL))
    assert (tmp_path / "data" / "settings.json").is_file()
    assert load_local_gpu_settings().settings.manual == MANUAL


def test_other_keys_survive_and_the_recent_list_keeps_ours(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"recent": ["/x.json"], "theme": "dark"}), "utf-8")
    save_local_gpu_settings(LocalGpuSettings(manual=MANUAL), tmp_path)
    doc = json.loads((tmp_path / "settings.json").read_text("utf-8"))
    assert doc["recent"] == ["/x.json"] and doc["theme"] == "dark"
    # the scenario library updating its recent list keeps our key too
    plan = tmp_path / "plan.json"
    plan.write_text("{}", "utf-8")
    ScenarioLibrary(tmp_path)._remember(plan)
    assert load_local_gpu_settings(tmp_path).settings.manual == MANUAL


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00garbage", b"[1, 2, 3]", b""])
def test_corrupt_file_gives_defaults_and_a_message_and_is_kept(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "settings.json").write_bytes(content)
    loaded = load_local_gpu_settings(tmp_path)
    assert loaded.settings == LocalGpuSettings()
    assert loaded.message and "damaged" in loaded.message and "defaults" in loaded.message
    kept = list((tmp_path / "quarantine").iterdir())
    assert len(kept) == 1 and kept[0].read_bytes() == content
    # saving afterwards works and starts from a clean file
    save_local_gpu_settings(LocalGpuSettings(manual=MANUAL), tmp_path)
    assert load_local_gpu_settings(tmp_path).settings.manual == MANUAL


@pytest.mark.parametrize(
    "entry",
    [
        {"manual": {"name": "", "memory_gib": 8}},
        {"manual": {"name": "X", "memory_gib": -1}},
        {"manual": "a string"},
        "not a dict",
        {"ignored_uuids": 5},
    ],
)
def test_invalid_entry_gives_defaults_and_a_message_and_keeps_the_file(tmp_path: Path, entry: object) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"recent": [], SETTINGS_KEY: entry}), "utf-8")
    loaded = load_local_gpu_settings(tmp_path)
    assert loaded.settings == LocalGpuSettings()
    assert loaded.message and "not valid" in loaded.message
    assert path.exists() and not (tmp_path / "quarantine").exists()


def test_unknown_keys_from_a_newer_version_are_ignored(tmp_path: Path) -> None:
    entry = {"manual": {"name": "X", "memory_gib": 8, "vendor": "AMD"}, "future": 1}
    (tmp_path / "settings.json").write_text(json.dumps({SETTINGS_KEY: entry}), "utf-8")
    loaded = load_local_gpu_settings(tmp_path)
    assert loaded.settings.manual == ManualGpu(name="X", memory_gib=8) and loaded.message is None


def test_manual_gpu_validates() -> None:
    assert ManualGpu(name="  Radeon 7900 XTX ", memory_gib=24).name == "Radeon 7900 XTX"
    for bad in (
        {"name": " ", "memory_gib": 8},
        {"name": "X", "memory_gib": 0},
        {"name": "X", "memory_gib": 8, "bf16_tflops": 0},
    ):
        with pytest.raises(ValidationError):
            ManualGpu(**bad)


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="needs POSIX permissions as a normal user")
def test_unwritable_folder_raises_a_sentence_and_keeps_the_old_file(tmp_path: Path) -> None:
    save_local_gpu_settings(LocalGpuSettings(manual=MANUAL), tmp_path)
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(SettingsSaveError, match="not saved"):
            save_local_gpu_settings(LocalGpuSettings(), tmp_path)
    finally:
        tmp_path.chmod(0o700)
    assert load_local_gpu_settings(tmp_path).settings.manual == MANUAL


def test_unreadable_folder_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", "utf-8")
    loaded = load_local_gpu_settings(blocker / "sub")
    assert loaded.settings == LocalGpuSettings() and loaded.message


def test_full_disk_raises_a_sentence_and_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import tuneplan.storage.settings as settings_mod

    save_local_gpu_settings(LocalGpuSettings(manual=MANUAL), tmp_path)

    def full(target: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(settings_mod, "atomic_write_bytes", full)
    with pytest.raises(SettingsSaveError, match="not saved: the disk is full"):
        save_local_gpu_settings(LocalGpuSettings(), tmp_path)
    assert load_local_gpu_settings(tmp_path).settings.manual == MANUAL
    lock = tmp_path / "settings.lock"
    probe = filelock.FileLock(str(lock), timeout=0)
    probe.acquire()  # the lock was released (its file stays, for the next holder)
    probe.release()
