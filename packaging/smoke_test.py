"""Smoke-test a built Tuneplan bundle headless: does the frozen app start, find its data and draw its window?

    python packaging/smoke_test.py                          # the bundle in dist/ for this OS
    python packaging/smoke_test.py --exe PATH               # any built executable
    python packaging/smoke_test.py --installed-deb dist/tuneplan_<ver>_amd64.deb
                                                            # unpack the .deb into a temp root, check its
                                                            # layout, and test the app from there

Each run of the app gets ``QT_QPA_PLATFORM=offscreen``, a fresh temporary HOME/XDG folders and
TUNEPLAN_DATA_DIR, a working directory outside the checkout, no PYTHONPATH/PYTHONHOME/virtualenv, and a hard
timeout (the whole process group is killed). It fails on a non-zero exit, a missing ``SELFTEST OK`` line, or
any fatal marker in the output (Qt platform plugin errors, tracebacks, missing modules or libraries).

Checks: ``--version`` prints this checkout's version; ``estimate --json`` and ``gpus --json`` work (bundled
catalog data, pynvml, no Qt); ``--self-test`` builds the window offscreen and prints ``SELFTEST OK``; on
Linux, ldd finds every library of the offscreen and xcb platform plugins. Wall times are printed and, with
``--json``, written to a file. Stdlib only (the CI runs it with any Python).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import metadata  # noqa: E402

FATAL_MARKERS = (
    "Could not load the Qt platform plugin",
    "could not find or load the Qt platform plugin",
    "qt.qpa.plugin",
    "This application failed to start",
    "Fatal",
    "Traceback (most recent call last)",
    "ModuleNotFoundError",
    "ImportError",
    "FileNotFoundError",
    "error while loading shared libraries",
    "undefined symbol",
    "cannot open shared object file",
    "QLibraryPrivate",
    "Unhandled exception",
    "Aborted",
    "core dumped",
    "Segmentation fault",
)
SELFTEST_OK = "SELFTEST OK"


class SmokeFailure(Exception):
    pass


def default_exe() -> Path:
    dist = metadata.ROOT / "dist"
    system = platform.system()
    if system == "Windows":
        return dist / metadata.PACKAGE_NAME / f"{metadata.PACKAGE_NAME}-cli.exe"  # the console twin (stdout)
    if system == "Darwin":
        return dist / f"{metadata.APP_NAME}.app" / "Contents" / "MacOS" / metadata.PACKAGE_NAME
    return dist / metadata.PACKAGE_NAME / metadata.PACKAGE_NAME


def clean_env(home: Path) -> dict[str, str]:
    """The user's environment minus anything that could let the bundle borrow the build's Python or Qt."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "QT_", "PYQTGRAPH", "TUNEPLAN_", "XDG_", "LD_", "DYLD_", "VIRTUAL_ENV", "CONDA"))
    }
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        APPDATA=str(home / "AppData" / "Roaming"),
        LOCALAPPDATA=str(home / "AppData" / "Local"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_RUNTIME_DIR=str(home / "runtime"),
        TUNEPLAN_DATA_DIR=str(home / "tuneplan-data"),
        QT_QPA_PLATFORM="offscreen",
    )
    (home / "runtime").mkdir(parents=True, exist_ok=True)
    (home / "runtime").chmod(0o700)
    return env


def run_app(exe: Path, args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> tuple[int, str, str, float]:
    """Run the app with a hard timeout; kill its whole process group if it hangs."""
    kwargs: dict[str, object] = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True
    else:
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(cwd),
        text=True, encoding="utf-8", errors="replace", **kwargs,  # type: ignore[arg-type]
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, check=False)
        out, err = proc.communicate()
        raise SmokeFailure(
            f"{exe.name} {' '.join(args)}: no exit after {timeout:.0f} s (killed)\n--- stdout\n{out}\n--- stderr\n{err}"
        ) from None
    return proc.returncode, out, err, time.monotonic() - started


def check_output(what: str, rc: int, out: str, err: str) -> None:
    hits = [m for m in FATAL_MARKERS if m in out or m in err]
    if rc != 0 or hits:
        reason = f"exit status {rc}" if rc != 0 else f"fatal marker(s) {hits}"
        raise SmokeFailure(f"{what}: {reason}\n--- stdout\n{out[-4000:]}\n--- stderr\n{err[-4000:]}")


def ldd_check(exe: Path) -> list[str]:
    """Linux: libraries of the offscreen and xcb platform plugins that ldd cannot find (as the bootloader sets
    LD_LIBRARY_PATH to _internal)."""
    internal = exe.resolve().parent / "_internal"
    plugins = internal / "PySide6" / "Qt" / "plugins" / "platforms"
    missing: list[str] = []
    for name in ("libqoffscreen.so", "libqxcb.so"):
        plugin = plugins / name
        if not plugin.is_file():
            missing.append(f"{name}: not bundled")
            continue
        env = dict(os.environ, LD_LIBRARY_PATH=str(internal))
        out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, env=env, check=False).stdout
        missing += [f"{name}: {line.split('=>')[0].strip()}" for line in out.splitlines() if "not found" in line]
    return missing


