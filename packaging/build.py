"""Build Tuneplan's installers: one command per operating system.

    python packaging/build.py linux     # dist/tuneplan/, dist/tuneplan-<ver>-linux-x86_64.tar.gz, dist/tuneplan_<ver>_amd64.deb
    python packaging/build.py windows   # dist/tuneplan/, dist/tuneplan-<ver>-windows-x86_64.zip, dist/tuneplan-<ver>-windows-x86_64-setup.exe
    python packaging/build.py macos     # dist/Tuneplan.app, dist/Tuneplan-<ver>-macos-<arch>.dmg

Run it with the Python of a venv that has the app and PyInstaller installed (``pip install -e ".[package]"``);
``make package`` does that on Linux. Each command freezes the app with PyInstaller (packaging/tuneplan.spec),
wraps the bundle into the OS's installer, then runs packaging/smoke_test.py on the result (``--no-smoke``
skips it). Timings and sizes go to build/build-report-<os>.json. PyInstaller cannot cross-compile: build each
OS on that OS (.github/workflows/release.yml does all three). See packaging/README.md.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile
from email.utils import formatdate
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import metadata  # noqa: E402

ROOT = metadata.ROOT
DIST = ROOT / "dist"
BUILD = ROOT / "build"
SPEC = HERE / "tuneplan.spec"
BUNDLE = DIST / metadata.PACKAGE_NAME  # the one-folder bundle

# .deb runtime dependencies that the bundle does not carry, or may not carry: what Qt's xcb platform plugin,
# its GLX/EGL integrations and QtGui load from the system. Debian 12 and Ubuntu 22.04/24.04 names.
# build.py checks this list against `ldd` on every bundled binary and adds anything it finds missing.
DEB_BASE_DEPENDS = (
    "libgl1",  # libGL.so.1: never bundled (PyInstaller leaves the GL stack to the system driver)
    "libegl1",  # libEGL.so.1: ditto
    "libxcb1",  # libxcb.so.1: never bundled (its ABI must match the X server side libraries)
    "libx11-6",
    "libx11-xcb1",
    "libxcb-cursor0",  # Qt >= 6.5 refuses to start the xcb platform without it
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-render0",
    "libxcb-shape0",
    "libxcb-shm0",
    "libxcb-sync1",
    "libxcb-util1",
    "libxcb-xfixes0",
    "libxcb-xinerama0",  # loaded by Qt when the X server has Xinerama
    "libxcb-xkb1",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libfontconfig1",
    "libfreetype6",
    "libdbus-1-3",
    "libglib2.0-0 | libglib2.0-0t64",  # renamed in Ubuntu 24.04 (64-bit time_t transition)
    "libwayland-client0",  # Wayland platform plugin (optional at run time, but cheap and everywhere)
    "libwayland-cursor0",
    "libwayland-egl1",
    "fonts-dejavu-core | fonts-liberation2 | fonts-freefont-ttf",  # Qt draws nothing legible without a font
)
# Plugins whose missing system libraries only disable that plugin (Qt skips it): reported, never fatal.
OPTIONAL_PLUGIN_DIRS = ("wayland-", "platforminputcontexts", "platformthemes", "printsupport")


# --------------------------------------------------------------------------------------------------- helpers


def log(message: str) -> None:
    print(f"[build] {message}", flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:  # noqa: ANN003
    log("$ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def du(path: Path) -> int:
    """Bytes on disk like ``du -s`` would add up, counting symlinks as links (apparent sizes)."""
    if path.is_file():
        return path.stat().st_size
    total = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
    return total


def mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def source_date_epoch() -> int:
    """Timestamp for archive entries and the changelog: $SOURCE_DATE_EPOCH, else the last commit, else now."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True, check=True
        ).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return int(time.time())


