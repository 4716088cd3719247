"""`graphmem demo`: the story of graphmem.demo_story played on a store, then plotted.

The story prints each step as it goes and keeps each tracked memory's attention as it changed;
a plot of that attention over the simulated time ends the demo (matplotlib, the extra
graphmem[demo], imported by this module alone).
"""

import bisect
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from graphmem.config import Settings
from graphmem.demo_story import (
    ATTENTION,
    LANGUAGES,
    START,
    TIERS,
    Change,
    Demo,
    Phrases,
    Trace,
    tell,
)
from graphmem.errors import ConfigurationError, InvalidInputError
from graphmem.mechanisms.attention import decay
from graphmem.memory import GraphMem

if TYPE_CHECKING:
    from matplotlib.axes import Axes

DEMO_OWNER = "demo-user"
END = START + timedelta(days=215)
"""Where the plot ends: a day after the last sleep job."""
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
    "SimHei",
    "Noto Sans CJK JP",
)
"""Fonts with Chinese characters that the plot uses if matplotlib finds one, best first."""
LABELLED = ("recalled", "woken", "sleep job", "contradicted in sleep")
"""The causes of change that the plot names."""


def default_language(environment: Mapping[str, str]) -> str:
    """The demo's language for the locale (LC_ALL, LC_MESSAGES, LANG): zh if Chinese, else en."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environment.get(name):
            return "zh" if environment[name].lower().startswith("zh") else "en"
    return "en"


def where(settings: Settings, say: Phrases) -> str:
    """Which store the demo writes to, as its header names it."""
    if settings.store == "neo4j":
        return say(
            "neo4j at {uri}, database {database}",
            uri=settings.neo4j_uri,
            database=settings.neo4j_database,
        )
    if settings.path is None:
        return say("networkx, in memory only (pass --path FILE to keep it)")
    return say("networkx in {path}", path=settings.path)


@dataclass(frozen=True)
class Curve:
    """A trace's attention parts sampled over a stretch of time."""

    times: list[datetime]
    long_term: list[float]
    short_term: list[float]

    @property
    def total(self) -> list[float]:
        """Attention: the sum of both parts."""
        return [a + b for a, b in zip(self.long_term, self.short_term, strict=True)]


def sampled(trace: Trace, start: datetime, end: datetime, every: timedelta) -> Curve:
    """A trace's attention parts from `start` to `end` at steps of `every`, and around changes.

    Each change is sampled a second before it and at it, so a jump is drawn as a jump.
    """
    start = max(start, trace.changes[0].at)
    moments = {start + every * number for number in range(int((end - start) / every) + 1)}
    for change in trace.changes[1:]:
        if start < change.at <= end:
            moments |= {change.at - timedelta(seconds=1), change.at}
    starts = [change.at for change in trace.changes]
    curve = Curve(sorted(moments), [], [])
    for at in curve.times:
        attention = trace.changes[bisect.bisect_right(starts, at) - 1].attention
        curve.long_term.append(
            decay(attention.long_term, attention.long_term_at, at, ATTENTION.long_term_half_life)
        )
        curve.short_term.append(
            decay(attention.short_term, attention.short_term_at, at, ATTENTION.short_term_half_life)
        )
    return curve


@dataclass(frozen=True)
class Label:
    """A change the plot names, and whether the name goes left of it."""

    change: Change
    text: str
    left: bool


def labels(trace: Trace, start: datetime, end: datetime, say: Phrases) -> list[Label]:
    """The changes from `start` to `end` the plot names, a run of one cause named once, at its end.

    A run is a sequence of changes of one cause less than a day apart; its name goes on the left
    (above the steps of the run), as does a name in the last fifth of the time.
    """
    runs: list[list[Change]] = []
    for change in trace.changes[1:]:
        if not start < change.at <= end or change.cause not in LABELLED:
            continue
        if (
            runs
            and runs[-1][-1].cause == change.cause
            and (change.at - runs[-1][-1].at < timedelta(days=1))
        ):
            runs[-1].append(change)
        else:
            runs.append([change])
    late = start + 0.8 * (end - start)
    return [
        Label(
            run[-1],
            say(run[0].cause) + (f" ×{len(run)}" if len(run) > 1 else ""),
            len(run) > 1 or run[-1].at > late,
        )
        for run in runs
    ]


