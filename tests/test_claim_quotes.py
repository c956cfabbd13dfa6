"""Every claim of every paper carries the paper's own words (iclscale/papers/<paper>/laws/quotes.yaml), and each
quote is found in the paper's text (its parts in order, where "…" leaves words out): ../shared/seeds/<seed>_*.txt
from the repository root, or the nearest ancestor's shared/seeds (skipped, saying why, where there is none). Both
sides are normalised first: unicode (NFKC, and the UTF-8-read-as-cp1252 mojibake of one text repaired), hyphenation
at line ends, whitespace, case and punctuation."""

import re
import unicodedata
from pathlib import Path

import pytest

from iclscale.paper import by_citation as papers

ROOT = Path(__file__).resolve().parents[1]
# ../shared/seeds beside the repository (in CI); a git worktree of it sits one level deeper, so the nearest
# ancestor holding shared/seeds counts
SEEDS = next(
    (p / "shared" / "seeds" for p in ROOT.parents if (p / "shared" / "seeds").is_dir()),
    ROOT.parent / "shared" / "seeds",
)
QUOTE_LIMIT = 300  # characters: a quote is the claim's sentence, not a passage
GAP = 600  # normalised characters a "…" may leave out


def normalised(text: str) -> str:
    if "â€" in text:  # a UTF-8 text decoded as cp1252 somewhere upstream: undo it
        text = text.encode("cp1252", errors="ignore").decode("utf-8", errors="ignore")
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)  # "learn-\ning" -> "learning"
    text = re.sub(r"(\w)- (\w)", r"\1\2", text)  # the same, after the extraction joined the lines
    return "".join(ch for ch in text.lower() if ch.isalnum())


def found_in(quote: str, text: str) -> bool:
    """Whether the quote's parts (split at "…") occur in the normalised text in order, each part at most
    GAP characters after the previous one."""
    start = None
    for part in filter(None, (normalised(p) for p in quote.split("…"))):
        at = text.find(part, 0 if start is None else start)
        if at < 0 or (start is not None and at - start > GAP):
            return False
        start = at + len(part)
    return start is not None


def paper_text(seed: str) -> str:
    found = sorted(SEEDS.glob(f"{seed}_*.txt"))
    assert found, f"no text of seed {seed} in {SEEDS}"
    return normalised(found[0].read_text(encoding="utf-8"))


def test_the_normalisation_joins_hyphenated_words_and_repairs_mojibake():
    assert normalised("in-con-\ntext learn- ing, Θ(1)") == normalised("incontext learning, Θ(1)")
    assert normalised("transformersâ€™ training") == normalised("transformers’ training")
    assert normalised("a b") != normalised("a c")


def test_a_quote_with_an_ellipsis_is_found_part_by_part_in_order():
    text = normalised("The window shrinks with L. Proof garbled €%. Hence it grows with n.")
    assert found_in("The window shrinks … it grows with n.", text)
    assert not found_in("it grows with n … The window shrinks", text)
    assert not found_in("The window widens", text)


def test_every_claim_has_a_short_quote():
    missing = [f"{p.tag} {c.label}" for p in papers() for c in p.load_laws().claims if not p.quotes().get(c.label)]
    assert missing == [], f"claims without the paper's words: {', '.join(missing)}"
    long = [f"{p.tag} {k}" for p in papers() for k, q in p.quotes().items() if len(q) > QUOTE_LIMIT]
    assert long == [], f"quotes over {QUOTE_LIMIT} characters: {', '.join(long)}"
    stray = [f"{p.tag} {k}" for p in papers() for k in p.quotes() if k not in {c.label for c in p.load_laws().claims}]
    assert stray == [], f"quotes of no claim: {', '.join(stray)}"


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the papers' texts are not here ({SEEDS} is absent)")
def test_every_quote_is_found_in_its_paper():
    checked, not_found = 0, []
    for paper in papers():
        text = paper_text(paper.seed)
        for label, quote in paper.quotes().items():
            checked += 1
            if not found_in(quote, text):
                not_found.append(f"{paper.tag} {label}: {quote[:80]!r}")
    assert not_found == [], f"{len(not_found)} of {checked} quotes not found in the paper: " + "; ".join(not_found)
    assert checked == sum(len(p.load_laws().claims) for p in papers())
