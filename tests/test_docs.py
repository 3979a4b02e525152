"""The documentation: the site builds with MkDocs ``--strict``, and every link in the Markdown
files of the repository leads somewhere.

The strict build fails on a link to a missing page or anchor, and on a page left out of the
navigation, so it is the site's link checker. The Markdown outside the site (the README,
deploy/, web/, the clients' READMEs) is read on GitHub: each relative link must name a file of
the repository, and each ``#anchor`` a heading of the file it points into (GitHub's slugs).
Links off the machine (``https://``) are not fetched: tests stay on loopback.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from engine_service.devtools import api_reference

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE_THE_SITE = [
    ROOT / "README.md",
    ROOT / "deploy" / "README.md",
    ROOT / "web" / "README.md",
    *sorted((ROOT / "clients").glob("*/README.md")),
]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to ``-``.

    >>> github_slug("Live play (`WatchGame`)")
    'live-play-watchgame'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (code blocks skipped)."""
    found, fenced = set(), False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := HEADING.match(line)):
            found.add(github_slug(match.group(1)))
    return found


def broken_links(path: Path) -> list[str]:
    """Every relative link of ``path`` that names no file, or no heading of its file."""
    broken = []
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        for target in [] if fenced else LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto: ... not fetched
            name, _, anchor = target.partition("#")
            file = (path.parent / name).resolve() if name else path
            if not file.exists():
                broken.append(f"{path.relative_to(ROOT)}:{number}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{path.relative_to(ROOT)}:{number}: {target} (no such heading)")
    return broken


@pytest.mark.parametrize("path", OUTSIDE_THE_SITE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(path: Path) -> None:
    assert broken_links(path) == []


def test_the_documentation_site_builds_strictly(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("reference.md"))
    (docs / "reference.md").write_text(api_reference.markdown(api_reference.load_files()))
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config |= {"docs_dir": str(docs), "site_dir": str(tmp_path / "site")}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    pages = {p.relative_to(docs).with_suffix("") for p in docs.rglob("*.md")}
    assert all(
        (tmp_path / "site" / page / "index.html").exists() or page.name == "index" for page in pages
    )


def test_the_api_reference_covers_every_method_and_message() -> None:
    page = api_reference.markdown(api_reference.load_files())
    for method in ("SubmitAction", "WatchGame", "ListGameTypes", "RematchGame"):
        assert f"| `{method}` |" in page
    assert "### Team {#cardenginev1team}" in page
    assert "map<string, string>" in page  # labels, as a map, not as an entry message