class Report:
    """Timings and sizes of one build, written to build/build-report-<os>.json."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.data: dict[str, object] = {
            "target": target,
            "version": metadata.version(),
            "python": sys.version.split()[0],
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "steps_s": {},
            "sizes_bytes": {},
        }

    def step(self, name: str, seconds: float) -> None:
        self.data["steps_s"][name] = round(seconds, 1)  # type: ignore[index]
        log(f"{name}: {seconds:.1f} s")

    def size(self, name: str, path: Path) -> None:
        self.data["sizes_bytes"][name] = du(path)  # type: ignore[index]
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        du_sh = ""
        if shutil.which("du"):
            du_sh = subprocess.run(["du", "-sh", str(path)], capture_output=True, text=True, check=False).stdout.split()[:1]
            du_sh = f", du -sh: {du_sh[0]}" if du_sh else ""
            if du_sh:
                self.data.setdefault("du_sh", {})[name] = du_sh.split(": ")[1]  # type: ignore[union-attr]
        log(f"{name}: {mb(du(path))}{du_sh}  ({shown})")

    def write(self) -> Path:
        BUILD.mkdir(exist_ok=True)
        path = BUILD / f"build-report-{self.target}.json"
        path.write_text(json.dumps(self.data, indent=2) + "\n", encoding="utf-8")
        log(f"report: {path.relative_to(ROOT)}")
        return path


# ------------------------------------------------------------------------------------------------ all OSes


def make_icons() -> Path:
    from make_icons import make_icons as render

    out = BUILD / "icons"
    render(out)
    return out


def pyinstaller(report: Report) -> None:
    """Freeze the app into dist/tuneplan/ (and dist/Tuneplan.app on macOS)."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        sys.exit('build.py: PyInstaller is not installed in this Python; run: pip install -e ".[package]"')
    for stale in (BUNDLE, DIST / f"{metadata.APP_NAME}.app"):
        if stale.exists():
            shutil.rmtree(stale)
    started = time.monotonic()
    run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
         "--distpath", DIST, "--workpath", BUILD / "pyinstaller", SPEC],
        cwd=ROOT,
    )  # fmt: skip
    report.step("pyinstaller", time.monotonic() - started)
    report.size("bundle_unpacked", BUNDLE)


def smoke(report: Report, *args: str) -> None:
    started = time.monotonic()
    run([sys.executable, str(HERE / "smoke_test.py"), *args], cwd=ROOT)
    report.step("smoke_test" + ("_" + args[0].lstrip("-").replace("-", "_") if args else ""), time.monotonic() - started)


# --------------------------------------------------------------------------------------------------- Linux


def _is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def bundle_elves(bundle: Path) -> list[Path]:
    return sorted(p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and _is_elf(p))


def elf_needed(path: Path) -> list[str]:
    out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=False).stdout
    return [line.split()[1] for line in out.splitlines() if line.strip().startswith("NEEDED")]


def ldd_report(bundle: Path) -> dict[str, dict[str, list[str]]]:
    """Resolve every bundled ELF file's direct dependencies the way the bootloader does (LD_LIBRARY_PATH=_internal).

    Returns {"outside": {system lib path: [bundled files needing it]}, "missing": {soname: [...]}}. Only
    direct DT_NEEDED entries count: what a system library pulls in is its own package's business.
    """
    internal = bundle / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=str(internal))
    real_bundle = os.path.realpath(bundle) + os.sep
    outside: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    for elf in bundle_elves(bundle):
        rel = elf.relative_to(bundle).as_posix()
        needed = set(elf_needed(elf))
        proc = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env=env, check=False)
        for line in proc.stdout.splitlines():
            soname, arrow, target = line.strip().partition("=>")
            soname, target = soname.strip(), target.strip()
            if not arrow or soname not in needed:
                continue
            if target.startswith("not found"):
                missing.setdefault(soname, []).append(rel)
                continue
            path = target.split(" (")[0].strip()
            if path and not os.path.realpath(path).startswith(real_bundle):
                outside.setdefault(path, []).append(rel)
    return {"outside": outside, "missing": missing}


def dpkg_owner(path: str) -> str | None:
    """The Debian package that ships ``path`` (tries the /lib <-> /usr/lib merged-/usr aliases)."""
    candidates = [path, os.path.realpath(path)]
    for c in list(candidates):
        if c.startswith("/usr/lib/"):
            candidates.append(c[len("/usr") :])
        elif c.startswith("/lib/"):
            candidates.append("/usr" + c)
    for c in candidates:
        proc = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True, check=False)
        if proc.returncode == 0 and ":" in proc.stdout:
            return proc.stdout.split(":", 1)[0].strip()
    return None


