"""The browser console of `graphmem serve` (issue 63): a real server, headless Chromium, axe-core.

The server is started as tests/test_server.py starts it, on a store holding the demo user's seven
months (`graphmem demo` on that store) and a few Chinese turns observed over HTTP. A person's
walk through the console runs in a browser context that keeps the page's Content-Security-Policy
and must log no violation of it: sign in with an admin key, open the demo user, find the milk
allergy, plot its attention over time, follow its edges, read its events and impressions and
its fact's slot history, recall and see the answer drawn, forget its message and see it gone,
make and revoke keys, read the request log, be refused the demo user with another owner's key,
read Chinese. Each page it visits is checked for accessibility with axe-core in a second context
(see `Axe`). The run on the embedded store writes the screenshots that docs/console.md shows.
"""

import json
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Request,
    ViewportSize,
    expect,
    sync_playwright,
)

from graphmem.client import GraphMemClient
from graphmem.contract import Components, ProfileFact, Recall

from . import test_server
from .conftest import ROOT
from .test_cli import store_arguments
from .test_server import StartServer, graphmem, new_secret

start_server = test_server.start_server
"""The fixture that starts `graphmem serve` processes and stops them after the test."""

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGUMENTS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE = Path(os.environ.get("GRAPHMEM_AXE_JS", ROOT / ".cache/axe/node_modules/axe-core/axe.min.js"))
"""axe-core's script (scripts/test installs it with npm)."""
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 375, "height": 812}
DOCS = ROOT / "docs"
ALLERGY = "I'm allergic to milk: even a little gives me hives."
"""What the demo user says first (message demo-01): the memory the walk follows."""
READ_AT = "2026-10-02T12:00"
"""When the walk reads attention and the profile, and recalls (a datetime-local value, UTC): the
demo's last month, when its memories are not all faded yet (and the same in every run)."""
EARLIER_AT = "2026-03-10T12:00"
"""Another time to read the events at (the Disneyland trip's second day)."""
QUESTION = "Can I drink milk?"
CHINESE = [
    "我对牛奶过敏，喝一点就会起荨麻疹。",
    "周末我们去杭州西湖划船了。",
    "奶奶的饺子馅是猪肉、韭菜和姜。",
]
"""The Chinese turns observed for an owner of their own."""
TIERS = ("0 hot", "1 warm", "2 cool", "3 deep")
"""The tiers as the console names them in English."""
REASONS = tuple(Components.model_fields)
"""The reasons a recalled memory's score is broken into, as the contract names them."""


@dataclass(frozen=True)
class Served:
    """A `graphmem serve` holding the demo user and a Chinese-speaking owner, with its keys."""

    url: str
    admin: str
    demo: str
    """The owner `graphmem demo` played its story as."""
    chinese: str
    """The owner of the Chinese turns."""
    other: str
    """An owner no memory is stored for: keys made for it must not reach `demo`."""
    embedded: bool
    """Whether the store is the embedded one (that run writes the screenshots)."""

    @property
    def console(self) -> str:
        """The console's address."""
        return f"{self.url}/console/"

    def client(self) -> GraphMemClient:
        """The Python client with the admin key, to compare the pages with the API."""
        return GraphMemClient(self.url, self.admin)


