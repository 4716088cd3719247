"""The pages' figures, rendered from the benchmarks' committed results.

    python benchmarks/pages.py            # render every block of every page in place
    python benchmarks/pages.py --check    # say what differs from its rendering, change nothing

A page holds each figure inside a block: a Jinja template in an HTML comment, then what it
renders, then an end marker.

    <!-- render
    {% set run = result("locomo-networkx.json") %}
    | method | Recall@10 |
    |---|---|
    | graphmem | {{ run.methods.graphmem.ALL["recall@10"] | f(".1f") }} |
    -->
    | method | Recall@10 |
    |---|---|
    | graphmem | 82.6 |
    <!-- /render -->

`result(name)` reads `benchmarks/NAME` (the JSON a script wrote through `provenance.py`), `f` is
Python's format, `measured` the short commit a result was measured at (`measured_at(*names)` several
results' commits, each once), and `{% filter wrapped %}...{% endfilter %}` fills an English
paragraph to lines of 100 characters. Both commands fail (exit 1) when a page differs from its
rendering, a block cites a result whose commit is not one of HEAD's or that was measured with
uncommitted changes, or a figure is quoted outside a block: on benchmarks/README.md (any page under
benchmarks/) anywhere in its prose, elsewhere in a paragraph that cites benchmarks/. A figure is a
decimal number, a percentage, or a number with a unit of time.
"""

import argparse
import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

ROOT = Path(__file__).resolve().parent.parent
FIGURES_PAGES = "benchmarks/"
"""The pages of figures (benchmarks/README.md): every figure in their prose is in a block."""

BLOCK = re.compile(r"<!-- render\n(?P<template>.*?)\n-->\n(?P<output>.*?)<!-- /render -->", re.S)
FIGURE = re.compile(
    r"(?<![\w.^-])(?:\d[\d,]*\.\d+(?!\.?\w)|\d[\d,]*(?:\.\d+)?(?:\s?%|\s?(?:ms|s|minutes|hours)\b))"
)
"""A figure in prose: 82.6, 9%, 12.5 ms, 29 s, 12 minutes (not a version such as 2026.08.1)."""

NOT_PROSE = re.compile(
    r"```.*?```"  # fenced code
    r"|`[^`\n]*`"  # inline code
    r"|\]\([^)]*\)"  # a link's target
    r"|<!--.*?-->",  # a comment
    re.S,
)
TEMPLATE_CODE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


class PageError(Exception):
    """A page that cannot be rendered: a template error or a result it cannot read."""


@dataclass
class Results:
    """The results the blocks cite, each read once."""

    root: Path
    read: dict[str, Any] = field(default_factory=dict)

    def result(self, name: str) -> Any:
        """The JSON benchmarks/NAME."""
        if name not in self.read:
            path = self.root / "benchmarks" / name
            try:
                self.read[name] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise PageError(f"cannot read benchmarks/{name}: {error}") from None
        return self.read[name]

    def measured_at(self, *names: str) -> str:
        """The commits these results were measured at, each once, in order."""
        return ", ".join(dict.fromkeys(measured(self.result(name)) for name in names))


def measured(result: dict[str, Any]) -> str:
    """The short commit a result was measured at; "(stated)" if the script did not record it."""
    origin = result.get("provenance")
    if not origin:
        return "not recorded"  # and the check says so
    return str(origin["commit"])[:7] + ("" if origin.get("recorded", True) else " (stated)")


def formatted(value: Any, spec: str = "") -> str:
    """A value in Python's format spec, as `{value:spec}`."""
    return format(value, spec)


def wrapped(text: str, width: int = 100) -> str:
    """Prose filled to lines of `width`, as the pages' paragraphs are, ending its last line."""
    return textwrap.fill(" ".join(text.split()), width, break_on_hyphens=False) + "\n"


