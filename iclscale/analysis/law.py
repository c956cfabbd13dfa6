"""What a law is: a paper's claim, stated so that a results directory can be checked against it.

A law names its study, the measure (one number per run, `iclscale.analysis.measures`), the swept variable x, the
predicted value of a statistic as a point or a band, the citation, the conditions in words and, where the
theorem states them on the params, as a predicate (`Regime`), and its *kind*: how the statistic is computed
from the rows (a strategy from `iclscale.analysis.kinds`: a power law's exponent, a bound on seed-means, a threshold
crossing, a monotone trend, …). The prediction may depend on the group (on d and the task class, say), so it
is a function `predict(params) -> Prediction` of the params that are constant within the group.

`iclscale.analysis.evaluate` runs every law through one skeleton: select the rows, split them into groups, set aside
the points outside the regime, let the kind estimate its statistic, judge it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

# re-exported: a paper's laws import the condition kinds with Law and Regime
from iclscale.analysis.conditions import (  # noqa: F401
    CONDITION_KINDS,
    CONSTANTS,
    EXPLICIT,
    HIDDEN_CONSTANT,
    MEASURED,
    Condition,
)
from iclscale.analysis.derived import ingredients, symbol
from iclscale.analysis.measures import Measure
from iclscale.analysis.verdict import INSIDE, OVERLAP, Band, VerdictRule

if TYPE_CHECKING:
    import pandas as pd

    from iclscale.analysis.kinds import Kind
    from iclscale.analysis.lawfit import LawFit
    from iclscale.analysis.reader import Results


@dataclass(frozen=True)
class Hypothesis:
    """A predicted value of a law's statistic, with where it comes from."""

    name: str
    band: Band
    source: str  # the paper's theorem/equation, or "not from the paper: why"
    mode: str | None = None  # verdict mode for this hypothesis; None: the law's rule's mode


@dataclass(frozen=True)
class Prediction:
    """The law's prediction for one group: the primary hypothesis decides the verdict; the
    alternatives (other readings of the paper) are judged the same way and shown beside it."""

    primary: Hypothesis
    alternatives: tuple[Hypothesis, ...] = ()


def exponent_prediction(
    point: float, source: str, bound: Band, bound_source: str, *, name: str = "", bound_name: str = ""
) -> Prediction:
    """A theorem's exponent as the primary hypothesis (a point), and its bound reading beside it: a theorem that
    gives a T that suffices bounds the exponent rather than fixing it. Both are judged in overlap mode (a point
    has no inside). `name`, `bound_name`: the labels reports show; by default "exponent +0.5" and "bound reading
    [a, b]"."""
    return Prediction(
        Hypothesis(name or f"exponent {point:+.3g}", Band.point(point), source, OVERLAP),
        (Hypothesis(bound_name or f"bound reading {bound.describe()}", bound, bound_source, OVERLAP),),
    )


@dataclass(frozen=True)
class Regime:
    """A theorem's conditions as data. `conditions` label each condition explicit, hidden-constant or measured
    on the run (`Condition`); `inside(rows)` is a predicate on the params (a boolean per row, read as explicit);
    `flags` are 0/1 metrics that must be 1 for every seed of a config (conditions on the measured value itself,
    e.g. the oracle's w* ≥ d + √d); `measured` a predicate computed from the runs' curves (a metric at t = 0, over
    a phase). Points outside are left out of the verdict, counted and drawn grey; a sweep with no point inside
    gets "outside the theorem's conditions", not a verdict. `epsilon`: the ε the law measures at, where a
    condition depends on it (shown in every reason)."""

    text: str
    inside: Callable[[pd.DataFrame], Any] | None = None
    flags: tuple[str, ...] = ()
    # conditions on measured quantities the runs table does not hold (a metric at t = 0, its largest value over
    # a phase): measured(results, rows) -> a boolean per row, counted like the flags (every seed of a config)
    measured: Callable[[Results, pd.DataFrame], Any] | None = None
    conditions: tuple[Condition, ...] = ()
    epsilon: float | None = None

    @classmethod
    def of(cls, source: str, conditions: tuple[Condition, ...], epsilon: float | None = None, note: str = ""):
        """A regime of labelled conditions, its text made from them: "[L24] Thm 3.3: m ≥ M1² ln M1 [hidden
        constant]; …; ε = 0.1"."""
        parts = [c.describe() for c in conditions]
        if epsilon is not None:
            parts.append(f"ε = {epsilon:g} (the ε the law measures at)")
        hidden = any(c.kind == HIDDEN_CONSTANT for c in conditions)
        constants = f" (hidden constants taken as {CONSTANTS:g}: not from the paper)" if hidden else ""
        text = f"{source}: {'; '.join(parts)}{constants}" + (f"; {note}" if note else "")
        return cls(text, conditions=conditions, epsilon=epsilon)

    def of_kind(self, kind: str) -> tuple[Condition, ...]:
        return tuple(c for c in self.conditions if c.kind == kind)

    def on_params(self, rows: pd.DataFrame, constants: float = CONSTANTS):
        """Whether each row meets the conditions on the params (explicit ones, and hidden-constant ones at the
        given value of the constants); conditions measured on the run are not read here."""
        import numpy as np

        ok = np.ones(len(rows), dtype=bool)
        if self.inside is not None:
            ok &= np.asarray(self.inside(rows), dtype=bool)
        for condition in self.of_kind(EXPLICIT):
            ok &= np.asarray(condition.test(rows), dtype=bool)
        for condition in self.of_kind(HIDDEN_CONSTANT):
            ok &= np.asarray(condition.test(rows), dtype=float) >= constants
        return ok