@pytest.fixture(params=["networkx", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def served(
    request: pytest.FixtureRequest, tmp_path: Path, start_server: StartServer
) -> Iterator[Served]:
    """The demo played on each store, keys made, the server started, Chinese turns observed."""
    store = store_arguments(request.param, request, tmp_path)
    fresh = uuid.uuid4().hex[:8]
    embedded = request.param == "networkx"
    demo, chinese, other = f"demo-{fresh}", f"zh-{fresh}", f"other-{fresh}"
    if embedded:  # a store of its own: the names the screenshots show, the same each run
        demo, chinese = "demo-user", "zh-user"
    played = graphmem("demo", "--owner", demo, "--plot", str(tmp_path / "demo.png"), *store)
    assert played.returncode == 0, played.stderr
    admin = new_secret(store, "--admin")
    url = start_server(store)
    server = Served(url, admin, demo, chinese, other, embedded)
    with server.client() as client:
        client.observe_many(
            chinese,
            [
                {
                    "text": text,
                    "message_id": f"zh-{number}",
                    "at": datetime(2026, 5, 1 + number, 9, tzinfo=UTC),
                    "session": "杭州",
                }
                for number, text in enumerate(CHINESE)
            ],
        )
    yield server
    with server.client() as client:  # Neo4j is shared: leave no owner behind
        for owner in (demo, chinese):
            client.forget(owner)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, driven by Playwright (no browser is downloaded)."""
    assert CHROMIUM.exists(), "the console's tests need Debian's chromium (apt-get install)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGUMENTS
        )
        yield launched
        launched.close()


class Watched:
    """A page of a context that keeps the CSP, and every CSP violation or script error it logs."""

    def __init__(self, context: BrowserContext) -> None:
        self.page = context.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda message: self._console(message.type, message.text))
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))

    def _console(self, kind: str, text: str) -> None:
        """Keep an error the page logged (a refused script or style says so in the console)."""
        if kind == "error" and "Failed to load resource" not in text:
            self.problems.append(text)


def settled(page: Page, name: str, act: Callable[[], Any]) -> None:
    """Do `act`, then wait until the console has rendered a new page `name` to the end."""
    before = page.evaluate("document.getElementById('main')?.dataset.generation || ''")
    act()
    page.wait_for_function(
        """([before, name]) => {
            const main = document.getElementById('main');
            return main !== null && main.dataset.generation !== before && main.dataset.page === name
                && main.getAttribute('aria-busy') === 'false';
        }""",
        arg=[before, name],
    )


def visit(page: Page, url: str, name: str) -> None:
    """Go to a console address and wait until its page is rendered (again, if there already)."""
    settled(page, name, lambda: page.goto(url) if page.url != url else page.reload())


def open_filters(page: Page) -> None:
    """Open the timeline's filters, which are folded away while none is set."""
    if page.locator("#filters-box").get_attribute("open") is None:
        page.locator("#filters-box > summary").click()
    expect(page.locator("#filters")).to_be_visible()


def sign_in(page: Page, console: str, key: str, *, label: str = "API key") -> None:
    """Open the console, give the key in its form, and wait for the owners page."""
    visit(page, console, "signin")
    page.get_by_label(label, exact=True).fill(key)
    settled(page, "owners", lambda: page.locator("#key-form button[type=submit]").click())


class Axe:
    """axe-core run on the pages the walk visits, in a context of its own.

    `add_script_tag` injects axe as an inline script, which the console's CSP (script-src
    'self') refuses, so this context alone is made with `bypass_csp=True`: it checks what the
    pages show, while the walk itself runs under the CSP.
    """

    def __init__(self, browser: Browser, served: Served) -> None:
        self.context = browser.new_context(
            viewport=DESKTOP, bypass_csp=True, locale="en-US", timezone_id="UTC"
        )
        self.page = self.context.new_page()
        self.served = served
        self.checked: list[str] = []
        visit(self.page, served.console, "signin")
        self.run("the key form")
        self.page.get_by_label("API key", exact=True).fill(served.admin)
        submit = self.page.locator("#key-form button[type=submit]")
        settled(self.page, "owners", submit.click)

    def check(self, where: str, name: str, act: Callable[[Page], None] | None = None) -> None:
        """Open the console's page at `where` (a hash), do `act` on it, and run axe there."""
        visit(self.page, self.served.console + where, name)
        if act is not None:
            act(self.page)
        self.run(f"{where} ({name})")

    def run(self, what: str) -> None:
        """Run axe on the page as it is: no serious or critical violation."""
        if not self.page.evaluate("typeof window.axe !== 'undefined'"):
            self.page.add_script_tag(path=str(AXE))
        violations = self.page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                              nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"""
        )
        bad = [item for item in violations if item["impact"] in ("serious", "critical")]
        assert not bad, f"axe on {what}: {json.dumps(bad, indent=1, ensure_ascii=False)}"
        self.checked.append(what)


def shoot(served: Served, page: Page, name: str, *, whole: bool = False) -> None:
    """Write docs/console-NAME.png of the viewport, or the `whole` page (embedded store only)."""
    if served.embedded:
        page.screenshot(path=str(DOCS / f"console-{name}.png"), full_page=whole)


def tab_to(page: Page, name: str) -> None:
    """Press Tab until the control of this name has the focus, and see the focus drawn."""
    for _ in range(100):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            """() => {
                const on = document.activeElement;
                return [(on.getAttribute('aria-label') || on.textContent || '').trim(),
                        getComputedStyle(on).outlineStyle];
            }"""
        )
        if focused[0] == name:
            assert focused[1] != "none", f"{name} has the focus, but it is not drawn"
            return
    raise AssertionError(f"Tab never reaches {name}")


def chinese_font() -> bool:
    """Whether fontconfig knows a font with Chinese characters (else they show as boxes)."""
    listing = shutil.which("fc-list")
    if listing is None:
        return False
    fonts = subprocess.run(
        [listing, ":lang=zh", "family"], capture_output=True, text=True, check=False
    )
    return bool(fonts.stdout.strip())


def cell_texts(page: Page, row: str) -> list[str]:
    """The texts of a table row's cells."""
    return [text.strip() for text in page.locator(row).locator("th, td").all_inner_texts()]


def test_a_person_walks_through_the_console(browser: Browser, served: Served) -> None:
    """Issue 63's walk, on each store, under the CSP, with axe on each page it shows."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US", timezone_id="UTC")
    watched = Watched(context)
    page = watched.page
    axe = Axe(browser, served)
    answer = page.request.get(served.console)
    policy = answer.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy
    assert "style-src 'self'" in policy

    signing_in(page, served, axe)
    owners_page(page, served, axe)
    events_and_impressions(page, served, axe)
    fact_history(page, served, axe)
    memory_hash = the_allergy(page, served, axe)
    recall(page, served, axe)
    forgetting(page, served, axe, memory_hash)
    secret = keys_and_requests(page, served, axe)
    another_owners_key(browser, served, secret)
    in_chinese(browser, page, served, axe)

    assert watched.problems == [], "the console logged errors (a CSP violation?)"
    assert len(axe.checked) == 14
    context.close()
    axe.context.close()


def signing_in(page: Page, served: Served, axe: Axe) -> None:
    """The key form comes first; the key is kept in sessionStorage only."""
    visit(page, served.console, "signin")
    axe.check("#/owners", "owners")
    page.get_by_label("API key", exact=True).fill("gmk_not_a_key")
    page.locator("#key-form button[type=submit]").click()
    expect(page.locator("#status")).to_contain_text("The server refused this key")
    page.get_by_label("API key", exact=True).fill(served.admin)
    settled(page, "owners", lambda: page.locator("#key-form button[type=submit]").click())
    kept = page.evaluate(
        """() => ({session: Object.values(sessionStorage), local: Object.values(localStorage),
                   cookie: document.cookie})"""
    )
    assert kept == {"session": [served.admin], "local": [], "cookie": ""}
    assert page.context.cookies() == []


def owners_page(page: Page, served: Served, axe: Axe) -> None:
    """The owners with their counts from statistics; the demo user's page, a page at a time."""
    with served.client() as client:
        counts = client.statistics(served.demo)
    row = f"table.owners tr:has(a:text-is('{served.demo}'))"
    expect(page.locator(row).locator("td").last).not_to_have_text("…")
    cells = cell_texts(page, row)
    assert cells[:7] == [
        served.demo,
        str(counts.nodes["Memory"]),
        *(str(counts.tiers[tier]) for tier in range(4)),
        str(counts.nodes["Event"]),
    ]
    settled(page, "owner", lambda: page.get_by_role("link", name=served.demo, exact=True).click())
    expect(page.locator("h1")).to_have_text(served.demo)
    open_filters(page)
    page.get_by_label("Attention and profile at (empty: now)").fill(READ_AT)
    settled(page, "owner", lambda: page.get_by_role("button", name="Apply").click())
    rows = page.locator("#timeline tbody tr")
    expect(rows).to_have_count(50)  # a page: never the whole owner
    profile = page.locator("section.profile")
    expect(profile).to_contain_text("allergy: milk")
    expect(profile).to_contain_text(ALLERGY)
    expect(page.locator("svg.plot circle")).to_have_count(50)
    page.locator("#filters-box > summary").click()  # folded, as a reader would to see more
    expect(page.locator("#filters")).to_be_hidden()
    shoot(served, page, "owner")
    at_most_eight(served, page)
    with served.client() as client:
        total = client.statistics(served.demo).nodes["Memory"]
    page.get_by_role("button", name="Older memories").click()
    expect(rows).to_have_count(total)
    expect(page.locator("#timeline-count")).to_contain_text("No older memories.")
    expect(page.get_by_role("button", name="Older memories")).to_be_hidden()
    axe.check(f"#{page.url.split('#', 1)[1]}", "owner")


def read_at(page: Page) -> datetime:
    """The time the page's address reads at (its hash's `at`)."""
    fragment = urlsplit(page.url).fragment
    wanted = parse_qs(urlsplit(fragment).query)["at"]
    return datetime.fromisoformat(wanted[0])


def utc(local: str) -> datetime:
    """A datetime-local value of the walk (its browser is on UTC) as an aware time."""
    return datetime.fromisoformat(local).replace(tzinfo=UTC)


def events_and_impressions(page: Page, served: Served, axe: Axe) -> None:
    """The owner page's events and impressions, read at its time, as the API has them."""
    at = utc(READ_AT)
    with served.client() as client:
        events = client.events(served.demo, at=at)
        impressions = client.impressions(served.demo, at=at)
        earlier = client.events(served.demo, at=utc(EARLIER_AT))
    assert {entry.open for entry in events} == {True, False}  # the demo has both at READ_AT
    assert any(entry.impression.conjectured_at for entry in impressions)
    links = page.locator("p.links")
    settled(page, "events", lambda: links.get_by_role("link", name="Events", exact=True).click())
    assert read_at(page) == at  # the owner page's time, carried over
    expect(page.locator("h1")).to_have_text(f"Events: {served.demo}")
    rows = page.locator("#events tbody tr")
    expect(rows).to_have_count(len(events))
    assert rows.locator("a.event-link").all_inner_texts() == [entry.event.title for entry in events]
    assert rows.locator("td.state").all_inner_texts() == [
        f"{'open until' if entry.open else 'closed since'} {entry.open_until:%Y-%m-%d}"
        for entry in events
    ]
    first = events[0]
    cells = cell_texts(page, f"#events tr[data-event='{first.event.id}']")
    assert cells[0].startswith(first.event.title)  # then its storyline
    assert cells[3:] == [
        f"{first.event.first_at:%Y-%m-%d %H:%M}",
        f"{first.event.last_at:%Y-%m-%d %H:%M}",
        f"{first.event.timeliness_days:g}",
        str(first.memories),
        f"{first.attention:.2f}",
        TIERS[first.event.tier],
    ]
    storyline = [line.strip() for line in first.event.text.splitlines() if line.strip()]
    told = rows.first.locator("details.storyline")
    expect(told).to_have_attribute("open", "")  # the latest event's storyline is shown
    assert told.locator("li").all_inner_texts() == storyline
    closed = page.locator("#events tr:has(.state-closed) details.storyline").first
    closed.locator("summary").click()
    expect(closed.locator("li").first).to_be_visible()
    expect(page.locator("svg.events-plot g.event-row")).to_have_count(min(len(events), 30))
    expect(page.locator("#events-count")).to_have_text(
        f"{len(events)} events, {sum(entry.open for entry in events)} of them open."
    )
    if served.embedded:
        closed.locator("summary").click()  # the screenshot shows the latest storyline only
        shoot(served, page, "events", whole=True)
    events_hash = page.url.split("#", 1)[1]
    axe.check(f"#{events_hash}", "events")
    title = page.locator("#events").get_by_role("link", name=first.event.title, exact=True)
    settled(page, "node", title.click)
    assert page.url.endswith(f"/node/Event/{first.event.id}")
    expect(page.locator("h1")).to_contain_text(f"Event: {first.event.title[:60]}")
    expect(page.locator("#memories-title + ul li")).to_have_count(first.memories)
    settled(page, "events", page.go_back)
    page.get_by_label("Read at (empty: now)").fill(EARLIER_AT)
    settled(page, "events", lambda: page.get_by_role("button", name="Read", exact=True).click())
    assert read_at(page) == utc(EARLIER_AT)
    expect(rows).to_have_count(len(earlier))
    assert rows.locator(".badge").all_inner_texts() == [
        "open" if entry.open else "closed" for entry in earlier
    ]
    settled(page, "events", page.go_back)
    assert read_at(page) == at

    settled(page, "impressions", lambda: links.get_by_role("link", name="Impressions").click())
    assert read_at(page) == at
    expect(page.locator("h1")).to_have_text(f"Impressions: {served.demo}")
    rows = page.locator("#impressions tbody tr")
    expect(rows).to_have_count(len(impressions))
    assert rows.locator("a.impression-link").all_inner_texts() == [
        entry.impression.text for entry in impressions
    ]
    for entry in impressions:
        impression = entry.impression
        conjectured = impression.conjectured_at
        assert cell_texts(page, f"#impressions tr[data-impression='{impression.id}']") == [
            impression.text,
            f"{entry.belief:.2f}",
            f"{impression.belief:.2f}",
            f"{impression.belief_at:%Y-%m-%d %H:%M}",
            f"{impression.half_life_days:g}",
            str(entry.cues),
            str(entry.conjectures),
            f"{conjectured:%Y-%m-%d %H:%M}" if conjectured else "—",
        ]
    shoot(served, page, "impressions")
    axe.check("#" + page.url.split("#", 1)[1], "impressions")
    strongest = impressions[0].impression
    settled(page, "node", lambda: rows.first.locator("a.impression-link").click())
    assert page.url.endswith(f"/node/Impression/{strongest.id}")
    expect(page.locator("h1")).to_have_text(f"Impression: {strongest.text}")
    settled(page, "impressions", page.go_back)
    back = page.get_by_role("link", name="Back to the timeline")
    settled(page, "owner", back.click)
    assert read_at(page) == at


def at_most_eight(served: Served, page: Page) -> None:
    """Eight memories can be ticked for the plot, not a ninth; the two most attended, plotted.

    Unticked again, the page is as it was.
    """
    boxes = page.locator("#timeline input.pick")
    for index in range(8):
        boxes.nth(index).check()
    expect(page.locator("#fade-count")).to_have_text(
        "8 of at most 8 memories ticked in the Plot column of the table."
    )
    boxes.nth(8).click()
    expect(boxes.nth(8)).not_to_be_checked()
    expect(page.locator("#status")).to_have_text(
        "At most 8 memories can be plotted: untick one first."
    )
    for index in range(8):
        boxes.nth(index).uncheck()
    expect(page.locator("#fade-count")).to_have_text(
        "0 of at most 8 memories ticked in the Plot column of the table."
    )
    attention = [
        float(text) for text in page.locator("#timeline td:nth-child(7)").all_inner_texts()
    ]
    texts = page.locator("#timeline td.text").all_inner_texts()
    first = max(range(len(attention)), key=lambda index: attention[index])
    cooler = (
        [  # another memory, well apart from the first (for the screenshot)
            index
            for index in range(len(attention))
            if texts[index][:20] != texts[first][:20] and attention[index] <= attention[first] - 2
        ]
        or [index for index in range(len(attention)) if index != first]
    )
    hottest = [first, max(cooler, key=lambda index: attention[index])]
    ids = [boxes.nth(index).get_attribute("data-memory") for index in hottest]
    for index in hottest:
        boxes.nth(index).check()
    page.get_by_role("button", name="Show the plot").click()
    expect(page.locator("#fade-figure")).to_have_attribute(
        "data-drawn", f"60|0:{ids[0]},1:{ids[1]}"
    )
    expect(page.locator("#fade-svg g.line")).to_have_count(2)
    page.evaluate("document.querySelector('#timeline').closest('.scroll').scrollLeft = 0")
    if served.embedded:
        page.locator("#fade").screenshot(path=str(DOCS / "console-attention.png"))
    page.get_by_role("button", name="Hide the plot").click()
    expect(page.locator("#fade-figure")).to_be_hidden()
    for index in hottest:
        boxes.nth(index).uncheck()


def tick_two(page: Page, first: str, second: str) -> None:
    """Tick two memories of the timeline for the plot, the second by keyboard, and open it."""
    page.locator(f"#timeline input.pick[data-memory='{first}']").check()
    page.locator(f"#timeline input.pick[data-memory='{second}']").focus()
    page.keyboard.press("Space")
    expect(page.locator(f"#timeline input.pick[data-memory='{second}']")).to_be_checked()
    toggle = page.get_by_role("button", name="Show the plot")
    toggle.click()
    expect(page.locator("#fade-toggle")).to_have_attribute("aria-expanded", "true")
    plotted = page.locator("#fade-figure")
    expect(plotted).to_have_attribute("data-drawn", f"60|0:{first},1:{second}")
    expect(page.locator("main")).to_have_attribute("aria-busy", "false")
    page.locator("#fade-numbers > summary").click()
    expect(page.locator("#fade-table tbody tr")).to_have_count(12)


def fade_columns(page: Page) -> tuple[list[datetime], dict[str, list[float]]]:
    """The plot's table: the times read, and each memory's attention at them."""
    times = [
        datetime.fromisoformat(str(when))
        for when in page.locator("#fade-table tbody th time").evaluate_all(
            "times => times.map((time) => time.getAttribute('datetime'))"
        )
    ]
    ids = page.locator("#fade-table thead th[data-memory]").evaluate_all(
        "cells => cells.map((cell) => cell.dataset.memory)"
    )
    rows = [
        row.locator("td").all_inner_texts() for row in page.locator("#fade-table tbody tr").all()
    ]
    return times, {memory: [float(row[index]) for row in rows] for index, memory in enumerate(ids)}


def attention_over_time(page: Page, served: Served, axe: Axe) -> None:
    """Tick the allergy and another memory: their attention over time is the API's, fading."""
    at = read_at(page)
    assert at == utc(READ_AT)
    asked: list[str] = []

    def heard(request: Request) -> None:
        """Keep the address of each timeline page the console asks for."""
        if "/timeline?" in request.url:
            asked.append(request.url)

    page.on("request", heard)
    ids = page.locator("#timeline tbody tr").evaluate_all(
        "rows => rows.map((row) => row.dataset.memory)"
    )
    texts = page.locator("#timeline tbody tr td.text").all_inner_texts()
    allergy = ids[texts.index(ALLERGY)]
    other = next(memory for memory in ids if memory != allergy)
    box = page.locator(f"#timeline input.pick[data-memory='{allergy}']")
    expect(box).to_have_accessible_name("Plot the attention of: I'm allergic to milk: even a…")
    expect(page.locator("#fade")).to_contain_text(
        "How attention would fade from the time read if the memory is not used again"
        " (each use wakes it)."
    )
    tick_two(page, allergy, other)
    expect(page.locator("#status")).to_have_text("Attention of 2 memories read at 12 times.")
    expect(page.locator("#fade-svg g.line")).to_have_count(2)
    expect(page.locator("#fade-svg path.series")).to_have_count(2)
    expect(page.locator("#fade-legend li")).to_have_count(2)
    expect(page.locator("#fade-legend li").first).to_have_text("I'm allergic to milk: even a…")
    assert page.locator("#fade-svg").get_attribute("role") == "img"
    times, columns = fade_columns(page)
    assert len(times) == 12
    assert times[0] == at
    assert times[-1] == at + timedelta(days=60)
    assert list(columns) == [allergy, other]
    with served.client() as client:
        for index in (4, 11):
            read = client.timeline(
                served.demo, kinds=["observation"], contains="milk", at=times[index]
            )
            attention = {entry.memory.id: entry.attention for entry in read.entries}
            for memory, values in columns.items():
                assert abs(values[index] - attention[memory]) <= 0.005 + 1e-9, (memory, index)
    for values in columns.values():  # not used again: it fades, never rises
        assert values == sorted(values, reverse=True), values
    assert columns[allergy][-1] < columns[allergy][0]
    assert len(asked) == 12  # one page, read at 12 times
    assert all(parse_qs(urlsplit(url).query)["contains"] == ["milk"] for url in asked)
    second = page.locator(f"#timeline input.pick[data-memory='{other}']")
    second.uncheck()  # one line, then two again: drawn from what was read, nothing asked again
    expect(page.locator("#fade-svg g.line")).to_have_count(1)
    second.check()
    expect(page.locator("#fade-figure")).to_have_attribute(
        "data-drawn", f"60|0:{allergy},1:{other}"
    )
    assert len(asked) == 12
    page.get_by_label("Span").select_option("30")
    expect(page.locator("#fade-figure")).to_have_attribute(
        "data-drawn", f"30|0:{allergy},1:{other}"
    )
    expect(page.locator("main")).to_have_attribute("aria-busy", "false")
    times, columns = fade_columns(page)
    assert times[-1] == at + timedelta(days=30)
    assert len(asked) == 24
    page.get_by_label("Span").select_option("60")
    expect(page.locator("#fade-figure")).to_have_attribute(
        "data-drawn", f"60|0:{allergy},1:{other}"
    )
    assert len(asked) == 24
    page.remove_listener("request", heard)
    axe.check(f"#{page.url.split('#', 1)[1]}", "owner", lambda on: tick_two(on, allergy, other))


def the_allergy(page: Page, served: Served, axe: Axe) -> str:
    """Filter the timeline by "milk", follow the allergy to its page, its edges, its message."""
    open_filters(page)
    page.get_by_label("Text contains").fill("milk")
    page.get_by_label("observation", exact=True).check()
    settled(page, "owner", lambda: page.get_by_role("button", name="Apply").click())
    assert "contains=milk" in page.url
    texts = page.locator("#timeline tbody tr td.text").all_inner_texts()
    assert ALLERGY in texts
    assert all("milk" in text.lower() for text in texts)
    assert set(page.locator("#timeline tbody tr td:nth-child(5)").all_inner_texts()) == {
        "observation"
    }
    attention_over_time(page, served, axe)
    allergy = page.locator("#timeline").get_by_role("link", name=ALLERGY, exact=True)
    settled(page, "node", allergy.click)
    memory_hash = page.url.split("#", 1)[1]
    memory_id = unquote(memory_hash.rsplit("/", 1)[1])
    expect(page.locator("h1")).to_have_text(f"Memory: {ALLERGY}")
    fields = page.locator("dl.fields")
    expect(fields).to_contain_text("observation")
    with served.client() as client:
        around = client.neighbourhood(served.demo, memory_id)
    edges = {(link.type, link.source, link.target) for link in around.links}
    assert ("FROM", memory_id, "demo-01") in edges
    table = page.locator("table.edges tbody tr")
    expect(table).to_have_count(len(around.links))
    assert sorted(table.locator("td:first-child").all_inner_texts()) == sorted(
        link.type for link in around.links
    )
    graph = page.locator("svg.graph")
    ends = {link.source for link in around.links} | {link.target for link in around.links}
    expect(graph.locator("g.node")).to_have_count(min(len(ends), 17))  # 16 neighbours at most
    assert set(graph.locator("text.edge-label").all_text_contents()) == {
        link.type for link in around.links
    }
    expect(page.locator("article.turn")).to_have_count(1)
    expect(page.locator("article.turn")).to_contain_text(ALLERGY)
    shoot(served, page, "memory")
    axe.check(f"#{memory_hash}", "node")
    message = page.locator("table.edges tr[data-edge=FROM]").get_by_role("link")
    settled(page, "node", message.click)
    expect(page.locator("h1")).to_have_text(f"Message: {ALLERGY}")
    assert page.url.endswith("/node/Turn/demo-01")
    expect(page.locator("dl.fields")).to_contain_text("user")
    expect(page.locator("#memories-title + ul")).to_contain_text(ALLERGY)
    axe.check(f"#{page.url.split('#', 1)[1]}", "node")
    settled(page, "node", page.go_back)
    assert page.url.endswith(memory_hash)
    return memory_hash


def recall(page: Page, served: Served, axe: Axe) -> None:
    """A recall, peeking by default: the ranked memories, each score's reasons, the context."""
    settled(page, "recall", lambda: page.get_by_role("link", name="Recall in this memory").click())
    peek = page.get_by_label(re.compile("^Peek"))
    expect(peek).to_be_checked()

    def ask(on: Page) -> None:
        """Ask the question and wait for the answer."""
        on.get_by_label("Query").fill(QUESTION)
        on.get_by_label("Ask at (empty: now)").fill(READ_AT)
        on.get_by_role("button", name="Recall", exact=True).click()
        expect(on.locator("#context")).to_be_visible()
        expect(on.locator("svg#recall-graph")).to_be_visible()  # axe sees the subgraph too

    ask(page)
    with served.client() as client:
        at = datetime.fromisoformat(READ_AT).replace(tzinfo=UTC)
        same = client.recall(served.demo, QUESTION, peek=True, max_tokens=1000, at=at)
    first = page.locator("#recalled > li").first
    expect(first.locator("a.memory-link")).to_have_text(ALLERGY)
    assert same.memories[0].memory.text == ALLERGY
    cards = page.locator("#recalled > li")
    expect(cards).to_have_count(len(same.memories))
    reasons = first.locator("table.reasons tbody tr")
    expect(reasons).to_have_count(len(REASONS))
    relevance = first.locator("tr[data-reason=relevance] td").first
    expect(relevance).to_have_text(f"{same.memories[0].components.relevance:.3f}")
    assert first.locator("th[scope=row]").all_inner_texts()[0] == "relevance (cosine)"
    expect(page.locator("#context")).to_contain_text(ALLERGY)
    expect(page.locator("#status")).to_contain_text("Peeked: nothing was woken.")
    recall_graph(page, served, same)
    axe.check("#" + page.url.split("#", 1)[1], "recall", ask)


def recall_graph(page: Page, served: Served, same: Recall) -> None:
    """The recall's subgraph: a node a memory recalled, by rank, an arrow an edge; nodes link."""
    graph = page.locator("svg#recall-graph")
    nodes = graph.locator("g.node")
    expect(nodes).to_have_count(len(same.memories))
    drawn = nodes.evaluate_all("nodes => nodes.map((node) => node.dataset.node)")
    assert drawn == [item.memory.id for item in same.memories]
    ranks = graph.locator("text.node-letter").all_text_contents()
    assert ranks == [f"[{rank}]" for rank in range(1, len(same.memories) + 1)]
    edges = graph.locator("g.edge")
    expect(edges).to_have_count(len(same.links))
    ends = edges.evaluate_all(
        """edges => edges.map((edge) =>
            [edge.dataset.type, edge.dataset.source, edge.dataset.target])"""
    )
    assert sorted(map(tuple, ends)) == sorted(
        (edge.type, edge.source, edge.target) for edge in same.links
    )
    labels = graph.locator("text.edge-label").all_text_contents()
    assert {part for label in labels for part in label.split(" · ")} == {
        edge.type for edge in same.links
    }
    expect(page.locator("ul.edges-list > li")).to_have_count(len(same.links))  # said in words too
    first = same.memories[0].memory.id
    node = graph.get_by_role("link", name=re.compile(r"^\[1\] "))
    assert node.get_attribute("href") == f"#/owner/{served.demo}/memory/{first}"
    if served.embedded:
        page.locator("#recall-graph-box").screenshot(path=str(DOCS / "console-recall.png"))
    settled(page, "node", node.click)
    expect(page.locator("h1")).to_have_text(f"Memory: {ALLERGY}")
    assert page.url.endswith(f"/memory/{first}")
    settled(page, "recall", page.go_back)  # the answer is shown again, drawn the same
    expect(nodes).to_have_count(len(same.memories))
    assert nodes.evaluate_all("nodes => nodes.map((node) => node.dataset.node)") == drawn


def fact_history(page: Page, served: Served, axe: Axe) -> None:
    """The milk allergy's fact, from the profile: its slot's history, as the profile reads it.

    Then a value the mood at work replaced: "Replaced", in the list of that slot's values.
    """
    at = utc(READ_AT)
    owner_url = page.url
    assert read_at(page) == at
    with served.client() as client:
        profile = client.profile(served.demo, at=at)
    allergy = next(entry for entry in profile.facts if entry.slot == "allergy: milk")
    replaced = next(entry for entry in profile.facts if entry.earlier)

    def shown() -> list[tuple[str, str, datetime]]:
        """The values the page lists: each memory's id, its text, since when."""
        items = page.locator("#slot-history ol.slot-values > li").evaluate_all(
            """items => items.map((item) => [item.dataset.memory,
                item.querySelector('a').textContent,
                item.querySelector('time').getAttribute('datetime')])"""
        )
        return [(memory, text, datetime.fromisoformat(since)) for memory, text, since in items]

    def values(fact: ProfileFact) -> list[tuple[str, str, datetime]]:
        """The values of the profile's entry: the one in force, then those it replaced."""
        return [
            (fact.rests_on[0], fact.text, fact.since),
            *((value.id, value.text, value.since) for value in fact.earlier),
        ]

    link = page.locator("section.profile").get_by_role("link", name=allergy.text, exact=True)
    settled(page, "node", link.click)
    assert f"/memory/{allergy.rests_on[0]}?" in page.url
    assert read_at(page) == at  # the owner page's time, carried over
    expect(page.locator("dl.fields")).to_contain_text("fact")
    expect(page.locator("#slot-title")).to_have_text("The history of the slot “allergy: milk”")
    expect(page.locator("#slot-state")).to_have_text("In force")
    assert shown() == values(allergy)
    expect(page.locator("#slot-history li.this")).to_have_attribute(
        "data-memory", allergy.rests_on[0]
    )
    axe.check("#" + page.url.split("#", 1)[1], "node")
    older = replaced.earlier[-1]
    query = urlsplit(urlsplit(page.url).fragment).query
    visit(page, f"{served.console}#/owner/{served.demo}/memory/{older.id}?{query}", "node")
    expect(page.locator("#slot-state")).to_have_text("Replaced")
    assert shown() == values(replaced)
    expect(page.locator("#slot-history li.this")).to_have_attribute("data-memory", older.id)
    visit(page, owner_url, "owner")


def forgetting(page: Page, served: Served, axe: Axe, memory_hash: str) -> None:
    """Forget the allergy's message from its page: the dialog lists what goes; it is gone."""
    memory_id = unquote(memory_hash.rsplit("/", 1)[1])
    visit(page, f"{served.console}#{memory_hash}", "node")

    def ask(on: Page) -> None:
        """Open the confirmation and wait until it lists the memories that would go."""
        on.get_by_role("button", name="Forget this message (demo-01)").click()
        expect(on.locator("dialog#confirm ul.goes")).to_contain_text(ALLERGY)

    axe.check(f"#{memory_hash}", "node", ask)
    axe.page.get_by_role("button", name="Cancel").click()
    expect(axe.page.locator("dialog#confirm")).to_be_hidden()

    dialog = page.locator("dialog#confirm")
    tab_to(page, "Forget this message (demo-01)")  # by keyboard: open, then Escape
    page.keyboard.press("Enter")
    expect(dialog.locator("ul.goes")).to_contain_text(ALLERGY)
    expect(page.get_by_role("button", name="Cancel")).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("button", name="Forget this message (demo-01)")).to_be_focused()
    ask(page)
    expect(dialog.get_by_role("heading")).to_have_text("Forget message demo-01?")
    with served.client() as client:
        around = client.neighbourhood(served.demo, "demo-01", label="Turn")
    derived = {
        link.source for link in around.links if link.type == "FROM" and link.target == "demo-01"
    }
    going = {memory.text for memory in around.memories if memory.id in derived}
    expect(dialog.locator("ul.goes li")).to_have_count(len(derived))
    assert set(dialog.locator("ul.goes li .memory-text").all_inner_texts()) == going
    settled(page, "node", lambda: dialog.get_by_role("button", name="Forget").click())
    result = page.locator("#forgotten")
    expect(result).to_contain_text("Message demo-01 is forgotten.")
    deleted = {
        cells[0]: int(cells[1])
        for cells in (
            row.locator("th, td").all_inner_texts()
            for row in result.locator("table").first.locator("tbody tr").all()
        )
    }
    assert deleted["Turn"] == 1
    assert deleted["Memory"] >= 1
    expect(page.locator("h1")).to_have_text("No such node")
    settled(page, "owner", lambda: result.get_by_role("link", name="Back to the timeline").click())
    open_filters(page)
    page.get_by_label("Text contains").fill("milk")
    settled(page, "owner", lambda: page.get_by_role("button", name="Apply").click())
    expect(page.locator(f"#timeline tr[data-memory='{memory_id}']")).to_have_count(0)
    texts = page.locator("#timeline tbody tr td.text").all_inner_texts()
    assert ALLERGY not in texts
    assert "There's half a glass of milk on the table." in texts
    with served.client() as client:
        assert client.neighbourhood(served.demo, memory_id).memories == []


def keys_and_requests(page: Page, served: Served, axe: Axe) -> str:
    """Admin pages: make a key (its secret shown once), revoke one, read the request log.

    The secret made is the one of a key for another owner.
    """
    settled(page, "keys", lambda: page.get_by_role("link", name="Keys").click())
    page.get_by_label("Owners (separated by commas or spaces)").fill(served.other)
    settled(page, "keys", lambda: page.get_by_role("button", name="Create").click())
    secret = page.get_by_label("Secret", exact=True).input_value()
    assert secret.startswith("gmk_")
    made = page.locator("#new-key").inner_text()
    key_id = re.search(r"Key ([0-9a-f]{16}) made", made)
    assert key_id is not None
    expect(page.locator(f"tr[data-key='{key_id[1]}']")).to_contain_text(f"owner {served.other}")
    axe.check("#/keys", "keys")
    settled(page, "keys", lambda: page.get_by_role("link", name="Keys").click())
    expect(page.locator("#new-key")).to_have_count(0)  # shown once
    page.get_by_label("Owners (separated by commas or spaces)").fill(served.other)
    settled(page, "keys", lambda: page.get_by_role("button", name="Create").click())
    spare = re.search(r"Key ([0-9a-f]{16}) made", page.locator("#new-key").inner_text())
    assert spare is not None
    row = page.locator(f"tr[data-key='{spare[1]}']")
    row.get_by_role("button", name=re.compile("^Revoke")).click()
    dialog = page.locator("dialog#confirm")
    expect(dialog).to_contain_text(f"Revoke key {spare[1]}?")
    settled(page, "keys", lambda: dialog.get_by_role("button", name="Revoke").click())
    expect(row.locator("td").nth(2)).to_contain_text("2")  # revoked at a time
    expect(row.get_by_role("button")).to_have_count(0)
    settled(page, "requests", lambda: page.get_by_role("link", name="Requests").click())
    log = page.locator("table.requests tbody")
    forgotten = f"/v1/owners/{served.demo}/forget_message"
    expect(log.locator("tr", has_text=forgotten)).to_have_count(1)
    assert cell_texts(page, f"table.requests tr:has-text('{forgotten}')")[1:5] == [
        "POST",
        forgotten,
        served.demo,
        "200",
    ]
    axe.check("#/requests", "requests")
    return secret


def another_owners_key(browser: Browser, served: Served, secret: str) -> None:
    """A key for another owner: refused the demo user and the admin pages, and told so."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US", timezone_id="UTC")
    watched = Watched(context)
    page = watched.page
    sign_in(page, served.console, secret)
    expect(page.locator("#nav-keys")).to_be_hidden()
    expect(page.locator("#nav-requests")).to_be_hidden()
    expect(page.locator("main")).to_contain_text("This key covers no owner with a memory yet.")
    visit(page, f"{served.console}#/owner/{served.demo}", "owner")
    expect(page.locator("p.problem")).to_have_text("This key does not cover this owner.")
    expect(page.locator("#timeline")).to_have_count(0)
    visit(page, f"{served.console}#/owner/{served.demo}/memory/anything", "node")
    expect(page.locator("p.problem")).to_have_text("This key does not cover this owner.")
    for name in ("events", "impressions"):
        visit(page, f"{served.console}#/owner/{served.demo}/{name}", name)
        expect(page.locator("p.problem")).to_have_text("This key does not cover this owner.")
        expect(page.locator(f"#{name}")).to_have_count(0)
    visit(page, f"{served.console}#/keys", "keys")
    expect(page.locator("p.problem")).to_have_text(
        "This key does not cover this page: an admin key does."
    )
    settled(page, "signin", lambda: page.get_by_role("button", name="Sign out").click())
    assert page.evaluate("sessionStorage.length") == 0
    assert watched.problems == []
    context.close()


def in_chinese(browser: Browser, page: Page, served: Served, axe: Axe) -> None:
    """Chinese turns render; a browser in Chinese gets Chinese labels; the switch changes them."""
    visit(page, f"{served.console}#/owner/{served.chinese}", "owner")
    texts = page.locator("#timeline tbody tr td.text").all_inner_texts()
    assert set(CHINESE) <= set(texts)
    settled(page, "owner", lambda: page.get_by_label("Language").select_option("zh"))
    expect(page.locator("#timeline-title")).to_have_text("时间线")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.get_by_role("button", name="退出")).to_be_visible()
    expect(page.locator("#timeline thead th").first).to_have_text("时间")
    expect(page.locator("#fade-title")).to_have_text("关注度随时间的变化")
    first = page.locator("#timeline input.pick").first
    memory = first.get_attribute("data-memory")
    first.check()  # read now: the plot reads from now on
    page.get_by_role("button", name="显示图表").click()
    expect(page.locator("#fade-figure")).to_have_attribute("data-drawn", f"60|0:{memory}")
    expect(page.locator("#status")).to_have_text("已读取 1 条记忆在 12 个时间点的关注度。")
    settled(page, "owner", lambda: page.get_by_label("语言").select_option("en"))
    expect(page.locator("#timeline-title")).to_have_text("Timeline")
    expect(first).to_be_checked()  # kept while the page is read again, and drawn again
    expect(page.locator("#fade-figure")).to_have_attribute("data-drawn", f"60|0:{memory}")
    expect(page.get_by_role("button", name="Hide the plot")).to_be_visible()

    context = browser.new_context(viewport=PHONE, locale="zh-CN", timezone_id="UTC")
    watched = Watched(context)
    phone = watched.page
    sign_in(phone, served.console, served.admin, label="API 密钥")
    expect(phone.locator("h1")).to_have_text("用户")
    visit(phone, f"{served.console}#/owner/{served.chinese}", "owner")
    expect(phone.locator("#timeline tbody tr")).to_have_count(len(CHINESE))
    expect(phone.locator("#timeline")).to_contain_text(CHINESE[0])
    expect(phone.locator("#timeline thead th").nth(3)).to_have_text("文本")
    widths = phone.evaluate(
        """() => ({page: document.documentElement.scrollWidth,
                   view: document.documentElement.clientWidth})"""
    )
    assert widths["page"] <= widths["view"], "the page scrolls sideways at a phone's width"
    if served.embedded and chinese_font():  # Debian: fonts-noto-cjk
        phone.screenshot(path=str(DOCS / "console-phone.png"))
    visit(phone, f"{served.console}#/owner/{served.chinese}/recall", "recall")
    phone.get_by_label("问题", exact=True).fill(CHINESE[0])
    phone.get_by_role("button", name="回忆", exact=True).click()
    expect(phone.locator("svg#recall-graph g.node").first).to_be_visible()
    widths = phone.evaluate(
        """() => ({page: document.documentElement.scrollWidth,
                   view: document.documentElement.clientWidth,
                   graph: document.querySelector('.graph-scroll').scrollWidth,
                   box: document.querySelector('.graph-scroll').clientWidth})"""
    )
    assert widths["page"] <= widths["view"], "the recall page scrolls sideways at a phone's width"
    assert widths["graph"] > widths["box"], "the subgraph is squeezed, not scrolled, on a phone"
    with served.client() as client:  # no sleep ran for the Chinese owner: nothing of either yet
        assert client.events(served.chinese) == []
        assert client.impressions(served.chinese) == []
    visit(phone, f"{served.console}#/owner/{served.chinese}/events", "events")
    expect(phone.locator("#events-none")).to_have_text(
        "还没有事件：睡眠任务会根据对话总结生成事件。"
    )
    expect(phone.locator("h1")).to_have_text(f"事件：{served.chinese}")
    to_impressions = phone.get_by_role("link", name="印象", exact=True)
    settled(phone, "impressions", to_impressions.click)
    expect(phone.locator("#impressions-none")).to_have_text(
        "还没有印象：印象是在观察用户所说的话时推断出来的。"
    )
    assert watched.problems == []
    context.close()

    def in_zh(on: Page) -> None:
        """Switch the axe page to Chinese."""
        settled(on, "owner", lambda: on.get_by_label("Language").select_option("zh"))

    axe.check(f"#/owner/{served.chinese}", "owner", in_zh)