def environment(results: Results) -> jinja2.Environment:
    """Jinja set up for pages: strict about names, no HTML escaping, blocks trimmed."""
    jinja = jinja2.Environment(  # noqa: S701 (Markdown, not HTML: nothing to escape)
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    jinja.globals["result"] = results.result
    jinja.globals["measured_at"] = results.measured_at
    jinja.filters["f"] = formatted
    jinja.filters["measured"] = measured
    jinja.filters["wrapped"] = wrapped
    return jinja


def line_of(text: str, offset: int) -> int:
    """The line number of an offset."""
    return text.count("\n", 0, offset) + 1


def rendered(page: str, text: str, results: Results) -> str:
    """The page with every block's output rendered again from its template."""
    jinja = environment(results)
    parts, last = [], 0
    for block in BLOCK.finditer(text):
        try:
            output = jinja.from_string(block["template"]).render().strip("\n")
        except (jinja2.TemplateError, PageError, KeyError, TypeError, ValueError) as error:
            where = f"{page}:{line_of(text, block.start())}"
            raise PageError(f"{where}: {type(error).__name__}: {error}") from None
        parts += [text[last : block.start("output")], output + "\n" if output else ""]
        last = block.end("output")
    return "".join([*parts, text[last:]])


def blanked(hidden: re.Match[str]) -> str:
    """What a match covers, as spaces in its lines: hidden, with offsets kept."""
    return re.sub(r"[^\n]", " ", hidden[0])


def figures_outside_blocks(page: str, text: str) -> Iterator[str]:
    """Figures quoted outside the blocks: in prose, or in a template's own words."""
    for block in BLOCK.finditer(text):
        words = TEMPLATE_CODE.sub(" ", block["template"])
        for figure in FIGURE.finditer(NOT_PROSE.sub(" ", words)):
            yield f"{page}:{line_of(text, block.start())}: {figure[0]!r} written in a template"
    prose = NOT_PROSE.sub(blanked, BLOCK.sub(blanked, text))  # offsets as in the text
    for paragraph in re.finditer(r"(?:[^\n]*\S[^\n]*\n?)+", prose):
        cites = (
            page.startswith(FIGURES_PAGES)
            or "benchmarks/" in text[paragraph.start() : paragraph.end()]
        )
        if not cites:
            continue
        for figure in FIGURE.finditer(paragraph[0]):
            line = line_of(prose, paragraph.start() + figure.start())
            yield f"{page}:{line}: {figure[0]!r} in prose: render it from a result, or drop it"


def provenance_problems(root: Path, cited: dict[str, Any]) -> Iterator[str]:
    """Cited results measured at no commit of HEAD's, or with uncommitted changes."""
    for name, result in sorted(cited.items()):
        origin = result.get("provenance") if isinstance(result, dict) else None
        if not origin:
            yield f"benchmarks/{name}: no provenance: rerun its script, which records it"
            continue
        if origin.get("dirty"):
            yield f"benchmarks/{name}: measured with uncommitted changes at {origin['commit']}"
        ancestor = subprocess.run(  # noqa: S603 (git with our own arguments, no shell)
            ["git", "merge-base", "--is-ancestor", origin["commit"], "HEAD"],  # noqa: S607
            cwd=root,
            capture_output=True,
            check=False,
        )
        if ancestor.returncode != 0:
            yield f"benchmarks/{name}: measured at {origin['commit']}, not a commit of HEAD's"


def pages(root: Path) -> list[Path]:
    """The pages that may quote figures: the README, its translation, docs/ and benchmarks/."""
    return [
        root / "README.md",
        *sorted(root.glob("README.*.md")),
        *sorted((root / "docs").glob("*.md")),
        root / "benchmarks" / "README.md",
    ]


def render_pages(root: Path, write: bool, chosen: list[Path]) -> list[str]:
    """Render the pages (all if none chosen); write the changed ones or name them; the problems."""
    results = Results(root)
    problems = []
    for path in chosen or pages(root):
        if not path.exists():
            continue
        page = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        try:
            new = rendered(page, text, results)
        except PageError as error:
            problems.append(str(error))
            continue
        if new != text:
            if write:
                path.write_text(new, encoding="utf-8")
                print(f"rendered {page}")
            else:
                first = next(
                    number
                    for number, (old, now) in enumerate(
                        zip([*text.splitlines(), ""], [*new.splitlines(), ""], strict=False), 1
                    )
                    if old != now
                )
                problems.append(
                    f"{page}:{first}: differs from its rendering (python benchmarks/pages.py)"
                )
        problems += figures_outside_blocks(page, new)
    problems += provenance_problems(root, results.read)
    return problems


def main() -> None:
    """Render the pages, or check them; exit 1 naming each problem."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing, say what differs")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this)")
    parser.add_argument("pages", type=Path, nargs="*", help="these pages only (default: all)")
    arguments = parser.parse_args()
    root = arguments.root.resolve()
    chosen = [page.resolve() for page in arguments.pages]
    problems = render_pages(root, write=not arguments.check, chosen=chosen)
    for problem in problems:
        print(problem, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