STRONGER, WEAKER, OTHER_READING = "stronger", "weaker", "another reading"


@dataclass(frozen=True)
class VersusPrinted:
    """How a law departs from the statement the paper printed: `stronger` (it asks more of the data than the
    paper claims: a tight exponent for a bound, an aggregate for a "constant fraction", a constant of 1 for a
    Θ(·)) or `weaker` (it asks less: a direction for an exponent, a one-sided bound for a two-sided one). A law
    that judges the printed statement has none; `another reading` marks a law kept beside the one that judges the
    printed statement (e.g. read at a fixed time instead of the paper's T*). Shown by `iclscale laws` and the
    report."""

    relation: str  # STRONGER, WEAKER or OTHER_READING
    why: str  # one sentence: what the paper printed and what the law judges instead

    def __post_init__(self):
        if self.relation not in (STRONGER, WEAKER, OTHER_READING):
            raise ValueError(
                f"VersusPrinted.relation must be {STRONGER!r}, {WEAKER!r} or {OTHER_READING!r}, not {self.relation!r}"
            )

    def describe(self) -> str:
        return f"{self.relation} than printed: {self.why}"


@dataclass(frozen=True)
class Law:
    name: str  # "<study>.<claim>", e.g. my_study.exponent_vs_n
    study: str  # the study whose results it reads
    claim: str  # one sentence
    citation: str  # paper, theorem, equation
    conditions: str  # when the theory applies, in words
    prediction_text: str  # the prediction in words, for `iclscale laws`
    measure: Measure
    x: str | None  # a param or a derived variable of its study (iclscale.analysis.derived); None: no swept variable
    predict: Callable[[Mapping[str, Any]], Prediction | None]
    kind: Kind
    group_by: tuple[str, ...] = ()
    where: Mapping[str, tuple] = field(default_factory=dict)  # param -> allowed values
    row_filter: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    one_row_per_run: bool = True  # eval-independent measures: one row per config, eval params ignored
    regime: Regime | None = None
    pool: tuple[str, ...] = ()  # params that vary by design but are never grouped (e.g. Fig 5's task class)
    rule: VerdictRule = field(default_factory=VerdictRule)
    # the negative control (iclscale.analysis.controls): params where the study's control config lies outside this
    # law's conditions or lacks what it reads (a tuple: a param's levels), or why the law can have none
    control_params: Mapping[str, Any] = field(default_factory=dict)
    no_control: str = ""
    versus_printed: VersusPrinted | None = None  # None: the law judges the statement as the paper printed it
    # the lines that built it, "file:line", from its Law(...) out to module level (construction_lines); `iclscale
    # laws` shows one of them (iclscale.analysis.laws.definition_sites)
    built_at: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self):
        if not self.built_at:  # dataclasses.replace passes it on: a relabelled law stays where it was built
            object.__setattr__(self, "built_at", construction_lines())

    @property
    def axes(self) -> tuple[str, ...]:
        """Params the law varies (never grouped)."""
        return self.kind.axes(self)

    @property
    def x_label(self) -> str:
        return self.kind.x_label(self)

    @property
    def x_symbol(self) -> str:
        """x as chart axes name it."""
        return self.kind.x_symbol(self)

    def evaluate(self, results: Results, experiment: Experiment | None = None) -> list[LawFit]:
        from iclscale.analysis.evaluate import evaluate

        return evaluate(self, results, experiment)

    def describe(self) -> str:
        where = ", ".join(f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in self.where.items())
        lines = [
            f"{self.name}  ({self.kind.name}, study {self.study})",
            f"  claim:      {self.claim}",
            f"  measure:    {self.measure.describe()}" + (f"  vs  x = {self.x_label}" if self.x else ""),
            f"  prediction: {self.prediction_text}",
            f"  source:     {self.citation}",
            f"  conditions: {self.conditions}",
        ]
        if self.regime is not None:
            lines.append(f"  regime:     {self.regime.text} (points outside are left out of the verdict)")
        if where or self.group_by:
            lines.append(f"  rows:       {where or 'all'}; fitted per {', '.join(self.group_by) or 'group'}")
        from iclscale.analysis.controls import plan

        lines.append(f"  control:    {plan(self).describe()}")
        if self.versus_printed is not None:
            lines.append(f"  vs printed: {self.versus_printed.describe()}")
        return "\n".join(lines)