def required_glibc(bundle: Path) -> str:
    """The newest GLIBC_x.y symbol version any bundled binary references (the bundle's glibc floor)."""
    best = (2, 17)
    for elf in bundle_elves(bundle):
        out = subprocess.run(["objdump", "-T", str(elf)], capture_output=True, text=True, check=False).stdout
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", out):
            best = max(best, (int(major), int(minor)))
    return f"{best[0]}.{best[1]}"


_GLIBC_PACKAGES = {"libc6", "libc-bin", "libgcc-s1", "libstdc++6"}


def resolve_depends(bundle: Path, report: Report) -> list[str]:
    """DEB_BASE_DEPENDS + whatever ldd shows the bundle loads from the system, and libc6 (>= floor).

    Fails the build if a required binary (not an optional plugin) links a library nobody provides.
    """
    lddr = ldd_report(bundle)
    required_missing = {
        so: users
        for so, users in lddr["missing"].items()
        if not all(any(d in u for d in OPTIONAL_PLUGIN_DIRS) for u in users)
    }
    optional_missing = {so: u for so, u in lddr["missing"].items() if so not in required_missing}
    for so, users in sorted(optional_missing.items()):
        log(f"note: optional plugin(s) {', '.join(users[:3])} need {so}, not installed here (Qt skips them)")
    if required_missing:
        for so, users in sorted(required_missing.items()):
            log(f"ERROR: {so} not found; needed by {', '.join(users[:4])}")
        sys.exit(
            "build.py: the bundle needs system libraries this machine lacks. Install the runtime packages "
            "before building (PyInstaller bundles what it can resolve), e.g.\n  apt-get install "
            + " ".join(d.split(" |")[0] for d in DEB_BASE_DEPENDS)
        )
    base_names = {alt.strip().split()[0] for dep in DEB_BASE_DEPENDS for alt in dep.split("|")}
    found: dict[str, list[str]] = {}
    for path, users in sorted(lddr["outside"].items()):
        owner = dpkg_owner(path)
        if owner is None:
            log(f"note: {path} (used by {users[0]}) belongs to no Debian package")
            continue
        found.setdefault(owner, []).append(Path(path).name)
    extra = sorted(pkg for pkg in found if pkg not in base_names and pkg not in _GLIBC_PACKAGES)
    for pkg in extra:
        log(f"adding Depends: {pkg} (bundle loads {', '.join(sorted(set(found[pkg])))} from the system)")
    glibc = required_glibc(bundle)
    depends = [f"libc6 (>= {glibc})", *DEB_BASE_DEPENDS, *extra]
    report.data["deb_depends"] = depends
    report.data["ldd_system_packages"] = {k: sorted(set(v)) for k, v in sorted(found.items())}
    report.data["ldd_optional_missing"] = sorted(optional_missing)
    log(f"system packages the bundle loads (ldd): {', '.join(sorted(found))}")
    return depends


