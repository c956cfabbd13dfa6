"""What `iclscale train` prints of a trained config's final metrics, the answer first:

1. the paper's headline metrics the study declares (`Metric.headline`), each with its meaning;
2. the theorem conditions the config is outside of (`Metric.regime` flags at 0), said in words;
3. the other metrics, a family of FOLD_AT or more (`neuron_magnitude_#`: one per neuron, position, offset) folded
   into one line of its count, min, median and max (`--all` lists every one);
4. the metrics that are NaN, by family, with what their declaration says about when they are measured.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping

FOLD_AT = 4
MEANING_WIDTH = 100  # characters of a meaning printed beside a headline value


def metric_lines(info, metrics: Mapping[str, float], show_all: bool = False) -> list[str]:
    finite = {name: v for name, v in metrics.items() if not math.isnan(v)}
    declared = {name: info.metric(name) for name in metrics}
    headline_order = [m.name for m in info.metrics if m.headline]
    headline = sorted((n for n in finite if declared[n] and declared[n].headline), key=headline_order.index)
    width = max((len(n) for n in metrics), default=10) if show_all else 28
    lines = []
    if headline:
        lines.append("headline metrics:")
        lines += [f"  {n:<{width}} {finite[n]:<12.6g} {_short(declared[n].meaning)}" for n in headline]
    outside = [(n, declared[n].regime) for n in finite if declared[n] and declared[n].regime and finite[n] == 0]
    for name, regime in outside:
        lines.append(f"outside a theorem's conditions ({name} = 0): {regime}")
    rest = [n for n in finite if n not in headline]
    if rest:
        lines.append("other metrics" + ("" if show_all else " (families folded; --all lists each)") + ":")
        lines += _values(rest, finite, declared, width, show_all)
    missing = [n for n in metrics if n not in finite]
    if missing:
        lines.append("not measured for this config (NaN):")
        for family, names in _families(missing, declared).items():
            meaning = declared[names[0]].meaning if declared[names[0]] else "no meaning declared"
            shown = ", ".join(names) if show_all or len(names) < FOLD_AT else f"{family} ({len(names)} values)"
            lines.append(f"  {shown}: {meaning}")
    return lines


def _values(names, values, declared, width: int, show_all: bool) -> list[str]:
    if show_all:
        return [f"  {n:<{width}} {values[n]:.6g}" for n in names]
    lines = []
    for family, members in _families(names, declared).items():
        if len(members) < FOLD_AT:
            lines += [f"  {n:<{width}} {values[n]:.6g}" for n in members]
            continue
        found = [values[n] for n in members]
        lines.append(
            f"  {family:<{width}} {len(members)} values: min {min(found):.4g} · median {statistics.median(found):.4g}"
            f" · max {max(found):.4g}"
        )
    return lines


def _families(names, declared) -> dict[str, list[str]]:
    """Names grouped by the declaration that covers them (`neuron_magnitude_#`), in order; undeclared alone."""
    families: dict[str, list[str]] = {}
    for name in names:
        metric = declared[name]
        key = metric.name if metric is not None and ("#" in metric.name or "*" in metric.name) else name
        families.setdefault(key, []).append(name)
    return families


def _short(text: str) -> str:
    return text if len(text) <= MEANING_WIDTH else text[: MEANING_WIDTH - 1] + "…"