_FRAMEWORK = str(Path(__file__).resolve().parent)  # iclscale/analysis: its helpers build laws for papers
_DATACLASSES = {"<string>", dataclasses.__file__}  # a dataclass's generated __init__, and replace()


@functools.cache
def _shown(path: str) -> str:
    from iclscale.paper import shown

    return shown(Path(path))


def construction_lines(depth: int = 8) -> tuple[str, ...]:
    """The lines of the paper's code that are building a law, "file:line", innermost first: its `Law(...)`, the
    builder calls around it, out to the module-level statement (a table's row, `LAWS = tuple(...)`); just the first
    where no module level is within `depth` frames (a law built at run time, a test's).

    Read from the caller frames at construction: a Law instance has no source for `inspect` to find, and the
    innermost line alone is often a builder's one `return Law(...)`, the same for every law it builds (75 laws
    are built so, their names made by f-strings that no grep finds)."""
    frame, lines = sys._getframe(1), []
    while frame is not None and len(lines) < depth:
        path = frame.f_code.co_filename
        if path not in _DATACLASSES and not path.startswith((_FRAMEWORK, "<frozen ")):
            lines.append(f"{_shown(path)}:{frame.f_lineno}")
            if frame.f_code.co_name == "<module>":
                return tuple(lines)
        frame = frame.f_back
    return tuple(lines[:1])


def default_axes(law: Law) -> tuple[str, ...]:
    return tuple(ingredients(law.x, law.study)) if law.x else ()


def default_symbol(law: Law) -> str:
    return symbol(law.x, law.study) if law.x else ""


def inside_rule(**overrides) -> VerdictRule:
    """The verdict rule for inequality claims (the interval must lie inside the band)."""
    return VerdictRule(mode=INSIDE, **overrides)


# Why a claim does not reproduce (issue 23): every claim with a law whose verdict on the catalogue's sweeps is not
# "consistent" carries at least one diagnosis, kept beside the claim.
DIAGNOSIS_CATEGORIES = {
    "paper": "a gap in the proof, or a statement impossible in the paper's own model",
    "regime": "the data lie outside the theorem's conditions",
    "reading": "the verdict depends on an ambiguity of the paper; both readings are run and shown",
    "budget": "not testable at practical sizes (e.g. batch bounds dominated by ε⁻²)",
    "open": "not explained",
}


@dataclass(frozen=True)
class Diagnosis:
    """Why (part of) a claim does not reproduce: a category of DIAGNOSIS_CATEGORIES and one sentence of
    evidence (numbers measured by the catalogue's sweeps, or a computation in the paper's own model). `laws`
    names the claim's laws whose verdicts it explains; empty: all of them."""

    category: str
    evidence: str
    laws: tuple[str, ...] = ()

    def __post_init__(self):
        if self.category not in DIAGNOSIS_CATEGORIES:
            raise ValueError(
                f"Diagnosis.category must be one of {', '.join(DIAGNOSIS_CATEGORIES)}, not {self.category!r}"
            )
        if not self.evidence.strip():
            raise ValueError("Diagnosis.evidence is empty: give one sentence of evidence")

    def describe(self, estimates: list[dict] | None = None) -> str:
        """The diagnosis as one line; its `{estimate:LAW}` references rendered from `estimates` (the ledger's rows
        for the claim) or, without them, left for the reader to find in the ledger."""
        laws = f" [{', '.join(name.split('.', 1)[-1] for name in self.laws)}]" if self.laws else ""
        return f"{self.category}{laws}: {render_estimates(self.evidence, estimates)}"


# A diagnosis cites a measured number by naming the ledger quantity, never by copying it: `{estimate:LAW}` or
# `{estimate:LAW|WORDS}` (WORDS: the space-separated words every cited row's group or sweep must contain).
ESTIMATE_REFERENCE = re.compile(r"\{estimate:(?P<law>[\w.]+)(?:\|(?P<where>[^}]*))?\}")


def estimate_references(text: str) -> list[tuple[str, str]]:
    """The (law, words) each `{estimate:…}` in the text names."""
    return [(m["law"], (m["where"] or "").strip()) for m in ESTIMATE_REFERENCE.finditer(text)]