def smoke(exe: Path, timeout: float, label: str) -> dict[str, float]:
    """All app checks for one executable; returns wall times in seconds."""
    if not exe.exists():
        raise SmokeFailure(f"{exe} does not exist: build first (python packaging/build.py <os>)")
    exe = Path(os.path.abspath(exe))  # absolute (the app runs elsewhere), but keep a symlink a symlink
    version = metadata.version()
    times: dict[str, float] = {}
    print(f"[smoke:{label}] {exe}")
    if platform.system() == "Linux" and shutil.which("ldd"):
        missing = ldd_check(exe)
        if missing:
            raise SmokeFailure("platform plugin libraries not found: " + "; ".join(missing))
        print(f"[smoke:{label}] ldd: offscreen and xcb platform plugins resolve every library")
    with tempfile.TemporaryDirectory(prefix="tuneplan-smoke-") as tmp:
        home = Path(tmp) / "home"
        cwd = Path(tmp) / "elsewhere"  # not the checkout: nothing may be imported from the source tree
        cwd.mkdir(parents=True)
        env = clean_env(home)

        rc, out, err, wall = run_app(exe, ["--version"], env, cwd, timeout)
        check_output("--version", rc, out, err)
        if f"tuneplan {version}" not in out + err:
            raise SmokeFailure(f"--version printed {out.strip()!r} {err.strip()!r}, expected 'tuneplan {version}'")
        times["version_s"] = wall
        print(f"[smoke:{label}] --version: {out.strip() or err.strip()}  ({wall:.2f} s)")

        rc, out, err, wall = run_app(exe, ["estimate", "--json"], env, cwd, timeout)
        check_output("estimate --json", rc, out, err)
        estimate = json.loads(out)
        first = estimate[0] if isinstance(estimate, list) else estimate
        times["estimate_s"] = wall
        print(f"[smoke:{label}] estimate --json: {first.get('scenario', '?')!r} on {first.get('gpu', {}).get('name', '?')}  ({wall:.2f} s)")

        rc, out, err, wall = run_app(exe, ["gpus", "--json"], env, cwd, timeout)
        check_output("gpus --json", rc, out, err)
        probe = json.loads(out)
        if "No module named" in json.dumps(probe):
            raise SmokeFailure(f"gpus --json: the NVML binding is not bundled: {probe}")
        times["gpus_s"] = wall
        print(f"[smoke:{label}] gpus --json: status={probe.get('status')} gpus={len(probe.get('gpus', []))}  ({wall:.2f} s)")

        rc, out, err, wall = run_app(exe, ["--self-test"], env, cwd, timeout)
        check_output("--self-test", rc, out, err)
        ok_lines = [line for line in out.splitlines() if line.startswith(SELFTEST_OK)]
        if not ok_lines:
            raise SmokeFailure(f"--self-test: no '{SELFTEST_OK}' line\n--- stdout\n{out[-4000:]}\n--- stderr\n{err[-4000:]}")
        times["self_test_s"] = wall
        print(f"[smoke:{label}] --self-test: {ok_lines[-1][:300]}  ({wall:.2f} s)")
        if err.strip():
            print(f"[smoke:{label}] (stderr, not fatal) {err.strip()[:1000]}")
    return times


