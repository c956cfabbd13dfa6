#!/usr/bin/env python3
"""Check that an iclscale report renders in headless Chromium, offline, with no console errors.

    python scripts/check_report_in_chromium.py DIR/report            (or DIR/report/index.html)

Starts Chromium headless with an empty profile, no background networking and every host name
resolving to nothing, opens the page over the DevTools protocol (a small WebSocket client from the
standard library, so no extra package), and records:

- console messages (console.error and uncaught exceptions are errors; warnings are listed),
- every request the page makes that is not file:, data: or blob: (the page must need no network),
- for each chart container (<div id="chart-N">), whether Vega drew an <svg> or <canvas> in it.

Exit status: 0 when every chart rendered with no console error and no network request, 1 when a
check failed, 2 when Chromium is missing or could not be driven. Install Chromium on Debian with
`apt-get install -y chromium`.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",  # no host name resolves: offline
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",  # Chromium picks a free port and prints it
)
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome-error:", "devtools:")
MARKS = "svg .mark-symbol path, svg .mark-line path, svg .mark-rect path, svg .mark-area path, svg .mark-rule line"
COUNT_CHARTS = (
    "(() => JSON.stringify([...document.querySelectorAll('div[id^=\"chart-\"]')].map(div => ({"
    "id: div.id, drawn: div.querySelector('svg, canvas') !== null, "
    f"marks: div.querySelectorAll('{MARKS}').length}}))))()"
)


class ChromiumMissing(Exception):
    pass


def find_chromium(explicit: str | None = None) -> str:
    for name in (explicit,) if explicit else CHROMIUM_NAMES:
        path = shutil.which(name) if name else None
        if path:
            return path
    raise ChromiumMissing("Chromium is not installed (apt-get install -y chromium)")


# A minimal WebSocket client (RFC 6455): enough for the DevTools protocol on loopback ---------
class WebSocket:
    def __init__(self, url: str, timeout: float):
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        if not match:
            raise ValueError(f"not a ws:// URL: {url}")
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the connection during the handshake")
            response += chunk
        head, _, self.buffer = response.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(f"WebSocket handshake refused: {head.splitlines()[0]!r}")

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytearray([0x81])  # FIN + text frame
        if len(payload) < 126:
            header.append(0x80 | len(payload))
        elif len(payload) < 2**16:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        mask = os.urandom(4)  # a client must mask its frames
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if second & 0x80 else None
            data = self._read(length)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the WebSocket")
            if opcode in (0x9, 0xA):  # ping/pong: not used by DevTools, skip
                continue
            message += data
            if first & 0x80:  # FIN: the last fragment
                return message.decode()

    def close(self) -> None:
        self.sock.close()


class DevTools:
    """Send commands and collect events on one page target."""

    def __init__(self, url: str, timeout: float):
        self.ws = WebSocket(url, timeout)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


# The check -------------------------------------------------------------------------------------
def check_report(
    path: str | Path,
    chromium: str | None = None,
    timeout: float = 60.0,
    screenshot: str | Path | None = None,
    width: int = 1400,
    max_height: int = 16000,
) -> dict:
    """Open the report in headless Chromium; return what was seen (see `passed`). With `screenshot`, also save
    a PNG of the whole page as a reader sees it in a window `width` pixels wide."""
    index = Path(path)
    index = (index / "index.html" if index.is_dir() else index).resolve()
    if not index.is_file():
        raise FileNotFoundError(f"{index}: no such report page")
    binary = find_chromium(chromium)
    profile = tempfile.mkdtemp(prefix="iclscale-chromium-")
    process = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = _devtools_port(process, timeout)
        page = _page_target(port, timeout)
        tools = DevTools(page, timeout)
        for domain in ("Runtime", "Log", "Network", "Page"):
            tools.call(f"{domain}.enable")
        tools.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
        tools.call("Page.navigate", url=index.as_uri())
        charts = _wait_for_charts(tools, timeout)
        time.sleep(0.5)  # let late console messages arrive
        tools.evaluate("1")
        if screenshot is not None:
            _save_screenshot(tools, Path(screenshot), width, max_height)
        seen = _classify(tools.events)
        tools.ws.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)
    seen["charts"] = charts
    seen["page"] = str(index)
    seen["chromium"] = binary
    seen["passed"] = bool(charts) and all(c["drawn"] for c in charts) and not seen["errors"] and not seen["network"]
    return seen


def _save_screenshot(tools: DevTools, path: Path, width: int, max_height: int) -> None:
    """The whole page (not just the window), down to `max_height` pixels, as a PNG."""
    height = int(tools.evaluate("Math.ceil(document.documentElement.scrollHeight)") or 900)
    shot = tools.call(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=True,
        clip={"x": 0, "y": 0, "width": width, "height": min(height, max_height), "scale": 1},
    )
    path.write_bytes(base64.b64decode(shot["data"]))


def _devtools_port(process: subprocess.Popen, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            if process.poll() is not None:
                break
            continue
        lines.append(line)
        match = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
        if match:
            return int(match.group(1))
    raise RuntimeError("Chromium did not open its DevTools port:\n" + "".join(lines[-20:]))


def _page_target(port: int, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as response:
            targets = json.load(response)
        pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
        if pages:
            return pages[0]["webSocketDebuggerUrl"]
        time.sleep(0.2)
    raise RuntimeError("Chromium opened no page target")


def _wait_for_charts(tools: DevTools, timeout: float) -> list[dict]:
    """Poll until every chart container holds an svg/canvas (or the time is up)."""
    deadline = time.monotonic() + timeout
    charts: list[dict] = []
    while time.monotonic() < deadline:
        state = tools.evaluate("document.readyState")
        if state == "complete":
            charts = json.loads(tools.evaluate(COUNT_CHARTS) or "[]")
            if charts and all(c["drawn"] for c in charts):
                return charts
        time.sleep(0.25)
    return charts


def _classify(events: list[dict]) -> dict:
    errors, warnings, network = [], [], []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            if params.get("type") in ("error", "assert"):
                errors.append(f"console.{params['type']}: {text}")
            elif params.get("type") == "warning":
                warnings.append(f"console.warn: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            errors.append(f"uncaught: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") == "error":
                errors.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
            elif entry.get("level") == "warning":
                warnings.append(f"log ({entry.get('source')}): {entry.get('text')}")
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith(LOCAL_SCHEMES):
                network.append(url)
    return {"errors": errors, "warnings": warnings, "network": network}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a report directory (holding index.html) or the page itself")
    parser.add_argument("--chromium", help="the Chromium binary (default: the first of " + ", ".join(CHROMIUM_NAMES))
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the charts")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--screenshot", metavar="PNG", help="also save the whole page as a PNG")
    parser.add_argument("--width", type=int, default=1400, help="window width in pixels (default 1400)")
    parser.add_argument("--max-height", type=int, default=16000, help="the screenshot's height at most")
    args = parser.parse_args(argv)
    try:
        seen = check_report(args.report, args.chromium, args.timeout, args.screenshot, args.width, args.max_height)
    except ChromiumMissing as error:
        print(f"check_report_in_chromium: {error}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError, ConnectionError) as error:
        print(f"check_report_in_chromium: could not drive Chromium: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(seen, indent=1))
    else:
        drawn = sum(c["drawn"] for c in seen["charts"])
        print(f"page: {seen['page']}")
        print(f"charts drawn: {drawn} of {len(seen['charts'])} (marks: {sum(c['marks'] for c in seen['charts'])})")
        print(f"console errors: {len(seen['errors'])}, warnings: {len(seen['warnings'])}")
        print(f"network requests: {len(seen['network'])}")
        for line in seen["errors"] + seen["warnings"] + seen["network"]:
            print(f"  {line[:300]}")
        print("PASSED" if seen["passed"] else "FAILED")
    return 0 if seen["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