def cited_rows(estimates: list[dict], law: str, where: str = "") -> list[dict]:
    """The ledger rows an `{estimate:LAW|WORDS}` reference names: the law by its full or short name, every word
    of WORDS in the row's group or sweep; a `key=value` word names a whole setting of the group, so that alpha=0
    does not also cite alpha=0.1."""

    def named(e: dict) -> bool:
        group = e.get("group") or ""
        settings, text = set(group.split(", ")), f"{group} {e.get('sweep', '')}"
        return all((w in settings) if "=" in w else (w in text) for w in where.split())

    return [e for e in estimates if law in (e["law"], e["law"].split(".", 1)[-1]) and named(e)]


def render_estimates(text: str, estimates: list[dict] | None) -> str:
    """Each `{estimate:…}` replaced by the cited rows' estimate and interval ("x [low, high]", one per row,
    each row's group and sweep beside it where several match); without rows, by where to read it."""

    def value(match: re.Match) -> str:
        law, where = match["law"], (match["where"] or "").strip()
        if estimates is None:
            return f"(the ledger's estimate of {law.split('.', 1)[-1]}{f' at {where}' if where else ''})"
        cited = cited_rows(estimates, law, where)
        rows = [r for r in cited if r["estimate"] is not None]
        if not rows:
            verdicts = ", ".join(sorted({r["verdict"] for r in cited if r.get("verdict")}))
            return f"no estimate of {law.split('.', 1)[-1]} in this run{f' ({verdicts})' if verdicts else ''}"
        shown = [f"{_g(r['estimate'])} [{_g(r['ci_low'])}, {_g(r['ci_high'])}]" for r in rows]
        if len(rows) == 1:
            return shown[0]
        return "; ".join(f"{s} ({r.get('group') or 'all'}, {r['sweep']})" for s, r in zip(shown, rows, strict=True))

    return ESTIMATE_REFERENCE.sub(value, text)


def _g(x) -> str:
    return "—" if x is None else f"{x:.3g}"  # an estimate without an interval (e.g. a search's ratio)


@dataclass(frozen=True)
class Experiment:
    """The paper's own experiment behind a claim tied to a figure or table, judged beside the theorem's law: the
    catalogue sweep at the paper's stated settings (`sweep`; its file's header lists the settings the paper does
    not state and the values chosen), the laws that judge what the paper says of its figure (`laws`: evaluated on
    every point, whatever the theorem's conditions, which are counted and reported as the experiment's regime
    status, with c*), and what the paper says of its figure (`quote`, the paper's words)."""

    figure: str  # e.g. "Fig. 6 (right)"
    sweep: str  # a catalogue sweep's name
    laws: tuple[str, ...]
    quote: str

    def __post_init__(self):
        if not self.laws or not self.quote.strip():
            raise ValueError(f"Experiment {self.figure}: give the laws that judge it and the paper's words (quote)")

    def describe(self) -> str:
        return f"{self.figure}, sweep {self.sweep}: “{self.quote}”"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, and the laws that test it (a catalogue module lists every claim of its paper,
    so `iclscale laws` shows what is covered), with the diagnosis of every part of it that does not reproduce."""

    label: str  # e.g. "C1"
    source: str  # theorem, figure, equation
    text: str
    laws: tuple[str, ...]
    diagnoses: tuple[Diagnosis, ...] = ()
    experiment: Experiment | None = None  # the paper's own figure or table, judged beside the theorem

    def __post_init__(self):
        stray = [name for d in self.diagnoses for name in d.laws if name not in self.laws]
        if stray:
            raise ValueError(f"claim {self.label}: a diagnosis names laws the claim does not list: {', '.join(stray)}")
        short = {name.split(".", 1)[-1] for name in self.laws} | set(self.laws)
        cited = [law for d in self.diagnoses for law, _ in estimate_references(d.evidence) if law not in short]
        if cited:
            raise ValueError(
                f"claim {self.label}: a diagnosis cites the estimate of laws the claim does not list: "
                f"{', '.join(cited)}"
            )

    def diagnoses_of(self, law: str) -> tuple[Diagnosis, ...]:
        """The diagnoses that explain this law's verdict (those naming it, and those naming no law)."""
        return tuple(d for d in self.diagnoses if law in self.laws and (not d.laws or law in d.laws))


def with_diagnoses(claims: tuple[Claim, ...], diagnoses: Mapping[str, tuple[Diagnosis, ...]]) -> tuple[Claim, ...]:
    """The claims with the diagnoses given per claim label added (a catalogue may keep them apart from its
    claim list); a label that names no claim is an error."""
    from dataclasses import replace

    unknown = set(diagnoses) - {claim.label for claim in claims}
    if unknown:
        raise ValueError(f"diagnoses for unknown claims: {', '.join(sorted(unknown))}")
    return tuple(replace(c, diagnoses=(*c.diagnoses, *diagnoses.get(c.label, ()))) for c in claims)
