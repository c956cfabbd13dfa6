#!/usr/bin/env python3
"""Check the claims ledger page (`iclscale ledger`) in headless Chromium, offline, and take a screenshot.

    python scripts/check_ledger_in_chromium.py ROOT/ledger [--screenshot ledger.png [--claim C24-C3]]

Drives Chromium as scripts/check_report_in_chromium.py does (its DevTools client; no host name resolves) and checks:
no console error, no request that is not file:/data:, one line per claim present, and the filters working — choosing
a paper, then a verdict, then typing into the search box (a law's name, a claim id), shows exactly the claims of
claims.json that match; claims not run are hidden unless the "show" box is ticked (unticked by default only in a
ledger of previews) or their verdict chosen. Exit status 0 when
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

ROWS = "document.querySelectorAll('details.claim').length"
SHOWN = "[...document.querySelectorAll('details.claim')].filter(r => r.style.display !== 'none').length"
SHOW_ALL = "document.getElementById('show-all').checked"


def tick(checked: bool) -> str:
    return (
        f"(() => {{ const s = document.getElementById('show-all'); s.checked = {json.dumps(checked)}; "
        "s.dispatchEvent(new Event('change')); return s.checked; })()"
    )


def search(text: str) -> str:
    return (
        f"(() => {{ const s = document.getElementById('search'); s.value = {json.dumps(text)}; "
        "s.dispatchEvent(new Event('input')); return s.value; })()"
    )


def matches(claim: dict, paper: str, verdict: str, text: str, show_all: bool) -> bool:
    """What the page must show: the paper, the verdict and every word of the text (over the paper, the claim's id,
    anchor and words, its verdict and its laws' names); a claim not run only when asked."""
    fields = [claim["paper_tag"], claim["paper"], claim["claim_id"], claim["anchor"], claim["claim"], claim["verdict"],
              *(law["name"] for law in claim["laws"]), *(e["law"] for e in claim["estimates"]),
              "carried" if claim.get("carried") else ""]  # fmt: skip
    haystack = " ".join(fields).lower()
    idle = claim["verdict"] in ("not run", "no law") and not show_all and verdict != claim["verdict"]
    return (
        (not paper or claim["paper_tag"] == paper)
        and (not verdict or claim["verdict"] == verdict)
        and all(word in haystack for word in text.lower().split())
        and not idle
    )


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
    claim: str = "",
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
            if claim:  # unfold the claim and its laws, and scroll its line to the top
                tools.evaluate(
                    f"(() => {{ const c = document.getElementById({json.dumps(claim)}); if (!c) return false; "
                    "c.open = true; c.querySelectorAll('details').forEach(d => d.open = true); "
                    "c.scrollIntoView(); window.scrollBy(0, -40); return true; })()"
                )
            shot = tools.call("Page.captureScreenshot", format="png")
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            result["screenshot"] = str(screenshot)
        result["show_all_default"] = tools.evaluate(SHOW_ALL)
        tag = claims[0]["paper_tag"]
        verdicts = sorted({c["verdict"] for c in claims if c["paper_tag"] == tag})
        ran = next((c for c in claims if c["estimates"]), claims[0])
        law = (ran["estimates"][0]["law"] if ran["estimates"] else ran["claim_id"]).split(".", 1)[-1]
        cases = [
            (tag, "", "", None),
            *((tag, v, "", None) for v in verdicts),
            ("", "", "", None),
            ("", "", law, None),
            ("", "", f"{ran['paper_tag']} {ran['claim_id']}", None),
            ("", "", law.upper(), True),
            ("", "", "", True),
            ("", "", "", False),
            ("", "not run", "", False),  # choosing "not run" shows those claims with the box unticked
        ]
        for paper, verdict, text, show_all in cases:
            if show_all is not None:
                tools.evaluate(tick(show_all))
            tools.evaluate(choose("paper", paper))
            tools.evaluate(choose("verdict", verdict))
            tools.evaluate(search(text))
            ticked = tools.evaluate(SHOW_ALL)
            expected = sum(matches(c, paper, verdict, text, ticked) for c in claims)
            result["filters"].append({"paper": paper, "verdict": verdict, "search": text, "show_all": ticked,
                                      "shown": tools.evaluate(SHOWN), "expected": expected})  # fmt: skip
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
    parser.add_argument("--claim", default="", help="unfold this claim on the screenshot (TAG-ID, e.g. C24-C3)")
    parser.add_argument("--chromium", help="the Chromium binary")
    args = parser.parse_args(argv)
    try:
        shot = Path(args.screenshot) if args.screenshot else None
        seen = check_ledger(
            Path(args.ledger), shot, args.chromium, paper=args.paper, verdict=args.verdict, claim=args.claim
        )
    except (ChromiumMissing, RuntimeError, OSError) as error:
        print(f"check_ledger_in_chromium: {error}", file=sys.stderr)
        return 2
    print(json.dumps(seen, indent=1))
    return 0 if seen["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
