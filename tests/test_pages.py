"""The pages' figures are their results' rendering (benchmarks/pages.py), and the check that
says so fails on each way a figure can drift."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PAGES = ROOT / "benchmarks" / "pages.py"

TEMPLATE = """# Figures

<!-- render
{% set run = result("run.json") %}
| method | Recall@10 |
|---|---|
| graphmem | {{ run.recall | f(".1f") }} |

Measured at {{ run | measured }}.
-->
<!-- /render -->
"""


def pages(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """benchmarks/pages.py run on a repository."""
    return subprocess.run(
        [sys.executable, str(PAGES), "--root", str(root), *arguments],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def git(root: Path, *arguments: str) -> str:
    """What git prints in a repository."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def write_result(root: Path, recall: float, commit: str, dirty: bool = False) -> None:
    """A result as provenance.py writes it, measured at `commit`."""
    result = {"provenance": {"commit": commit, "dirty": dirty}, "recall": recall}
    (root / "benchmarks" / "run.json").write_text(json.dumps(result))


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A repository whose benchmarks/README.md renders a result measured at its first commit."""
    (tmp_path / "benchmarks").mkdir()
    git(tmp_path, "init", "-q")
    (tmp_path / "code.py").write_text("print('measured')\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "code")
    write_result(tmp_path, 82.61, git(tmp_path, "rev-parse", "HEAD"))
    (tmp_path / "benchmarks" / "README.md").write_text(TEMPLATE)
    rendering = pages(tmp_path)
    assert rendering.returncode == 0, rendering.stderr
    return tmp_path


def test_the_pages_of_this_repository_are_their_rendering_from_results_of_its_history() -> None:
    checked = pages(ROOT, "--check")
    assert checked.stderr == ""
    assert checked.returncode == 0


def test_a_rendering_fills_the_block_and_a_check_then_passes(repository: Path) -> None:
    page = (repository / "benchmarks" / "README.md").read_text()
    commit = git(repository, "rev-parse", "--short=7", "HEAD")
    assert (
        f"-->\n| method | Recall@10 |\n|---|---|\n| graphmem | 82.6 |\n\nMeasured at {commit}.\n"
        in page
    )
    assert pages(repository, "--check").returncode == 0


def test_a_figure_changed_by_hand_or_a_result_changed_fails_the_check(repository: Path) -> None:
    page = repository / "benchmarks" / "README.md"
    rendered = page.read_text()
    page.write_text(rendered.replace("| graphmem | 82.6 |", "| graphmem | 82.7 |"))
    by_hand = pages(repository, "--check")
    assert by_hand.returncode == 1
    assert "benchmarks/README.md:13: differs from its rendering" in by_hand.stderr
    page.write_text(rendered)
    write_result(repository, 79.0, git(repository, "rev-parse", "HEAD"))
    assert "differs from its rendering" in pages(repository, "--check").stderr
    assert pages(repository).returncode == 0  # rendered again
    assert "| graphmem | 79.0 |" in page.read_text()


def test_a_figure_in_prose_or_in_a_templates_words_fails_the_check(repository: Path) -> None:
    page = repository / "benchmarks" / "README.md"
    rendered = page.read_text()
    page.write_text(rendered + "\nIt leads bm25 by 4.2 (a run outside the repository).\n")
    in_prose = pages(repository, "--check")
    assert "'4.2' in prose" in in_prose.stderr
    page.write_text(rendered.replace("Measured at {{", "Measured in 12 minutes at {{"))
    assert "'12 minutes' written in a template" in pages(repository).stderr
    page.write_text(rendered + "\nRun it as `--budget 1.5`, in [code](a-1.5.md).\n")
    assert pages(repository, "--check").returncode == 0  # code and links are no prose


def test_a_result_measured_off_history_or_with_changes_fails_the_check(repository: Path) -> None:
    head = git(repository, "rev-parse", "HEAD")
    git(repository, "checkout", "-q", "-b", "elsewhere")
    (repository / "code.py").write_text("print('changed')\n")
    git(repository, "commit", "-q", "-am", "elsewhere")
    elsewhere = git(repository, "rev-parse", "HEAD")
    git(repository, "checkout", "-q", "-")
    write_result(repository, 82.61, elsewhere)
    off_history = pages(repository, "--check")
    assert f"benchmarks/run.json: measured at {elsewhere}, not a commit of HEAD's" in (
        off_history.stderr
    )
    write_result(repository, 82.61, head, dirty=True)
    assert "measured with uncommitted changes" in pages(repository, "--check").stderr
    (repository / "benchmarks" / "run.json").write_text(json.dumps({"recall": 82.61}))
    assert "run.json: no provenance" in pages(repository, "--check").stderr