def days(at: datetime) -> float:
    """A simulated time as the plot's x: days since START."""
    return (at - START) / timedelta(days=1)


def ticks(axes: "Axes", moments: list[datetime], style: str) -> None:
    """Mark these times on the x axis, labelled in a strftime style."""
    axes.set_xticks([days(at) for at in moments], labels=[f"{at:{style}}" for at in moments])


def draw(axes: "Axes", curve: Curve, named: list[Label]) -> None:
    """Draw a curve's two parts stacked, their sum, the tier floors and the named changes."""
    total = curve.total
    x = [days(at) for at in curve.times]
    axes.fill_between(x, 0, curve.long_term, color="tab:blue", alpha=0.3, linewidth=0)
    axes.fill_between(x, curve.long_term, total, color="tab:orange", alpha=0.7, linewidth=0)
    axes.plot(x, total, color="black", linewidth=0.8)
    for floor in TIERS.floors:
        axes.axhline(floor, color="grey", linestyle=":", linewidth=0.8)
    for label in named:
        index = curve.times.index(label.change.at)
        axes.annotate(
            label.text,
            (days(label.change.at), max(total[index], total[index - 1])),
            xytext=(-3 if label.left else 3, 3),
            textcoords="offset points",
            horizontalalignment="right" if label.left else "left",
            fontsize=7,
        )


def enlarge(
    axes: "Axes", trace: Trace, start: datetime, end: datetime, *, top: float, say: Phrases
) -> None:
    """Draw a stretch of a trace enlarged, in an inset of its axes that names every change."""
    inset = axes.inset_axes((0.4, 0.22, 0.34, 0.72))
    draw(inset, sampled(trace, start, end, timedelta(minutes=1)), labels(trace, start, end, say))
    inset.set_xlim(days(start), days(end))
    inset.set_ylim(0, top)
    inset.tick_params(labelsize=6)
    half_hours = int((end - start) / timedelta(minutes=30)) + 1
    ticks(inset, [start + timedelta(minutes=30 * number) for number in range(half_hours)], "%H:%M")
    inset.set_title(say("{day}, enlarged", day=f"{start:{say('%b %d')}}"), fontsize=7)
    axes.indicate_inset_zoom(inset, edgecolor="grey")


def write_plot(traces: list[Trace], path: Path, say: Phrases) -> Phrases | None:
    """Plot each trace's attention over the simulated time to a PNG; None without matplotlib.

    The plot is titled in the demo's language if matplotlib finds a font that shows it (one of
    CJK_FONTS for Chinese), else in English; it returns the phrases it was titled with.
    """
    try:
        import matplotlib  # noqa: PLC0415 (an optional extra: graphmem[demo])
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    from matplotlib import font_manager  # noqa: PLC0415

    fonts = list(plt.rcParams["font.sans-serif"])
    if say.language == "zh":
        installed = {font.name for font in font_manager.fontManager.ttflist}
        chinese = [name for name in CJK_FONTS if name in installed]
        say = say if chinese else Phrases("en")
        fonts = chinese[:1] + fonts
    with plt.rc_context({"font.family": "sans-serif", "font.sans-serif": fonts}):
        draw_plot(traces, path, say)
    return say