def make_tarball(report: Report) -> Path:
    version = metadata.version()
    out = DIST / f"{metadata.PACKAGE_NAME}-{version}-linux-x86_64.tar.gz"
    top = f"{metadata.PACKAGE_NAME}-{version}"
    mtime = source_date_epoch()

    def normalize(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = mtime
        return info

    started = time.monotonic()
    with tarfile.open(out, "w:gz", compresslevel=9) as tar:
        for path in [BUNDLE, *sorted(BUNDLE.rglob("*"))]:
            arcname = top + "/" + path.relative_to(BUNDLE).as_posix() if path != BUNDLE else top
            tar.add(path, arcname=arcname, recursive=False, filter=normalize)
    report.step("tar_gz", time.monotonic() - started)
    report.size("tar_gz", out)
    return out


def man_page(version: str) -> bytes:
    """A short tuneplan(1) built from the argparse help (Debian wants a manual page for /usr/bin/tuneplan)."""
    sys.path.insert(0, str(ROOT / "src"))
    from tuneplan.__main__ import build_parser

    parser = build_parser()
    help_text = parser.format_help()

    def roff(text: str) -> str:
        return "\n".join(("\\&" + ln if ln.startswith((".", "'")) else ln) for ln in text.replace("\\", "\\e").splitlines())

    date = time.strftime("%Y-%m-%d", time.gmtime(source_date_epoch()))
    page = f""".TH TUNEPLAN 1 "{date}" "{metadata.APP_NAME} {version}" "User Commands"
.SH NAME
tuneplan \\- {metadata.SUMMARY[0].lower() + metadata.SUMMARY[1:]}
.SH SYNOPSIS
.B tuneplan
[\\fIOPTIONS\\fR] [\\fICOMMAND\\fR ...]
.SH DESCRIPTION
{roff(metadata.DESCRIPTION.replace(chr(10), " "))}
.PP
Without a command, \\fBtuneplan\\fR opens the desktop application. The commands print estimates on the
terminal; \\fBtuneplan \\fICOMMAND\\fB \\-\\-help\\fR describes each one.
.SH OPTIONS
.nf
{roff(help_text)}
.fi
.SH ENVIRONMENT
.TP
.B TUNEPLAN_DATA_DIR
Folder for saved scenarios instead of the per-user data folder.
.SH SEE ALSO
{metadata.HOMEPAGE}
"""
    return gzip.compress(page.encode("utf-8"), compresslevel=9, mtime=0)


def deb_changelog(version: str) -> bytes:
    when = formatdate(source_date_epoch(), usegmt=False)
    text = (
        f"{metadata.PACKAGE_NAME} ({version}) unstable; urgency=medium\n\n"
        f"  * Release {version}: the desktop app, bundled with its own Python and Qt.\n\n"
        f" -- {metadata.MAINTAINER}  {when}\n"
    )
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def _write(path: Path, data: bytes | str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    path.chmod(mode)


def _normalize_modes(root: Path) -> None:
    """0755 directories and ELF executables/.so files, 0644 everything else (lintian's expectations)."""
    for p in [root, *root.rglob("*")]:
        if p.is_symlink():
            continue
        if p.is_dir():
            p.chmod(0o755)
        elif _is_elf(p) and ".so" not in p.name:
            p.chmod(0o755)  # the executable
        else:
            p.chmod(0o644)  # data, and shared objects (dlopen needs no exec bit)


def make_deb(report: Report, depends: list[str], icons: Path) -> Path:
    version = metadata.version()
    name = metadata.PACKAGE_NAME
    stage = BUILD / "deb" / f"{name}_{version}_amd64"
    if stage.exists():
        shutil.rmtree(stage)
    started = time.monotonic()
    opt = stage / "opt" / name
    shutil.copytree(BUNDLE, opt, symlinks=True)
    _normalize_modes(opt)
    (opt / name).chmod(0o755)
    bin_link = stage / "usr" / "bin" / name
    bin_link.parent.mkdir(parents=True)
    bin_link.symlink_to(f"/opt/{name}/{name}")  # across top-level dirs: absolute, per Debian policy 10.5
    share = stage / "usr" / "share"
    _write(share / "applications" / f"{name}.desktop", metadata.DESKTOP_FILE.read_bytes())
    for size in (48, 128, 256):
        _write(share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{name}.png", (icons / f"{name}-{size}.png").read_bytes())
    _write(share / "icons" / "hicolor" / "scalable" / "apps" / f"{name}.svg", metadata.ICON_SVG.read_bytes())
    doc = share / "doc" / name
    _write(doc / "copyright", (HERE / "linux" / "copyright").read_text(encoding="utf-8"))
    _write(doc / "changelog.gz", deb_changelog(version))
    _write(share / "man" / "man1" / f"{name}.1.gz", man_page(version))
    overrides = HERE / "linux" / "lintian-overrides"
    _write(share / "lintian" / "overrides" / name, overrides.read_text(encoding="utf-8"))
    for d in [stage, *stage.rglob("*")]:
        if d.is_dir() and not d.is_symlink():
            d.chmod(0o755)

    installed_kib = (du(stage) + 1023) // 1024
    description = "\n".join(" " + ln for ln in textwrap.wrap(" ".join(metadata.DESCRIPTION.split()), 72, break_on_hyphens=False))
    control = (
        f"Package: {name}\n"
        f"Version: {version}\n"
        f"Architecture: amd64\n"
        f"Maintainer: {metadata.MAINTAINER}\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {', '.join(depends)}\n"
        f"Section: {metadata.DEB_SECTION}\n"
        f"Priority: optional\n"
        f"Homepage: {metadata.HOMEPAGE}\n"
        f"Description: {metadata.SUMMARY}\n{description}\n"
    )
    _write(stage / "DEBIAN" / "control", control)
    sums = []
    for p in sorted(stage.rglob("*")):
        if p.is_file() and not p.is_symlink() and "DEBIAN" not in p.relative_to(stage).parts:
            sums.append(f"{hashlib.md5(p.read_bytes()).hexdigest()}  {p.relative_to(stage).as_posix()}\n")  # noqa: S324 (dpkg format)
    _write(stage / "DEBIAN" / "md5sums", "".join(sums))

    out = DIST / f"{name}_{version}_amd64.deb"
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(source_date_epoch()))
    run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", stage, out], env=env, stdout=subprocess.DEVNULL)
    report.step("deb", time.monotonic() - started)
    report.size("deb", out)
    return out


def run_lintian(deb: Path, report: Report) -> None:
    if shutil.which("lintian") is None:
        log("lintian is not installed (apt-get install lintian): skipping the .deb check")
        report.data["lintian"] = "not run"
        return
    proc = subprocess.run(
        ["lintian", "--info", "--display-info", "--show-overrides", str(deb)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    lines = [ln for ln in proc.stdout.splitlines() if re.match(r"^[EWIPXO]: ", ln)]
    (BUILD / "lintian.txt").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    counts: dict[str, int] = {}
    for ln in lines:
        counts[ln[0]] = counts.get(ln[0], 0) + 1
    report.data["lintian"] = {"counts": counts, "tags": sorted({ln.split()[2] for ln in lines if len(ln.split()) > 2})}
    errors = [ln for ln in lines if ln.startswith(("E:", "W:"))]
    log(f"lintian: {counts} (E error, W warning, I info, P pedantic, O overridden) -> build/lintian.txt")
    for ln in errors:
        log("lintian " + ln)
    if errors:
        sys.exit("build.py: lintian reports errors or warnings that are neither fixed nor overridden (see above)")


def build_linux(args: argparse.Namespace) -> Report:
    report = Report("linux")
    if platform.system() != "Linux":
        sys.exit("build.py linux: run this on Linux")
    for tool in ("objdump", "ldd", "dpkg-deb", "dpkg", "strip"):
        if shutil.which(tool) is None:
            sys.exit(f"build.py linux: '{tool}' is missing (apt-get install binutils dpkg-dev)")
    icons = make_icons()
    pyinstaller(report)
    started = time.monotonic()
    depends = resolve_depends(BUNDLE, report)
    report.step("ldd_check", time.monotonic() - started)
    make_tarball(report)
    deb = make_deb(report, depends, icons)
    if not args.no_lintian:
        started = time.monotonic()
        run_lintian(deb, report)
        report.step("lintian", time.monotonic() - started)
    if not args.no_smoke:
        smoke(report)
        smoke(report, "--installed-deb", str(deb))
    return report


# ------------------------------------------------------------------------------------------------- Windows


def find_iscc() -> str | None:
    for candidate in (
        os.environ.get("ISCC"),
        shutil.which("iscc"),
        shutil.which("ISCC"),
        r"C:\Program Files (x86)\Inno Setup 6\ISCC.exe",
        r"C:\Program Files\Inno Setup 6\ISCC.exe",
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def build_windows(args: argparse.Namespace) -> Report:
    report = Report("windows")
    if platform.system() != "Windows":
        sys.exit("build.py windows: run this on Windows (PyInstaller does not cross-compile)")
    iscc = find_iscc()
    if iscc is None:
        sys.exit("build.py windows: Inno Setup 6 (ISCC.exe) not found; install it (choco install innosetup) or set ISCC")
    icons = make_icons()
    pyinstaller(report)
    version = metadata.version()
    started = time.monotonic()
    portable = DIST / f"{metadata.PACKAGE_NAME}-{version}-windows-x86_64.zip"
    with zipfile.ZipFile(portable, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for p in sorted(BUNDLE.rglob("*")):
            zf.write(p, f"{metadata.PACKAGE_NAME}-{version}/{p.relative_to(BUNDLE).as_posix()}")
    report.step("zip", time.monotonic() - started)
    report.size("zip", portable)
    started = time.monotonic()
    defines = {
        "AppVersion": version,
        "AppName": metadata.APP_NAME,
        "AppExeName": f"{metadata.PACKAGE_NAME}.exe",
        "AppGuid": metadata.WINDOWS_APP_GUID.strip("{}"),
        "VersionInfo": ".".join(str(n) for n in metadata.windows_version_tuple()),
        "AppPublisher": metadata.PUBLISHER,
        "AppURL": metadata.HOMEPAGE,
        "AppComments": metadata.SUMMARY,
        "SourceDir": str(BUNDLE),
        "OutputDir": str(DIST),
        "OutputBaseFilename": f"{metadata.PACKAGE_NAME}-{version}-windows-x86_64-setup",
        "IconFile": str(icons / "tuneplan.ico"),
        "LicenseFile": str(ROOT / "LICENSE"),
    }
    run([iscc, "/Qp", *(f"/D{k}={v}" for k, v in defines.items()), str(HERE / "windows" / "tuneplan.iss")])
    setup = DIST / f"{defines['OutputBaseFilename']}.exe"
    report.step("inno_setup", time.monotonic() - started)
    report.size("setup_exe", setup)
    if not args.no_smoke:
        smoke(report)
    return report


# --------------------------------------------------------------------------------------------------- macOS


def build_macos(args: argparse.Namespace) -> Report:
    report = Report("macos")
    if platform.system() != "Darwin":
        sys.exit("build.py macos: run this on macOS (PyInstaller does not cross-compile)")
    try:
        import dmgbuild
    except ImportError:
        sys.exit("build.py macos: dmgbuild is not installed; run: pip install dmgbuild")
    make_icons()
    pyinstaller(report)
    app = DIST / f"{metadata.APP_NAME}.app"
    report.size("app_bundle", app)
    version = metadata.version()
    arch = platform.machine()  # arm64 on Apple silicon runners, x86_64 on Intel
    dmg = DIST / f"{metadata.APP_NAME}-{version}-macos-{arch}.dmg"
    if dmg.exists():
        dmg.unlink()
    started = time.monotonic()
    dmgbuild.build_dmg(
        str(dmg),
        f"{metadata.APP_NAME} {version}",
        settings_file=str(HERE / "macos" / "dmg_settings.py"),
        defines={"app": str(app), "icon": str(BUILD / "icons" / "tuneplan.icns")},
    )
    report.step("dmg", time.monotonic() - started)
    report.size("dmg", dmg)
    if not args.no_smoke:
        smoke(report)
    return report


# ---------------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="build.py",
        description="Build Tuneplan's bundle and installer for one OS (run it on that OS).",
        epilog="Outputs go to dist/; timings and sizes to build/build-report-<os>.json. See packaging/README.md.",
    )
    parser.add_argument("target", choices=["linux", "windows", "macos"], help="the OS to build for (this one)")
    parser.add_argument("--no-smoke", action="store_true", help="skip the smoke test of the built artifacts")
    parser.add_argument("--no-lintian", action="store_true", help="linux: skip the lintian check of the .deb")
    args = parser.parse_args(argv)
    started = time.monotonic()
    builders = {"linux": build_linux, "windows": build_windows, "macos": build_macos}
    report = builders[args.target](args)
    report.step("total", time.monotonic() - started)
    report.write()
    for p in sorted(DIST.glob(f"*{metadata.version()}*")):
        log(f"artifact: {p.relative_to(ROOT)}  {mb(du(p))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