def gui_check(exe: Path, seconds: float, label: str) -> dict[str, float]:
    """Start the real GUI on the current display (X11/Wayland, e.g. under xvfb-run) and require it to be
    still running after ``seconds`` with no fatal message; then close it. This exercises the platform
    plugin users get (xcb, wayland, windows, cocoa), which --self-test (offscreen) does not."""
    if platform.system() == "Linux" and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print(f"[smoke:{label}] GUI check skipped: no DISPLAY/WAYLAND_DISPLAY (run under xvfb-run)")
        return {}
    exe = Path(os.path.abspath(exe))
    with tempfile.TemporaryDirectory(prefix="tuneplan-gui-") as tmp:
        env = clean_env(Path(tmp) / "home")
        del env["QT_QPA_PLATFORM"]
        kwargs: dict[str, object] = {"start_new_session": True} if os.name == "posix" else {
            "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        }
        proc = subprocess.Popen(
            [str(exe)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp,
            text=True, encoding="utf-8", errors="replace", **kwargs,  # type: ignore[arg-type]
        )  # fmt: skip
        first_window = wait_for_window(proc, seconds, started := time.monotonic())
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
        alive = proc.poll() is None
        if alive:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGTERM)
            else:
                subprocess.run(["taskkill", "/T", "/PID", str(proc.pid)], capture_output=True, check=False)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            out, err = proc.communicate()
    if not alive:
        raise SmokeFailure(f"GUI exited after less than {seconds:.0f} s (status {proc.returncode})\n--- stdout\n{out}\n--- stderr\n{err}")
    check_output("GUI", 0, out, err)
    shown = f", first window viewable after {first_window:.2f} s" if first_window is not None else ""
    print(f"[smoke:{label}] GUI: still running after {seconds:.0f} s on the real display{shown}, no fatal message")
    return {"gui_alive_s": seconds} | ({"gui_first_window_s": first_window} if first_window is not None else {})


def wait_for_window(proc: subprocess.Popen, limit: float, started: float) -> float | None:
    """X11 only (needs ``xwininfo``): seconds from launch until a viewable top-level window with the app's
    WM_CLASS appears; None where it cannot be observed or did not appear within ``limit``."""
    if not wait_for_window_possible():
        return None
    wm_class = re.escape(f'("{metadata.PACKAGE_NAME}" "{metadata.APP_NAME}")')
    pattern = re.compile(r"^\s*(0x[0-9a-f]+) .*" + wm_class)
    while time.monotonic() - started < limit and proc.poll() is None:
        tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True, check=False).stdout
        for line in tree.splitlines():
            match = pattern.match(line)
            if match:
                info = subprocess.run(["xwininfo", "-id", match.group(1)], capture_output=True, text=True, check=False).stdout
                if "IsViewable" in info:
                    return time.monotonic() - started
        time.sleep(0.02)
    return None


def evict_page_cache(folder: Path) -> int:
    """Drop the bundle's files from the OS page cache (Linux), so the next start reads them from disk.

    Uses posix_fadvise(DONTNEED) per file: only this bundle is evicted, nothing else on the machine.
    Returns the number of files evicted.
    """
    if not hasattr(os, "posix_fadvise"):
        return 0
    count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                count += 1
            finally:
                os.close(fd)
    return count


def measure_startup(exe: Path, repeat: int, timeout: float) -> dict[str, float]:
    """Wall time of ``--version`` and ``--self-test``: one cold run (bundle evicted from the page cache on
    Linux) then ``repeat`` warm runs (median)."""
    exe = Path(os.path.abspath(exe))
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="tuneplan-startup-") as tmp:
        env = clean_env(Path(tmp) / "home")
        for args in (["--version"], ["--self-test"]):
            key = args[0].lstrip("-").replace("-", "_")
            evicted = evict_page_cache(exe.resolve().parent)
            rc, out, err, cold = run_app(exe, args, env, Path(tmp), timeout)
            check_output(" ".join(args), rc, out, err)
            warm = []
            for _ in range(repeat):
                rc, out, err, wall = run_app(exe, args, env, Path(tmp), timeout)
                check_output(" ".join(args), rc, out, err)
                warm.append(wall)
            warm.sort()
            results[f"{key}_cold_s"] = cold
            results[f"{key}_warm_median_s"] = warm[len(warm) // 2] if warm else float("nan")
            internal = re.search(r"SELFTEST OK \(([\d.]+) s\)", out)
            if internal:
                results["self_test_in_app_s"] = float(internal.group(1))
            print(f"[startup] {' '.join(args)}: cold {cold:.2f} s ({evicted} files evicted), warm median of {repeat}: "
                  f"{results[f'{key}_warm_median_s']:.2f} s")
    if wait_for_window_possible():
        evict_page_cache(exe.resolve().parent)
        cold_window = gui_check(exe, 3, "startup").get("gui_first_window_s")
        warm_windows = sorted(gui_check(exe, 3, "startup").get("gui_first_window_s", float("nan")) for _ in range(repeat))
        if cold_window is not None:
            results["first_window_cold_s"] = cold_window
            results["first_window_warm_median_s"] = warm_windows[len(warm_windows) // 2]
            print(f"[startup] GUI launch to first viewable window: cold {cold_window:.2f} s, warm median of {repeat}: "
                  f"{results['first_window_warm_median_s']:.2f} s")
    return results


def wait_for_window_possible() -> bool:
    return platform.system() == "Linux" and bool(os.environ.get("DISPLAY")) and shutil.which("xwininfo") is not None


def check_deb_layout(root: Path) -> Path:
    """The unpacked .deb has the files a desktop needs; returns the executable /usr/bin/tuneplan points to."""
    name = metadata.PACKAGE_NAME
    link = root / "usr" / "bin" / name
    if not link.is_symlink():
        raise SmokeFailure(f"/usr/bin/{name} is missing or not a symlink")
    target = os.readlink(link)
    exe = root / target.lstrip("/") if os.path.isabs(target) else (link.parent / target)
    if not exe.is_file():
        raise SmokeFailure(f"/usr/bin/{name} -> {target}, which is not in the package")
    desktop = root / "usr" / "share" / "applications" / f"{name}.desktop"
    if not desktop.is_file():
        raise SmokeFailure(f"{desktop.relative_to(root)} is missing")
    entries = dict(line.split("=", 1) for line in desktop.read_text(encoding="utf-8").splitlines() if "=" in line)
    exec_cmd = entries.get("Exec", "").split()[0] if entries.get("Exec") else ""
    if exec_cmd != name:
        raise SmokeFailure(f"desktop Exec={entries.get('Exec')!r} does not start /usr/bin/{name}")
    icons = list((root / "usr" / "share" / "icons" / "hicolor").glob(f"*/apps/{entries.get('Icon', '?')}.*"))
    if len(icons) < 4:
        raise SmokeFailure(f"Icon={entries.get('Icon')!r}: found {len(icons)} hicolor icons, expected 48/128/256 PNG + SVG")
    if shutil.which("desktop-file-validate"):
        proc = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SmokeFailure(f"desktop-file-validate: {proc.stdout}{proc.stderr}")
    print(f"[smoke:deb] layout: /usr/bin/{name} -> {target}, .desktop Exec/Icon ok, {len(icons)} icons")
    return exe


def deb_depends_missing(deb: Path) -> list[str]:
    """Depends alternatives of which no package is installed here (a hint, not a failure)."""
    depends = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True, check=True).stdout
    missing = []
    for group in depends.split(","):
        names = [re.sub(r"\s*\(.*\)", "", alt).strip() for alt in group.split("|")]
        installed = False
        for n in names:
            proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}", n], capture_output=True, text=True, check=False)
            installed = installed or proc.stdout.strip().endswith("installed")
        if not installed:
            missing.append(group.strip())
    return missing


