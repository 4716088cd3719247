"""The Chinese README keeps step with the English one: the same code and the same concepts."""

import re
from pathlib import Path

from .conftest import ROOT

CODE_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
CONCEPT = re.compile(r"^\| ([a-z -]+) \| ([\u4e00-\u9fff]+) \|", re.MULTILINE)
"""A row of the concepts table: the English term and the seed's."""


def without_comments(code: str) -> str:
    """Code without its comment lines and trailing comments (which are translated)."""
    kept = []
    for line in code.splitlines():
        statement = line.split("  # ", 1)[0].rstrip()
        if not statement.lstrip().startswith("#"):
            kept.append(statement)
    return "\n".join(kept)


def code_blocks(path: Path) -> list[tuple[str, str]]:
    """Each code block of a Markdown file: its language and its code without comments."""
    return [
        (language, without_comments(code))
        for language, code in CODE_BLOCK.findall(path.read_text(encoding="utf-8"))
    ]


def test_the_chinese_readme_has_the_english_code() -> None:
    english = code_blocks(ROOT / "README.md")
    chinese = code_blocks(ROOT / "README.zh-CN.md")
    assert len(chinese) >= 2  # the two commands and the Python API at least
    assert chinese == english[: len(chinese)]


def test_the_chinese_readme_has_the_english_concepts() -> None:
    english = CONCEPT.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    chinese = CONCEPT.findall((ROOT / "README.zh-CN.md").read_text(encoding="utf-8"))
    assert len(english) >= 13
    assert chinese == english


def test_the_readmes_stay_short() -> None:
    # What graphmem is, the two commands, a tour and links: the manual lives in docs/.
    for name in ("README.md", "README.zh-CN.md"):
        assert len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= 250, name
