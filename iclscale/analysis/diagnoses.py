"""Why claims do not reproduce, gathered from the catalogue: the diagnoses kept with each claim (iclscale.analysis.law's
Diagnosis), counted per category and paper, and written as the markdown the READMEs hold: the counts in the
project's README, each paper's list in its folder's README (`iclscale laws --diagnoses` prints them all;
scripts/readme_diagnoses.py writes them in; a test holds each README's copy equal to it)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from iclscale.analysis.catalogue import PAPERS
from iclscale.analysis.law import DIAGNOSIS_CATEGORIES, Claim, Diagnosis, render_estimates
from iclscale.paper import REPOSITORY, papers

BEGIN, END = "<!-- diagnoses: {} -->", "<!-- /diagnoses: {} -->"  # markers around a generated README block
COUNTS_BLOCK = "counts"


def paper_key(citation: str) -> str:
    """The short name of the paper of this citation in the README's markers: its seed, e.g. 'seed 001' (its tag for
    a paper with no seed)."""
    paper = next(p for p in papers() if p.citation == citation)
    return f"seed {paper.seed}" if paper.seed else paper.tag


def claims_of(paper: str) -> tuple[Claim, ...]:
    return PAPERS[paper][1].claims


def diagnoses_of_law(name: str) -> list[tuple[Claim, Diagnosis]]:
    """Every diagnosis that explains the verdict of the law `name`, with its claim."""
    return [(claim, d) for _, record in PAPERS.values() for claim in record.claims for d in claim.diagnoses_of(name)]


def counts() -> dict[str, dict[str, int]]:
    """{paper: {category: number of diagnoses}} over every category (zeros included)."""
    table = {}
    for paper in PAPERS:
        row = dict.fromkeys(DIAGNOSIS_CATEGORIES, 0)
        for claim in claims_of(paper):
            for d in claim.diagnoses:
                row[d.category] += 1
        table[paper] = row
    return table


def counts_markdown() -> str:
    """The table of diagnoses per category and paper, with the claims each paper has and how many carry one."""
    categories = list(DIAGNOSIS_CATEGORIES)
    head = ["paper", "claims", "diagnosed", *(f"`{c}`" for c in categories)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    columns = ["claims", "diagnosed", *categories]
    total = dict.fromkeys(columns, 0)
    for paper, row in counts().items():
        claims = claims_of(paper)
        cells = {"claims": len(claims), "diagnosed": sum(bool(c.diagnoses) for c in claims), **row}
        total = {k: total[k] + cells[k] for k in total}
        lines.append(f"| {paper} | " + " | ".join(str(cells[k]) for k in columns) + " |")
    lines.append("| all | " + " | ".join(str(total[k]) for k in columns) + " |")
    legend = "; ".join(f"`{k}`: {v}" for k, v in DIAGNOSIS_CATEGORIES.items())
    return "\n".join(lines) + f"\n\nA claim may carry several diagnoses (one per law or reading). {legend}."


COMMITTED_LEDGER = REPOSITORY / "docs" / "results" / "claims.json"


@functools.cache
def committed_estimates() -> dict[tuple[str, str], list[dict]]:
    """The committed ledger's estimate rows by (paper, claim label): the values a README's diagnoses render their
    `{estimate:…}` references from, so that a README never holds a number the ledger did not make."""
    if not COMMITTED_LEDGER.is_file():
        return {}
    claims = json.loads(COMMITTED_LEDGER.read_text(encoding="utf-8"))["claims"]
    return {(c["paper"], c["claim_id"]): c["estimates"] for c in claims}


def claims_markdown(paper: str) -> str:
    """One line per diagnosed claim of the paper: its label, source, and each diagnosis with its evidence (cited
    numbers rendered from the committed ledger)."""
    lines = []
    for claim in claims_of(paper):
        estimates = committed_estimates().get((paper, claim.label))
        for d in claim.diagnoses:
            laws = f" (`{'`, `'.join(name.split('.', 1)[-1] for name in d.laws)}`)" if d.laws else ""
            evidence = render_estimates(d.evidence, estimates)
            lines.append(f"- {claim.label} ({claim.source}) — **{d.category}**{laws}: {evidence}")
    return "\n".join(lines) or "- no claim carries a diagnosis"


def blocks() -> dict[str, str]:
    """Every generated README block by its marker name: the counts, then each paper's per-claim list."""
    return {COUNTS_BLOCK: counts_markdown(), **{paper_key(p): claims_markdown(p) for p in PAPERS}}


def readme_of(name: str) -> Path | None:
    """The README that holds the block `name`: the counts in the project's, a paper's list in its folder's
    (beside its sweeps/); None for a paper installed from outside the repository, whose README is its own."""
    if name == COUNTS_BLOCK:
        return REPOSITORY / "README.md"
    paper = next(p for p in papers() if paper_key(p.citation) == name)
    folder = paper.sweeps.resolve().parent
    return folder / "README.md" if folder.is_relative_to(REPOSITORY) else None


def wrapped(name: str, text: str) -> str:
    return f"{BEGIN.format(name)}\n{text}\n{END.format(name)}"


def readme_block(readme: str, name: str) -> str | None:
    """The text between a block's markers in the README; None where the markers are missing."""
    begin, end = BEGIN.format(name), END.format(name)
    if begin not in readme or end not in readme:
        return None
    return readme.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def markdown() -> str:
    """All blocks, each between its markers, as `iclscale laws --diagnoses` prints them."""
    return "\n\n".join(wrapped(name, text) for name, text in blocks().items())