def smoke_deb(deb: Path, timeout: float, gui_seconds: float = 0) -> dict[str, float]:
    if platform.system() != "Linux" or shutil.which("dpkg-deb") is None:
        raise SmokeFailure("--installed-deb needs Linux with dpkg-deb")
    if not deb.is_file():
        raise SmokeFailure(f"{deb} does not exist")
    with tempfile.TemporaryDirectory(prefix="tuneplan-deb-") as tmp:
        root = Path(tmp) / "root"
        started = time.monotonic()
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        print(f"[smoke:deb] unpacked {deb.name} into a temporary root ({time.monotonic() - started:.1f} s)")
        exe = check_deb_layout(root)
        missing = deb_depends_missing(deb)
        if missing:
            print(f"[smoke:deb] note: Depends not installed on this machine (apt would pull them in): {', '.join(missing)}")
        # Start it the way the menu does, through a symlink in a bin folder, so the bootloader must find
        # its _internal folder from the link's target.
        bindir = Path(tmp) / "bin"
        bindir.mkdir()
        (bindir / metadata.PACKAGE_NAME).symlink_to(exe)
        times = smoke(bindir / metadata.PACKAGE_NAME, timeout, "deb")
        if gui_seconds:
            times |= gui_check(bindir / metadata.PACKAGE_NAME, gui_seconds, "deb")
        return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run a built Tuneplan bundle headless and check that it works.")
    parser.add_argument("--exe", type=Path, default=None, help="the built executable (default: dist/ for this OS)")
    parser.add_argument("--installed-deb", type=Path, metavar="DEB", help="test this .deb, unpacked into a temp root")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per app run before it is killed (60)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the measured wall times here")
    parser.add_argument(
        "--startup", type=int, metavar="N", default=0,
        help="after the checks, time --version and --self-test: one cold start (bundle evicted from the page "
        "cache on Linux) and the median of N warm starts",
    )  # fmt: skip
    parser.add_argument(
        "--gui-seconds", type=float, metavar="S", default=0,
        help="also start the real GUI on the current display (Linux: under xvfb-run) and require it to run S seconds",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        if args.installed_deb:
            times = smoke_deb(args.installed_deb, args.timeout, args.gui_seconds)
        else:
            times = smoke(args.exe or default_exe(), args.timeout, "bundle")
            if args.gui_seconds:
                times |= gui_check(args.exe or default_exe(), args.gui_seconds, "bundle")
            if args.startup:
                times |= measure_startup(args.exe or default_exe(), args.startup, args.timeout)
    except SmokeFailure as exc:
        print(f"SMOKE TEST FAILED: {exc}", file=sys.stderr)
        return 1
    if args.json:
        args.json.write_text(json.dumps({k: round(v, 3) for k, v in times.items()}, indent=2) + "\n", encoding="utf-8")
    print("SMOKE TEST PASSED " + " ".join(f"{k}={v:.2f}" for k, v in times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
