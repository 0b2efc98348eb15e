"""A local stand-in for gpuhunt's public catalog bucket (http.server on 127.0.0.1 in a thread).

It serves the v3 layout gpuhunt publishes (``.github/scripts/publish_catalog.sh`` in dstackai/gpuhunt)::

    /v3/<provider>/version                  "<version>\\n"
    /v3/<provider>/<version>/catalog.zip    a zip holding "<provider>.csv"

from the recorded CSVs in ``tests/data/prices/`` (gpuhunt's v2 columns; a few real-looking rows per
provider, malformed ones among them). A provider without a CSV answers 404. Modes for the failure
tests: ``hang`` (accepts the request and never answers until closed), ``huge`` (a catalog.zip of
``huge_bytes`` with no Content-Length, streamed), ``bomb`` (a small zip whose CSV inflates to ``huge_bytes``).
"""

from __future__ import annotations

import http.server
import io
import threading
import zipfile
from pathlib import Path

DATA = Path(__file__).parent / "data" / "prices"
VERSION = "20261201-812"


def catalog_zip(provider: str, csv_bytes: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{provider}.csv", csv_bytes)
    return buf.getvalue()


class PriceCatalogServer:
    """``PriceCatalogServer(mode="ok", csvs=None)``; ``.url`` is the base URL (``http://127.0.0.1:PORT/v3``)."""

    def __init__(self, mode: str = "ok", csvs: dict[str, bytes] | None = None, version: str = VERSION,
                 huge_bytes: int = 0) -> None:
        self.mode, self.version, self.huge_bytes = mode, version, huge_bytes
        self.csvs = csvs if csvs is not None else {p.stem: p.read_bytes() for p in sorted(DATA.glob("*.csv"))}
        self.requests: list[str] = []
        header = (DATA / "aws.csv").read_bytes().splitlines(keepends=True)[0]
        self.bombs = {p: catalog_zip(p, header + b"0," * (huge_bytes // 2)) for p in self.csvs} if mode == "bomb" else {}
        self.released = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                server.requests.append(self.path)
                if server.mode == "hang":
                    server.released.wait(30)  # never answers while the test runs
                    return
                parts = self.path.strip("/").split("/")
                if len(parts) >= 3 and parts[0] == "v3" and parts[1] in server.csvs:
                    provider = parts[1]
                    if parts[2:] == ["version"]:
                        return self._send(f"{server.version}\n".encode())
                    if parts[2:] == [server.version, "catalog.zip"]:
                        if server.mode == "huge":
                            return self._stream(server.huge_bytes)
                        if server.mode == "bomb":
                            return self._send(server.bombs[provider])
                        return self._send(catalog_zip(provider, server.csvs[provider]))
                self.send_error(404, "NoSuchKey")

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _stream(self, size: int) -> None:
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b"\0" * 65536
                try:
                    for _ in range(size // len(chunk)):
                        self.wfile.write(chunk)
                except OSError:  # the client stopped reading at its limit
                    pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v3"

    def close(self) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()
