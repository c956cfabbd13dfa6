#!/usr/bin/env python3
"""Check the claims ledger page (`iclscale ledger`) in headless Chromium, offline, and take a screenshot.

    python scripts/check_ledger_in_chromium.py ROOT/ledger [--screenshot ledger.png]

Drives Chromium as scripts/check_report_in_chromium.py does (its DevTools client; no host name resolves) and checks:
no console error, no request that is not file:/data:, every claim row present, and the filters working — choosing
a paper, then a verdict, shows exactly the rows of claims.json with that paper and verdict. Exit status 0 when
every check passed, 1 when one failed, 2 when Chromium is missing or could not be driven.
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_report_in_chromium import (
    CHROMIUM_FLAGS,
    ChromiumMissing,
    DevTools,
    _classify,
    _devtools_port,
    _page_target,
    find_chromium,
)

ROWS = "document.querySelectorAll('tr.claim').length"
SHOWN = "[...document.querySelectorAll('tr.claim')].filter(r => r.style.display !== 'none').length"


def choose(select: str, value: str) -> str:
    return (
        f"(() => {{ const s = document.getElementById('{select}'); s.value = {json.dumps(value)}; "
        "s.dispatchEvent(new Event('change')); return s.value; })()"
    )


def check_ledger(
    folder: Path,
    screenshot: Path | None,
    chromium: str | None = None,
    timeout: float = 60.0,
    paper: str = "",
    verdict: str = "",
) -> dict:
    index = (folder / "index.html").resolve()
    claims = json.loads((folder / "claims.json").read_text(encoding="utf-8"))["claims"]
    binary = find_chromium(chromium)
    profile = tempfile.mkdtemp(prefix="iclscale-chromium-")
    process = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, "--window-size=1500,1100", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    result: dict = {"page": str(index), "chromium": binary, "filters": []}
    try:
        tools = DevTools(_page_target(_devtools_port(process, timeout), timeout), timeout)
        for domain in ("Runtime", "Log", "Network", "Page"):
            tools.call(f"{domain}.enable")
        tools.call("Page.navigate", url=index.as_uri())
        deadline = time.monotonic() + timeout
        while tools.evaluate("document.readyState") != "complete" and time.monotonic() < deadline:
            time.sleep(0.2)
        result["rows"] = tools.evaluate(ROWS)
        if screenshot is not None:
            tools.evaluate(choose("paper", paper))  # the screenshot shows these claims ("": all)
            tools.evaluate(choose("verdict", verdict))
            shot = tools.call("Page.captureScreenshot", format="png")
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            result["screenshot"] = str(screenshot)
        tag = claims[0]["paper_tag"]
        verdicts = sorted({c["verdict"] for c in claims if c["paper_tag"] == tag})
        for paper, verdict in [(tag, ""), *((tag, v) for v in verdicts), ("", "")]:
            tools.evaluate(choose("paper", paper))
            tools.evaluate(choose("verdict", verdict))
            expected = sum((not paper or c["paper_tag"] == paper) and (not verdict or c["verdict"] == verdict)
                           for c in claims)  # fmt: skip
            result["filters"].append({"paper": paper, "verdict": verdict, "shown": tools.evaluate(SHOWN),
                                      "expected": expected})  # fmt: skip
        time.sleep(0.3)
        tools.evaluate("1")
        result.update(_classify(tools.events))
        tools.ws.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)
    result["passed"] = (
        result["rows"] == len(claims)
        and all(f["shown"] == f["expected"] for f in result["filters"])
        and not result["errors"]
        and not result["network"]
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger", help="the ledger folder (index.html and claims.json)")
    parser.add_argument("--screenshot", help="write a PNG of the page's first screen here")
    parser.add_argument("--paper", default="", help="filter the screenshot to this paper's tag (e.g. L24)")
    parser.add_argument("--verdict", default="", help="filter the screenshot to this verdict (e.g. inconsistent)")
    parser.add_argument("--chromium", help="the Chromium binary")
    args = parser.parse_args(argv)
    try:
        shot = Path(args.screenshot) if args.screenshot else None
        seen = check_ledger(Path(args.ledger), shot, args.chromium, paper=args.paper, verdict=args.verdict)
    except (ChromiumMissing, RuntimeError, OSError) as error:
        print(f"check_ledger_in_chromium: {error}", file=sys.stderr)
        return 2
    print(json.dumps(seen, indent=1))
    return 0 if seen["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