def draw_plot(traces: list[Trace], path: Path, say: Phrases) -> None:
    """Draw the plot of write_plot with matplotlib, its titles in the language of `say`."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 (an optional extra: graphmem[demo])

    curves = [sampled(trace, START, END, timedelta(hours=2)) for trace in traces]
    top = 1.15 * max(max(curve.total) for curve in curves)
    figure, rows = plt.subplots(
        len(traces), 1, figsize=(10, 1.9 * len(traces) + 0.8), sharex=True, sharey=True
    )
    for axes, trace, curve in zip(rows, traces, curves, strict=True):
        named = labels(trace, START, END, say)
        if trace.zoom is not None:
            start, end = trace.zoom
            enlarge(axes, trace, start, end, top=top, say=say)
            named = [label for label in named if not start < label.change.at <= end]
        draw(axes, curve, named)
        for tier, floor in enumerate(TIERS.floors):
            axes.text(
                1.005,
                floor,
                f"T{tier} ≥ {floor:g}",
                transform=axes.get_yaxis_transform(),
                fontsize=7,
                color="grey",
                va="center",
            )
        axes.set_title(say(trace.name), fontsize=9, loc="left")
        axes.set_ylim(0, top)
        axes.set_ylabel(say("attention"), fontsize=8)
    rows[0].legend(
        [
            say("long-term part (half-life 30 days)"),
            say("short-term part (half-life 12 hours)"),
            say("attention"),
        ],
        fontsize=7,
        loc="upper right",
    )
    months = range(START.month, END.month + 1)
    ticks(rows[-1], [datetime(START.year, month, 1, tzinfo=UTC) for month in months], say("%b %Y"))
    figure.suptitle(
        say("graphmem demo: attention of {count} memories over simulated months", count=len(traces))
    )
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def run_demo(
    settings: Settings,
    out: TextIO,
    plot: Path,
    *,
    owner: str = DEMO_OWNER,
    language: str = "en",
) -> None:
    """Play the demo conversation as `owner`, step by step, then plot attention over time.

    The store must hold nothing of `owner` yet. The cognition and the embedder are the offline
    ones whatever the settings say, so that every run prints the same figures. `language` is
    one of LANGUAGES: en (English) or zh (Chinese).
    """
    if language not in LANGUAGES:
        raise InvalidInputError(
            f"the demo speaks {' and '.join(sorted(LANGUAGES))}, not {language[:40]!r}"
        )
    say = Phrases(language)
    started = time.perf_counter()
    offline = settings.model_copy(update={"cognition": "offline", "embedder": "e5"})
    with GraphMem.open(offline) as memory:
        if owner in memory.owners():
            raise ConfigurationError(
                f"the store already holds memories of {owner}, and the demo starts from"
                " nothing: use a fresh --path (or none), another Neo4j database, or first"
                f" graphmem forget-owner --owner {owner} --yes"
            )
        demo = Demo(memory, owner, out, say)
        demo.line(say("graphmem demo: seven months with one user, played in simulated time"))
        demo.line(say("store: {store}; owner {owner}", store=where(settings, say), owner=owner))
        demo.line(
            say(
                "cognition: offline rules; embeddings: e5 on the CPU; no network, same figures"
                " each run"
            )
        )
        demo.line(
            say("att = attention label 0-10 (the memory's importance); T0-T3 = tier, hot to deep")
        )
        tell(demo)
    demo.line()
    try:
        titled = write_plot(list(demo.traces.values()), plot, say)
    except OSError as error:
        raise InvalidInputError(f"cannot write the plot to {plot}: {error.strerror}") from None
    except ValueError as error:  # matplotlib knows no such image format
        raise InvalidInputError(f"cannot write the plot to {plot}: {error}") from None
    if titled is None:
        demo.line(
            say("the plot of attention over time needs matplotlib: pip install 'graphmem[demo]'")
        )
    else:
        demo.line(say("plot of attention over time: {plot}", plot=plot))
        if titled != say:
            demo.wrapped(
                say(
                    "  (titled in English: matplotlib found no font with Chinese characters;"
                    " install one, e.g. apt install fonts-noto-cjk, and run again)"
                )
            )
    demo.line(say("done in {seconds:.1f} s", seconds=time.perf_counter() - started))
