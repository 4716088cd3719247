"""`graphmem demo` as a newcomer runs it: every step's mechanism shows, on both stores alike."""

import io
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphmem import demo
from graphmem.config import Settings
from graphmem.demo_story import columns
from graphmem.errors import InvalidInputError
from graphmem.memory import GraphMem

from .conftest import ROOT, Neo4jServer, clean_env

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Played:
    """What one run of the demo printed, and where it wrote its plot."""

    output: str
    plot: Path


def run_demo(
    *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", "demo", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The demo through the command line, on the embedded store kept in a file."""
    folder = tmp_path_factory.mktemp("embedded")
    plot = folder / "plot.png"
    done = run_demo(
        "--path", str(folder / "graph.json"), "--plot", str(plot), "--lang", "en", env=clean_env()
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return Played(done.stdout, plot)


@pytest.fixture(scope="module")
def in_chinese(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The demo told in Chinese, in process on the embedded store in memory.

    No font with Chinese characters is looked for (the plot is titled in English), so that the
    output does not depend on the fonts of the machine.
    """
    plot = tmp_path_factory.mktemp("zh") / "plot.png"
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo, "CJK_FONTS", ("No Such Font",))
        demo.run_demo(Settings(), out, plot, language="zh")
    return Played(out.getvalue(), plot)


@pytest.fixture(scope="module")
def on_neo4j(
    neo4j_server: Neo4jServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Played]:
    """The demo in process on the shared Neo4j, as an owner of its own (forgotten afterwards)."""
    settings = Settings(
        store="neo4j", neo4j_uri=neo4j_server.uri, neo4j_password=neo4j_server.password
    )
    owner = f"demo-{uuid.uuid4().hex[:12]}"
    plot = tmp_path_factory.mktemp("neo4j") / "plot.png"
    out = io.StringIO()
    try:
        demo.run_demo(settings, out, plot, owner=owner)
        yield Played(out.getvalue(), plot)
    finally:
        with GraphMem.open(settings) as memory:
            memory.forget(owner)


def step(output: str, number: int) -> str:
    """The lines of one numbered step."""
    return output.split(f"\n{number}. ", 1)[1].split("\n\n", 1)[0]


def line_with(text: str, fragment: str) -> str:
    """The one line of a text that holds a fragment."""
    [found] = [line for line in text.splitlines() if fragment in line]
    return found


def label_and_tier(text: str, message: str, label: str = "att") -> tuple[float, int]:
    """The attention label and tier printed for a stored message."""
    found = re.search(label + r" +([\d.]+) T(\d)  " + re.escape(message), text)
    assert found is not None, message
    return float(found[1]), int(found[2])


def beliefs(line: str) -> tuple[float, float]:
    """The first "before → after" pair of belief figures in a line."""
    found = re.search(r"(\d\.\d\d) → (\d\.\d\d)", line)
    assert found is not None, line
    return float(found[1]), float(found[2])


DECIMAL = re.compile(r"\d+\.\d+")


def assert_same_but_rounding(line: str, expected: str) -> None:
    """The same line, each printed decimal within one unit of its last digit.

    Neo4j's vector index computes cosine in float32, the embedded store in float64: a score may
    fall on either side of a rounding boundary, never further apart.
    """
    assert DECIMAL.sub("#", line) == DECIMAL.sub("#", expected), (line, expected)
    for number, other in zip(DECIMAL.findall(line), DECIMAL.findall(expected), strict=True):
        unit = 10.0 ** -len(number.split(".")[1])
        assert abs(float(number) - float(other)) <= unit * 1.001, (line, expected)


def comparable(output: str) -> list[str]:
    """The output without the lines that name the store, the plot's path and the time taken."""
    return [
        line
        for line in output.splitlines()
        if not line.startswith(("store: ", "plot of attention over time: ", "done in "))
    ]


@dataclass(frozen=True)
class Told:
    """What the demo prints in one language at each step, where each mechanism shows."""

    label: str
    milk: str
    passed_on: str
    alone: str
    fever: str
    before_note: str
    throat: str
    cold: str
    evoked: str
    made: str
    travel: str
    next_event: str
    sunk: str
    recipe: str
    recipe_cells: str
    missed: str
    reached: str
    gained: str
    stamp: str
    """A regular expression for the start of a timed line."""
    kind: str
    happy: str
    contradicts: str
    allergy: str
    mood: str
    kind_now: str
    cold_then: str


ENGLISH = Told(
    label="att",
    milk="There's half a glass of milk on the table.",
    passed_on='  shares "milk", so it passes on 0.85 × 8.8 = 7.5',
    alone="for a user with no such memory: 2.0 (no salience cue), T2",
    fever='recall "I started having a fever"\n',
    before_note="rel = cosine",
    throat="My throat is sore and I've felt tired al…",
    cold='impression "The user has a cold": belief 0.00 → 0.72',
    evoked='↳ impression "The user has a cold"',
    made=": a conjecture, returned by observe",
    travel="travel event",
    next_event='NEXT from "We arrived at Disneyland today, t…": its last news came 186 days',
    sunk="memories per tier T0/T1/T2/T3 10/9/0/0 → 2/0/0/18",
    recipe="Grandma's dumpling recipe uses pork…  ",
    # woken as a neighbour three times, then recalled itself by "pork dumplings" (Q4)
    recipe_cells="0.0 T3 1.5 T2+ 3.0 T1+ 4.5 T1+ 10.5 T0*",
    missed="was in T3, below the tiers searched: not found",
    reached="was in T0, within the tiers searched: found",
    gained="the recipe gained 1.50 short-term as a neighbour",
    stamp=r"   \w{3} \d\d-\d\d",
    kind='→ conjecture "The user is a kind person" (belief 0.72), returned by observe',
    happy="I got promoted and I'm so happy at work.",
    contradicts='CONTRADICTS "I got promoted and I\'m so happy a…"',
    allergy='allergy: milk: "I\'m allergic to milk: even a little gives me hives."',
    mood='mood at work: "I feel anxious every Sunday evening before work."',
    kind_now='conjecture "The user is a kind person" (belief 0.71, fades 2027-04-03)',
    cold_then='conjecture "The user has a cold"',
)
CHINESE = Told(
    label="关注",
    milk="桌上有喝了一半的牛奶。",
    passed_on='  共有 "牛奶"，因此传递 0.85 × 8.8 = 7.5',
    alone="对没有这条记忆的用户：2.0（没有显著性线索），T2",
    fever='回忆 "我开始发烧了"\n',
    before_note="相关 = 余弦",
    throat="我喉咙痛，一下午都觉得很累。",
    cold='印象 "用户感冒了"：信念 0.00 → 0.72',
    evoked='↳ 印象 "用户感冒了"',
    made="：成为猜想，由 observe 返回",
    travel="旅行事件",
    next_event='NEXT 来自 "我们今天到了迪士尼，孩子们很喜欢…"：它最后的消息在 186 天前',
    sunk="各层记忆数 T0/T1/T2/T3 10/9/0/0 → 2/0/0/18",
    recipe="奶奶的饺子配方用猪肉、韭菜和姜。  ",
    # woken as a neighbour by each of the four thoughts, from the deep tier to the hot one
    recipe_cells="0.0 T3 1.9 T2+ 3.8 T1+ 5.6 T0+ 7.5 T0+",
    missed="在 T3，低于搜索的层：没找到",
    reached="在 T0，在搜索的层：找到",
    gained="每一次，配方作为被用到记忆的邻居获得短期关注 1.88",
    stamp=r"   周. \d\d-\d\d",
    kind='→ 猜想 "用户是个善良的人"（信念 0.72），由 observe 返回',
    happy="我升职了，工作上特别开心。",
    contradicts='CONTRADICTS "我升职了，工作上特别开心。"',
    allergy='过敏（牛奶）："我对牛奶过敏，喝一点就会起疹子。"',
    mood='工作心情："每个周日晚上想到上班我就焦虑。"',
    kind_now='猜想 "用户是个善良的人"（信念 0.71，2027-04-03 淡去）',
    cold_then='猜想 "用户感冒了"',
)


def cells(row: str) -> list[float | str]:
    """A row of "attention tier" cells, attention as a number (the last digit may differ with
    the CPU that runs e5: the recipe is woken by what its embedding finds)."""
    return [float(cell) if cell[0].isdigit() else cell for cell in row.split()]


def check_steps(output: str, told: Told = ENGLISH) -> None:
    """Each step of the demo shows its mechanism in what it prints."""
    labelling = step(output, 1)
    label, tier = label_and_tier(labelling, told.milk, label=told.label)
    assert label >= 7
    assert tier == 0
    assert told.passed_on in labelling
    assert told.alone in labelling

    fever = step(output, 2)
    recall = fever.split(told.fever, 1)[1].split(told.before_note, 1)[0]
    rows = [line for line in recall.splitlines() if re.match(r" +\d\.\d{3} ", line)]
    assert told.throat in rows[0]  # first: the fever implies the cold the sore throat made
    assert told.evoked in recall.split(rows[1], 1)[0]
    assert line_with(fever, told.cold).endswith(told.made)

    events = step(output, 3)
    trips = [line for line in events.splitlines() if told.travel in line]
    assert len(trips) == 2
    storyline = events.split(trips[0], 1)[1].splitlines()[1:4]
    assert [line.strip()[:10] for line in storyline] == ["2026-03-09", "2026-03-10", "2026-03-11"]
    assert told.next_event in events
    assert told.sunk in events

    wake = step(output, 4)
    recipe = line_with(wake, told.recipe)
    assert cells(" ".join(recipe.split()[-10:])) == pytest.approx(
        cells(told.recipe_cells), abs=0.11
    )
    assert told.missed in wake
    assert told.reached in wake
    assert told.gained in wake

    impressions = step(output, 5)
    hints = [line for line in impressions.splitlines() if re.match(told.stamp, line)]
    growth = [beliefs(line) for line in hints]
    assert len(growth) == 10
    assert all(before < after for before, after in growth)
    assert [after >= 0.7 for _before, after in growth] == [False] * 9 + [True]
    assert impressions.endswith(told.kind)

    consolidation = step(output, 6)
    [happy] = [line for line in consolidation.splitlines() if told.happy in line and "→" in line]
    before, after = beliefs(happy)
    assert before == 0.80 > after  # contradicted: it lost belief, and is kept
    contradictions = [line for line in consolidation.splitlines() if '" CONTRADICTS "' in line]
    assert contradictions
    assert all(line.endswith(told.contradicts) for line in contradictions)

    # The profile on day 2 holds the cold; on day 214 the allergy, the latest mood at work and
    # kindness, and no longer the cold, whose belief has faded.
    profile = step(output, 7)
    then, now = profile.split(told.allergy)[1:3]
    assert told.cold_then in then
    assert told.mood in now
    assert told.kind_now in now
    assert told.cold_then not in now


def check_plot(plot: Path) -> None:
    """The plot is a PNG of a plausible size."""
    data = plot.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert 20_000 < len(data) < 2_000_000


def test_the_demo_shows_every_mechanism_on_the_embedded_store(embedded: Played) -> None:
    check_steps(embedded.output)
    check_plot(embedded.plot)
    assert f"plot of attention over time: {embedded.plot}\n" in embedded.output


def test_the_demo_reads_well_in_a_terminal(embedded: Played, in_chinese: Played) -> None:
    for played in (embedded, in_chinese):
        lines = played.output.splitlines()
        assert 80 <= len(lines) <= 150
        assert max(columns(line) for line in lines) <= 100  # a Chinese character takes two


def test_the_demo_tells_the_seed_stories_in_chinese(in_chinese: Played) -> None:
    check_steps(in_chinese.output, CHINESE)
    check_plot(in_chinese.plot)
    # Nothing is left in English but names (the owner demo-user, programs, the CPU, the verb
    # observe, noisy-OR) and the relationship types, which are the graph's own words.
    english = set(re.findall(r"[A-Za-z]{3,}", in_chinese.output.split("关注度随时间变化图")[0]))
    assert english <= {"demo", "user", "graphmem", "networkx", "path", "FILE", "CPU", "observe"} | {
        "noisy",
        "NEXT",
        "SUPPORTS",
        "CONTRADICTS",
        "RELATED",
    }
    assert "（图中文字为英文：matplotlib 没有找到中文字体" in in_chinese.output


def test_the_demo_speaks_the_locales_language() -> None:
    assert demo.default_language({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert demo.default_language({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}) == "en"
    assert demo.default_language({"LC_MESSAGES": "zh_TW", "LANG": "en_GB"}) == "zh"
    assert demo.default_language({}) == "en"
    done = run_demo("--lang", "fr", env=clean_env())
    assert done.returncode == 2
    assert "argument --lang: invalid choice: 'fr'" in done.stderr
    with pytest.raises(InvalidInputError, match="the demo speaks en and zh, not 'fr'"):
        demo.run_demo(Settings(), io.StringIO(), Path("unused.png"), language="fr")


def test_the_demo_refuses_a_store_that_knows_its_owner(embedded: Played, tmp_path: Path) -> None:
    path = embedded.plot.parent / "graph.json"
    done = run_demo("--path", str(path), "--plot", str(tmp_path / "plot.png"), env=clean_env())
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "graphmem: the store already holds memories of demo-user, and the demo starts from"
        " nothing: use a fresh --path (or none), another Neo4j database, or first graphmem"
        " forget-owner --owner demo-user --yes\n"
    )
    assert not (tmp_path / "plot.png").exists()


def test_without_matplotlib_the_demo_says_how_to_get_the_plot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    out = io.StringIO()
    demo.run_demo(Settings(), out, tmp_path / "plot.png")
    assert (
        "the plot of attention over time needs matplotlib: pip install 'graphmem[demo]'\n"
        in out.getvalue()
    )
    assert not (tmp_path / "plot.png").exists()
    check_steps(out.getvalue())


@pytest.mark.neo4j
def test_the_demo_shows_the_same_on_neo4j(on_neo4j: Played, embedded: Played) -> None:
    check_steps(on_neo4j.output)
    check_plot(on_neo4j.plot)
    assert "store: neo4j at " in on_neo4j.output
    on_both = zip(comparable(on_neo4j.output), comparable(embedded.output), strict=True)
    for from_neo4j, from_embedded in on_both:
        assert_same_but_rounding(from_neo4j, from_embedded)
