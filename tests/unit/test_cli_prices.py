"""``tuneplan prices refresh|list`` in a real subprocess against the local catalog server (issue #19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, date, datetime

import pytest

from price_catalog_server import PriceCatalogServer
from tuneplan.catalog.prices import is_old_price


def _run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "tuneplan", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


@pytest.fixture
def server():
    s = PriceCatalogServer()
    yield s
    s.close()


def test_refresh_prints_what_changed_and_list_shows_the_dated_prices(server):
    r = _run("prices", "refresh", "--source-url", server.url, "--timeout", "10", "--provider", "aws",
             "--provider", "runpod")
    assert r.returncode == 0, r.stderr
    today = datetime.now(UTC).date().isoformat()
    out = r.stdout.splitlines()
    assert out[0].startswith(f"Prices refreshed on {today} from 2 of 2 catalog(s): ")
    assert "  updated  RunPod · GeForce RTX 4090 (NVIDIA GeForce RTX 4090, 1x) · on-demand: $0.74 (2026-09-25) -> " \
           "$0.69 (2026-12-01)" in out
    assert "  added    AWS · H100 SXM5 80GB (p5.48xlarge, 8x) · spot: $2.75 (2026-12-01)" in out
    assert "5 malformed row(s) skipped; 1 offer row(s) for GPUs that are not in Tuneplan's catalog (or not named " \
           "precisely) left out." in out
    assert out[-1].startswith(f"Snapshot of {today} saved in ") and out[-1].endswith("price_snapshot.json.")
    assert "AWS: 19 rows read" in r.stderr and "RunPod: 13 rows read" in r.stderr

    r = _run("prices", "list", "--gpu", "RTX 4090")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["Provider", "GPU", "Kind", "USD/GPU-h", "Node", "Interconnect", "Seen", "Yours"]
    refreshed = [line for line in lines if line.startswith("RunPod ") and "refreshed" in line]
    assert len(refreshed) == 2 and all("2026-12-01" in line and " 1x " in line for line in refreshed)
    assert lines[-1] == f"Refreshed prices of {today} from AWS, RunPod ({server.url})."

    r = _run("prices", "list", "--gpu", "h100_sxm", "--json")
    doc = json.loads(r.stdout)
    assert doc["old_after_days"] == 90 and doc["today"] == date.today().isoformat()
    rows = doc["prices"]
    assert {row["gpu_id"] for row in rows} == {"h100_sxm"}
    p5 = next(row for row in rows if row["provider"] == "AWS" and row["kind"] == "on-demand")
    assert (p5["gpus_per_node"], p5["interconnect"], p5["origin"]) == (8, "NVLink (SXM)", "refreshed")
    assert all(row["old"] == is_old_price(row["date_seen"], date.today()) for row in rows)
    assert any(not row["old"] for row in rows)


def test_list_marks_old_bundled_prices():
    r = _run("prices", "list", "--gpu", "rtx3090")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("RunPod "))
    assert "2026-03-10" in row
    assert row.rstrip().endswith("2026-03-10 old") is is_old_price("2026-03-10", date.today())
    assert "are marked old" in r.stdout and "No refreshed prices yet ('tuneplan prices refresh')" in r.stdout


def test_refresh_against_a_silent_server_gives_up_at_the_timeout_and_keeps_the_prices():
    hang = PriceCatalogServer(mode="hang")
    try:
        start = time.monotonic()
        r = _run("prices", "refresh", "--source-url", hang.url, "--timeout", "1", "--provider", "gcp")
        elapsed = time.monotonic() - start
    finally:
        hang.close()
    assert r.returncode == 1 and r.stdout == ""
    assert "no answer within 1 s" in r.stderr and "stay in use" in r.stderr
    assert elapsed < 30  # the server never answers: only the 1 s timeout ends it (interpreter start included)


def test_bad_input_is_one_line_and_status_2():
    r = _run("prices", "refresh", "--source-url", "ftp://example.org/v3", "--timeout", "5")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "https://, http:// or file://" in r.stderr
    r = _run("prices", "list", "--gpu", "GTX 1080")
    assert r.returncode == 2 and "no catalog GPU matches 'GTX 1080'" in r.stderr


def test_the_parser_knows_the_same_providers_as_the_refresh():
    from tuneplan.cli_prices import PROVIDER_IDS
    from tuneplan.storage.price_refresh import PROVIDERS

    assert sorted(PROVIDER_IDS) == sorted(PROVIDERS)


def test_refresh_that_cannot_save_exits_1(server, monkeypatch, capsys):
    from tuneplan.__main__ import main
    from tuneplan.storage import price_snapshot

    def full(target, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(price_snapshot, "atomic_write_bytes", full)
    assert main(["prices", "refresh", "--source-url", server.url, "--provider", "runpod", "--timeout", "10"]) == 1
    err = capsys.readouterr().err
    assert "tuneplan: error: The refreshed prices could not be saved to " in err and "the disk is full" in err
