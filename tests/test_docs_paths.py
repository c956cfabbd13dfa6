"""Every repository path the docs name exists: a path in docs/*.md, README.md, a README under iclscale/ or
examples/, or in the package's, tests' and benchmarks' docstrings and comments that starts with one of the
repository's folders (iclscale/, docs/, tests/, …) or one of the package's (analysis/, trainer/, …), and every
relative link of a markdown page. A file that moves leaves no stale pointer behind."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "iclscale"
FOLDERS = ("iclscale", "docs", "tests", "benchmarks", "scripts", "examples", "analysis", "trainer", "sweeps", "papers")
# a path: folder/…/name(.ext) or folder/…/ ; not inside a longer word, a URL or an absolute path
PATH = re.compile(rf"(?<![\w./~-])(?:\.\./)*(?:{'|'.join(FOLDERS)})/[\w./<>{{}}*-]*")
LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s#]+)")
PLACEHOLDER = re.compile(r"[<>{}*]|^[A-Z_]+(\.\w+)?$")  # <paper>, {name}, sweeps/*.yaml, sweeps/NAME.yaml
NOT_THE_REPOSITORY = {  # paths that are not this repository's, on purpose
    "tests/test_nothing_silent.py": {"iclscale/sweeps/x.yaml"},  # a checkout the test makes under tmp_path
    "iclscale/sweeps/spec.py": {"sweeps/demo.yaml"},  # a catalogue file's old place, which a message redirects
    "docs/writing-a-paper.md": {"sweeps/scalar_sgd_sigma.yaml"},  # the worked example's folder, drawn as a tree
    "tests/test_layering.py": {  # the planted tree the layering rules are shown to fail on, under tmp_path
        "benchmarks/b.py",
        "iclscale/papers/p",
        "iclscale/papers/p/laws.py",
        "iclscale/papers/q",
        "iclscale/papers/q/model.py",
        "tests/papers/q",
        "tests/papers/q/test_q.py",
    },
}


def pages() -> list[Path]:
    found = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *PACKAGE.rglob("README.md"), *ROOT.glob("examples/**/*.md")]
    found += [*PACKAGE.rglob("*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/**/*.py")]
    return sorted(p for p in found if "__pycache__" not in p.parts and p != Path(__file__).resolve())


def named_part(path: str) -> str:
    """The part of a path before its first placeholder (`iclscale/papers/<paper>/laws/` -> `iclscale/papers`)."""
    kept = []
    for part in path.rstrip(".,;:").split("/"):
        if PLACEHOLDER.search(part):
            break
        kept.append(part)
    return "/".join(kept)


def exists(page: Path, path: str) -> bool:
    """A path named in prose: beside the page, in a folder above it up to the root, or in the package."""
    bases = [page.parent, *page.parent.parents, PACKAGE]
    return any((base / path).exists() for base in bases if ROOT in (base, *base.parents))


def stale_paths(page: Path, text: str) -> list[str]:
    allowed = NOT_THE_REPOSITORY.get(page.relative_to(ROOT).as_posix(), set())
    named = [path for path in PATH.findall(text) if path not in allowed and not exists(page, named_part(path))]
    # a link is followed from the page itself, as a browser does
    links = [m.group(1) for m in LINK.finditer(text)] if page.suffix == ".md" else []
    return named + [link for link in links if not (page.parent / named_part(link)).exists()]


def test_every_repository_path_in_the_docs_exists():
    stale = {
        page.relative_to(ROOT).as_posix(): paths for page in pages() if (paths := stale_paths(page, page.read_text()))
    }
    assert stale == {}, "paths that do not exist (moved or renamed?)"


def test_the_check_sees_a_stale_path_and_passes_a_placeholder():
    page = ROOT / "docs" / "a-page.md"  # paths resolve from docs/
    text = (
        "see iclscale/studies/gone.py and [the design](design.md) and [gone](gone.md); analysis/law.py, "
        "[a link from the wrong folder](docs/design.md), "
        "iclscale/papers/<paper>/laws/, sweeps/*.yaml, docs/results/{name}.md, https://x.org/iclscale/nothing"
    )
    assert stale_paths(page, text) == ["iclscale/studies/gone.py", "gone.md", "docs/design.md"]
