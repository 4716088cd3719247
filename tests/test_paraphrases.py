"""The seed's stories told in other words: paraphrase tests of the offline cognition.

Each of the seed stories (a milk allergy and a milk cue, a sore throat and a cold, a fever the
next day, ten kind acts, a trip twice, a good mood against worries) is told here several times
in English, in Chinese and, for the allergy and the fever, across the two languages, each
telling in everyday words of its own, and the outcome the story asks for is asserted through
the public API on both stores, as tests/test_scenarios_*.py assert it for the seed's own
sentences.

The rule of these tests: their sentences are kept out of the cognition's lexicon and
prototypes. No telling mentions the lexicon's cue words for its story (salience, allergy, event
category, mood and kindness cues), none holds all the terms of a cause of the lexicon's causal
knowledge, and none is one of the prototypes' sentences, so that the tests measure how the
cognition generalises to what it was not written against:
`test_tellings_avoid_the_lexicon_and_the_prototypes` checks it. The tellings not understood yet
are listed, with why, in NOT_YET: expected to fail, strictly.
"""

import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem.cognition import lexicon
from graphmem.cognition.lexicon import Cues
from graphmem.memory import GraphMem
from graphmem.model import Event, LinkType
from graphmem.store.base import Store
from graphmem.terms import mentions, terms, words
from tests.test_scenarios_attention import texts
from tests.test_scenarios_sleep import edges, memory_by_text, of_type, tell

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
START = datetime(2026, 3, 1, 9, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]

EN_COLD, ZH_COLD = "The user has a cold", "用户感冒了"
EN_KIND, ZH_KIND = "The user is a kind person", "用户是个善良的人"


@dataclass(frozen=True)
class Allergy:
    """A food allergy stated in other words, then a cue that only names the food otherwise."""

    allergy: str
    cue: str


@dataclass(frozen=True)
class Throat:
    """A sore or scratchy throat in other words, and the cold it should make one think of."""

    statement: str
    cold: str


@dataclass(frozen=True)
class Fever:
    """Day one: a sore throat in other words and two unrelated lines; day two: a fever."""

    throat: str
    others: tuple[str, str]
    fever: str
    cold: str
    """The cold impression the fever's recall shows: the one held since the throat."""


@dataclass(frozen=True)
class Kindness:
    """Ten kind acts, none called so, and the conjecture they should add up to."""

    acts: tuple[str, str, str, str, str, str, str, str, str, str]
    kind: str


@dataclass(frozen=True)
class Trip:
    """Three days of one trip, the first with an unrelated line, then the same place again."""

    first_day: str
    unrelated: str
    second_day: str
    third_day: str
    again: str

    @property
    def days(self) -> tuple[tuple[str, ...], ...]:
        return ((self.first_day, self.unrelated), (self.second_day,), (self.third_day,))


@dataclass(frozen=True)
class Contradiction:
    """A good mood, then three lines of worry, sleeplessness or anxiety on the next days."""

    good_mood: str
    worries: tuple[str, str, str]


ALLERGIES = {
    "en-1": Allergy(
        allergy="Even a drop of cow's milk gives me hives and swollen lips.",
        cue="My neighbour left a jug of fresh cream on the porch for me.",
    ),
    "en-2": Allergy(
        allergy="My body reacts badly to dairy, my face puffs up and I itch all over.",
        cue="The barista handed me a cappuccino topped with foamed milk.",
    ),
    "en-3": Allergy(
        allergy="I break out in a rash whenever I drink anything from a cow.",
        cue="There's a carton of whole milk sitting open in the fridge.",
    ),
    "zh-1": Allergy(
        allergy="我一喝牛奶身上就起红疙瘩，痒得不行。", cue="同事给我带了一杯拿铁咖啡。"
    ),
    "zh-2": Allergy(
        allergy="乳制品我一点都碰不得，一吃嘴唇就肿起来。", cue="冰箱里有一盒刚开封的鲜奶。"
    ),
    "zh-3": Allergy(
        allergy="我的身体受不了奶制品，吃了会浑身发痒、起风团。", cue="邻居送来一大瓶新鲜的牛奶。"
    ),
    "zh-en-1": Allergy(
        allergy="牛奶我是一口都不能喝，喝了满脸起包。",
        cue="There's a pitcher of milk next to my cereal bowl.",
    ),
    "zh-en-2": Allergy(
        allergy="我不能碰任何奶类，沾一点就满身红点。",
        cue="My coworker left a tub of yogurt in the shared fridge.",
    ),
    "en-zh-1": Allergy(
        allergy="Dairy of any kind leaves me covered in red blotches.",
        cue="妈妈给我热了一杯牛奶。",
    ),
    "en-zh-2": Allergy(
        allergy="If I have so much as a sip of milk, my lips puff up.",
        cue="桌上放着一盒没喝完的酸奶。",
    ),
}

THROATS = {
    "en-1": Throat("Swallowing feels like gulping down broken glass this morning.", EN_COLD),
    "en-2": Throat("I woke up hoarse, and it stings every time I swallow.", EN_COLD),
    "en-3": Throat(
        "It's all scratchy and raw at the back of my mouth, I can barely speak.", EN_COLD
    ),
    "zh-1": Throat("今天一咽口水就像刀割一样。", ZH_COLD),
    "zh-2": Throat("早上起来声音都哑了，吞东西的时候火辣辣的。", ZH_COLD),
    "zh-3": Throat("我咽部又干又痒，吃饭时像有沙子在磨。", ZH_COLD),
}

FEVERS = {
    "en-1": Fever(
        throat="It stings like crazy whenever I swallow my tea.",
        others=(
            "My cousin adopted a puppy from the shelter.",
            "We're repainting the hallway blue.",
        ),
        fever="I'm burning up and shivering under the duvet.",
        cold=EN_COLD,
    ),
    "en-2": Fever(
        throat="My voice is croaky and swallowing is agony.",
        others=(
            "The bakery on our corner sells cinnamon bagels now.",
            "I finished the jigsaw puzzle of the Eiffel Tower.",
        ),
        fever="The thermometer read 39 degrees tonight.",
        cold=EN_COLD,
    ),
    "en-3": Fever(
        throat="There's a raw, scratchy feeling at the back of my mouth when I gulp.",
        others=(
            "My son scored a goal at football practice.",
            "I reorganised the bookshelves by colour.",
        ),
        fever="My forehead is scorching hot and I've got the chills.",
        cold=EN_COLD,
    ),
    "zh-1": Fever(
        throat="我一吞口水就像有刀片在刮。",
        others=("我表妹领养了一只小狗。", "我们把走廊刷成了蓝色。"),
        fever="我浑身滚烫，一直打寒战。",
        cold=ZH_COLD,
    ),
    "zh-2": Fever(
        throat="我声音哑了，咽东西火辣辣的。",
        others=("街角新开的面包店卖肉桂面包。", "我拼完了一幅埃菲尔铁塔的拼图。"),
        fever="体温计量出来三十九度。",
        cold=ZH_COLD,
    ),
    "zh-3": Fever(
        throat="吃饭的时候咽部干涩发痒，像有沙子。",
        others=("我儿子在足球训练里进了一个球。", "我按颜色重新整理了书架。"),
        fever="我额头烫得吓人，一阵阵发冷。",
        cold=ZH_COLD,
    ),
}
CROSS_FEVERS = {
    # Across languages the cold is the one made on day one, in the throat's language: the
    # fever implies it in its own, and a recall evokes the impression in either wording.
    "zh-en-1": Fever(
        throat="我咽口水都费劲，里面像着了火。",
        others=("我给阳台的绿萝换了个盆。", "我们周末去看了场电影。"),
        fever="I'm running hot and my whole body is shaking.",
        cold=ZH_COLD,
    ),
    "zh-en-2": Fever(
        throat="今天说话声音都劈了，吞咽很难受。",
        others=("我把旧自行车卖给了邻居。", "楼下新开了一家奶茶店。"),
        fever="My skin is hot to the touch and I can't stop shivering.",
        cold=ZH_COLD,
    ),
    "en-zh-1": Fever(
        throat="Swallowing feels like sandpaper today.",
        others=(
            "My aunt sent us a box of oranges.",
            "I rearranged the furniture in the spare room.",
        ),
        fever="我全身发烫，盖了两床被子还在发抖。",
        cold=EN_COLD,
    ),
    "en-zh-2": Fever(
        throat="My voice cracked all morning and gulping anything is rough.",
        others=(
            "We adopted a goldfish named Bubbles.",
            "The neighbours are repaving their driveway.",
        ),
        fever="我量了一下，三十九度二，浑身没劲。",
        cold=EN_COLD,
    ),
}
ALL_FEVERS = FEVERS | CROSS_FEVERS

KINDNESSES = {
    "en-1": Kindness(
        acts=(
            "I carried my elderly neighbour's shopping bags up to the fourth floor.",
            "I spent Saturday morning serving soup at the shelter downtown.",
            "I gave my lunch to a homeless man outside the station.",
            "I walked a blind lady to her bus stop.",
            "I stayed late to fix a classmate's laptop for free.",
            "I lent my savings to a friend who couldn't pay his rent.",
            "I picked up litter along the river with some strangers.",
            "I cooked dinner for the new mum next door.",
            "I shovelled snow off the old couple's driveway across the street.",
            "I paid for the coffee of the person behind me in the queue.",
        ),
        kind=EN_KIND,
    ),
    "en-2": Kindness(
        acts=(
            "I taught a retired man from church how to video-call his grandkids.",
            "I gave up my seat on the train to a woman with a cane.",
            "I had a stray cat neutered and found it a family.",
            "I looked after my sister's twins all day so she could rest.",
            "I gave blood at the Red Cross van.",
            "I tutor two refugee kids in maths every Wednesday evening.",
            "I returned a wallet full of cash to its owner.",
            "I mailed a care package to a stranger's grandmother overseas.",
            "I read bedtime stories to kids at the library.",
            "I ran a half marathon to raise money for the animal rescue.",
        ),
        kind=EN_KIND,
    ),
    "en-3": Kindness(
        acts=(
            "I handed my umbrella to a stranger caught in the rain.",
            "I drove my friend to the airport at 4 am.",
            "I pay a girl's school fees in Kenya every month.",
            "I pushed a stranger's stalled car off the road.",
            "I waited with an elderly woman on the platform until her son arrived.",
            "I do the shopping for my grandparents' friends who can't get out.",
            "I planted trees in the park with the residents' group.",
            "I mended the fence of the widow down the road for nothing.",
            "I fed the neighbours' dog every day while they were away.",
            "I brought blankets to people sleeping rough under the bridge.",
        ),
        kind=EN_KIND,
    ),
    "zh-1": Kindness(
        acts=(
            "我把楼下阿婆买的米扛上了六楼。",
            "周六上午我在社区食堂给孤寡老人打饭。",
            "我把午饭给了地铁站门口的流浪汉。",
            "下雨天我把伞借给了一个没带伞的陌生人。",
            "我免费给同学修好了电脑。",
            "我给山区的孩子寄了一箱课外书。",
            "我陪一位盲人走到了公交站。",
            "我在河边和一群陌生人一起捡垃圾。",
            "我给隔壁刚生完孩子的邻居送了一锅鸡汤。",
            "我替排在后面的人付了咖啡钱。",
        ),
        kind=ZH_KIND,
    ),
    "zh-2": Kindness(
        acts=(
            "我教退休的王大爷用手机视频聊天。",
            "在公交车上我把座位让给了拄拐杖的老奶奶。",
            "我把小区里的流浪猫送去绝育，又给它找了领养人。",
            "我照顾姐姐的双胞胎一整天，好让她歇口气。",
            "我给红十字会的急救站送去了一车矿泉水。",
            "每周三晚上我给邻居家的孩子免费补习数学。",
            "我捡到一个装满现金的钱包，交还给了失主。",
            "我给素不相识的灾区家庭寄了冬衣。",
            "我在图书馆给小朋友们讲故事。",
            "我跑了半程马拉松，为动物救助站筹款。",
        ),
        kind=ZH_KIND,
    ),
    "zh-3": Kindness(
        acts=(
            "我把自己的雨衣给了在路边淋雨的外卖小哥。",
            "凌晨四点我开车送朋友去机场。",
            "我每个月资助一个贫困学生上学。",
            "我和路人一起把抛锚的车推到了路边。",
            "我陪一位老太太在车站等到她儿子来接。",
            "我给行动不便的老邻居送菜上门。",
            "我在公园和街坊们一起种了几十棵树。",
            "我顺手把隔壁寡居阿姨家坏掉的篱笆修好了。",
            "邻居出门那几天，我每天去喂他们的狗。",
            "我给睡在桥洞下的人送了毯子。",
        ),
        kind=ZH_KIND,
    ),
}

TRIPS = {
    "en-1": Trip(
        first_day="We landed in Kyoto this afternoon and checked into a little ryokan.",
        unrelated="My brother texted about his new car.",
        second_day="Spent the whole day wandering the temples in Kyoto; my feet are killing me.",
        third_day="Our last morning in Kyoto, we bought matcha sweets before the train home.",
        again="We booked another week in Kyoto for the autumn leaves!",
    ),
    "en-2": Trip(
        first_day="First night camping in Yellowstone, we pitched the tent next to a river.",
        unrelated="The plumber finally fixed our kitchen sink.",
        second_day="Day two in Yellowstone: Old Faithful erupted right on time.",
        third_day="Packing up the tent and leaving Yellowstone, the kids want to stay longer.",
        again="Six months on, we're heading back to Yellowstone to see it under snow.",
    ),
    "en-3": Trip(
        first_day="Just got to Lisbon, the view from our balcony is amazing.",
        unrelated="Dad finally repaired the garage door.",
        second_day="Ate custard tarts in Belém and rode the yellow tram across Lisbon.",
        third_day="Final evening in Lisbon, we listened to fado in a tiny bar.",
        again="We're flying back to Lisbon in October!",
    ),
    "zh-1": Trip(
        first_day="我们今天到了京都，住进了一家日式旅馆。",
        unrelated="我哥发消息说他换了新车。",
        second_day="在京都的第二天，我们逛了一整天的寺庙。",
        third_day="离开京都前，我们买了好多抹茶点心。",
        again="秋天我们还要再去一趟京都看红叶！",
    ),
    "zh-2": Trip(
        first_day="我们今天坐缆车上了黄山，山顶的云海特别壮观。",
        unrelated="楼下的面包店开始卖肉松面包了。",
        second_day="第二天一早在黄山看了日出，冻得直哆嗦。",
        third_day="最后一天从黄山下来，腿都快走断了。",
        again="我们打算冬天再上一次黄山看雪。",
    ),
    "zh-3": Trip(
        first_day="刚到成都，第一顿就吃了地道的火锅。",
        unrelated="我把阳台上的花浇了。",
        second_day="在成都的第二天，我们去看了大熊猫。",
        third_day="在成都的最后一天，我们逛了宽窄巷子，晚上坐高铁回家。",
        again="过了半年，我们又回成都吃火锅了。",
    ),
}

CONTRADICTIONS = {
    "en-1": Contradiction(
        good_mood="Life feels wonderful lately, I wake up smiling every morning.",
        worries=(
            "My mind keeps racing about the mortgage and I lie awake till 3 am.",
            "I'm on edge all day and my heart pounds for no reason.",
            "I dread opening my emails, everything feels like it's falling apart.",
        ),
    ),
    "en-2": Contradiction(
        good_mood="I've been on top of the world this week.",
        worries=(
            "I toss and turn every night and only drift off at dawn.",
            "There's a knot in my stomach about the layoffs at the company.",
            "I'm so tense that my jaw aches from clenching it.",
        ),
    ),
    "en-3": Contradiction(
        good_mood="Things are going brilliantly and I feel light as a feather.",
        worries=(
            "I keep fretting over whether I'll make rent this month.",
            "I've been staring at the ceiling all night again.",
            "My nerves are shot and I jump at every little noise.",
        ),
    ),
    "zh-1": Contradiction(
        good_mood="最近每天都乐呵呵的，日子过得特别顺心。",
        worries=(
            "房贷的事让我整夜翻来覆去。",
            "我这几天心里七上八下的，总觉得要出事。",
            "一想到下个月的评审我就手心冒汗。",
        ),
    ),
    "zh-2": Contradiction(
        good_mood="这阵子我整个人神清气爽，干什么都带劲。",
        worries=(
            "我每晚都要折腾到天亮才能合眼。",
            "总觉得家里要出什么事，心里一直悬着。",
            "我紧张得吃不下饭。",
        ),
    ),
    "zh-3": Contradiction(
        good_mood="这些天我心里美滋滋的，看什么都顺眼。",
        worries=(
            "夜里我老是醒，醒了就再也合不上眼。",
            "我整天提心吊胆的，生怕哪里出了纰漏。",
            "我胸口发闷，老是坐立不安。",
        ),
    ),
}


NOT_YET = {
    ("allergy", "en-1"): "cream and milk are not alike enough to e5 (word margin 0.002)",
    ("allergy", "en-3"): "'anything from a cow' is milk only to world knowledge",
    ("allergy", "zh-1"): "jieba cuts 拿铁咖啡 to 咖啡, which is not alike 牛奶",
    ("allergy", "zh-en-2"): "yogurt and 奶类 are not alike enough to e5",
    ("allergy", "en-zh-2"): "the control: a yoghurt on the table is near health on its own",
    ("throat", "zh-2"): "a hoarse voice and burning when swallowing is nearer other complaints",
    ("fever", "en-2"): "the cold's conjecture is nearer the thermometer than the throat is",
    ("fever", "zh-2"): "day one's hoarse voice and burning is nearer other complaints",
    ("kindness", "en-1"): "all ten acts must read as kind; some are not near the prototypes",
    ("kindness", "en-2"): "all ten acts must read as kind; some are not near the prototypes",
    ("kindness", "en-3"): "all ten acts must read as kind; some are not near the prototypes",
    ("kindness", "zh-1"): "all ten acts must read as kind; some are not near the prototypes",
    ("kindness", "zh-2"): "all ten acts must read as kind; some are not near the prototypes",
    ("kindness", "zh-3"): "all ten acts must read as kind; some are not near the prototypes",
    ("trip", "zh-2"): "a day of the trip is not read as travel",
    ("trip", "zh-3"): "a day of the trip is not read as travel",
    ("mood", "en-3"): "a worry or the good mood is not read as a mood",
}
"""The tellings the offline cognition does not understand yet, and why (issue 41 keeps the
table): each is expected to fail, strictly, so that one understood fails the run until it is
taken off this list."""


def tellings(story: str, told: Mapping[str, object]) -> list[object]:
    """A story's tellings as parameters, those of NOT_YET expected to fail."""
    return [
        pytest.param(
            telling,
            id=key,
            marks=[
                pytest.mark.xfail(raises=AssertionError, strict=True, reason=NOT_YET[story, key])
            ]
            if (story, key) in NOT_YET
            else [],
        )
        for key, telling in told.items()
    ]


@pytest.mark.parametrize("telling", tellings("allergy", ALLERGIES))
def test_an_allergy_in_other_words_makes_its_food_worth_attention(
    memory: GraphMem, owner: str, telling: Allergy
) -> None:
    assert not words(telling.allergy) & words(telling.cue)  # attention cannot pass by a word
    allergy = memory.observe(owner, telling.allergy, message_id="allergy", at=START)
    assert allergy.memories[0].importance >= 7  # a food one reacts to is a matter of health
    cue = memory.observe(owner, telling.cue, message_id="cue", at=START + HOUR)
    assert cue.memories[0].importance >= 7  # worth attention for a user allergic to the food
    control = memory.observe(owner + "-control", telling.cue, message_id="cue", at=START + HOUR)
    assert control.memories[0].importance < 5  # and not for anyone else


@pytest.mark.parametrize("telling", tellings("throat", THROATS))
def test_a_sore_throat_in_other_words_makes_a_cold_at_once(
    memory: GraphMem, owner: str, telling: Throat
) -> None:
    observed = memory.observe(owner, telling.statement, message_id="throat", at=START)
    colds = [conjecture for conjecture in observed.conjectures if conjecture.text == telling.cold]
    assert colds, [conjecture.text for conjecture in observed.conjectures]
    assert colds[0].belief is not None
    assert colds[0].belief >= 0.7


@pytest.mark.parametrize("telling", tellings("fever", ALL_FEVERS))
def test_a_fever_in_other_words_recalls_yesterdays_throat_first(
    memory: GraphMem, owner: str, telling: Fever
) -> None:
    for number, text in enumerate((telling.throat, *telling.others)):
        memory.observe(owner, text, message_id=f"d1-{number}", at=START + number * HOUR)
    # The agent recalls for the user's new message before it stores it, as the demo does.
    recall = memory.recall(owner, telling.fever.rstrip(".。!！"), k=3, at=START + DAY)
    assert texts(recall)[0] == telling.throat
    assert telling.cold in {impression.text for impression in recall.impressions}


def kindness_conjectures(memory: GraphMem, owner: str, telling: Kindness) -> list[int]:
    """Tell the ten acts three days apart; the numbers of the acts that made a conjecture."""
    made = []
    for number, text in enumerate(telling.acts):
        observed = memory.observe(owner, text, message_id=f"c{number}", at=START + number * 3 * DAY)
        if any(conjecture.text == telling.kind for conjecture in observed.conjectures):
            made.append(number)
    return made


@pytest.mark.parametrize("telling", tellings("kindness", KINDNESSES))
def test_ten_kind_acts_in_other_words_add_up_to_a_kind_person(
    memory: GraphMem, owner: str, telling: Kindness
) -> None:
    made = kindness_conjectures(memory, owner, telling)
    assert made  # by the tenth act at the latest
    assert made[0] >= 5  # weak hints: not before the sixth act


@pytest.mark.parametrize("telling", tellings("trip", TRIPS))
def test_a_trip_in_other_words_is_one_event_and_a_later_one_follows_it(
    memory: GraphMem, store: Store, owner: str, telling: Trip
) -> None:
    for number, lines in enumerate(telling.days):
        tell(memory, owner, lines, START + number * DAY, f"day{number}")
    memory.consolidate(owner, at=START + 3 * DAY)
    graph = store.export(owner)
    [trip] = of_type(graph, Event)
    assert isinstance(trip, Event)
    assert trip.category == "travel"
    assert [line[:10] for line in trip.text.splitlines()] == [
        "2026-03-01",
        "2026-03-02",
        "2026-03-03",
    ]
    members = {source for source, target in edges(graph, LinkType.PART_OF) if target == trip.id}
    for lines in telling.days:
        assert memory_by_text(graph, lines[0]).id in members
    assert memory_by_text(graph, telling.unrelated).id not in members

    half_a_year = START + 183 * DAY
    tell(memory, owner, (telling.again,), half_a_year, "later")
    memory.consolidate(owner, at=half_a_year + DAY)
    graph = store.export(owner)
    events = sorted(of_type(graph, Event), key=lambda event: event.created_at)
    assert len(events) == 2
    assert edges(graph, LinkType.NEXT) >= {(events[0].id, events[1].id)}


@pytest.mark.parametrize("telling", tellings("mood", CONTRADICTIONS))
def test_a_good_mood_in_other_words_against_worries_is_lowered_not_deleted(
    memory: GraphMem, store: Store, owner: str, telling: Contradiction
) -> None:
    for number, text in enumerate([telling.good_mood, *telling.worries]):
        memory.observe(owner, text, message_id=f"w{number}", at=START + number * DAY)
    memory.consolidate(owner, at=START + 4 * DAY)
    graph = store.export(owner)
    mood = memory_by_text(graph, telling.good_mood)
    assert mood.belief is not None
    assert mood.belief < 0.7
    worried = {memory_by_text(graph, text).id for text in telling.worries}
    contradictions = edges(graph, LinkType.CONTRADICTS)
    assert any((worry, mood.id) in contradictions for worry in worried)


def cue_words(*sets: Cues) -> tuple[str, ...]:
    return tuple(word for cues in sets for word in cues.words)


def named(sets: tuple[Cues, ...], *names: str) -> tuple[Cues, ...]:
    return tuple(cues for cues in sets if cues.name in names)


HEALTH = cue_words(*named(lexicon.SALIENCE, "health or safety"))
STRONG = cue_words(*named(lexicon.SALIENCE, "health or safety", "life event or strong feeling"))
SALIENT = cue_words(*lexicon.SALIENCE)
ILLNESS = (
    HEALTH
    + cue_words(*named(lexicon.EVENT_CATEGORIES, "illness"))
    + cue_words(*named(lexicon.IMPRESSION_HALF_LIVES, "illness"))
)
KIND_WORDS = "help|volunteer|donat|kind|帮助|志愿|捐赠|献血|善良".split("|")
KIND = (*(cause for cause, _effect, _sufficiency in lexicon.CAUSAL_KNOWLEDGE), *KIND_WORDS)
EVENTS = cue_words(*lexicon.EVENT_CATEGORIES)
MOODS = cue_words(*lexicon.MOOD, *named(lexicon.SALIENCE, "life event or strong feeling"))
ALLERGY_PATTERNS = tuple(re.compile(pattern) for pattern in lexicon.ALLERGY)


def sentences_to_check() -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Every sentence of every telling: (story and telling, sentence, the cue words it avoids)."""
    for name, allergy in ALLERGIES.items():
        yield f"allergy {name}", allergy.allergy, STRONG
        yield f"allergy {name}", allergy.cue, SALIENT
    for name, throat in THROATS.items():
        yield f"throat {name}", throat.statement, ILLNESS
    for name, fever in ALL_FEVERS.items():
        for text in (fever.throat, *fever.others, fever.fever):
            yield f"fever {name}", text, ILLNESS
    for name, kindness in KINDNESSES.items():
        for text in kindness.acts:
            yield f"kindness {name}", text, KIND
    for name, trip in TRIPS.items():
        for text in (trip.first_day, trip.unrelated, trip.second_day, trip.third_day, trip.again):
            yield f"trip {name}", text, EVENTS
    for name, contradiction in CONTRADICTIONS.items():
        for text in (contradiction.good_mood, *contradiction.worries):
            yield f"mood {name}", text, MOODS


def test_tellings_avoid_the_lexicon_and_the_prototypes() -> None:
    checked = list(sentences_to_check())
    causes = [terms(cause) for cause, _effect, _sufficiency in lexicon.CAUSAL_KNOWLEDGE]
    seed = "\n".join(
        path.read_text(encoding="utf-8")
        for pattern in ("tests/test_scenarios_*.py", "graphmem/demo*.py")
        for path in sorted(ROOT.glob(pattern))
    ) + (ROOT / "graphmem/cognition/lexicon.py").read_text(encoding="utf-8")
    problems = []
    for where, text, cues in checked:
        if mentions(text, cues):
            problems.append(f"{where}: {text!r} mentions a lexicon cue")
        if any(pattern.search(text.lower()) for pattern in ALLERGY_PATTERNS):
            problems.append(f"{where}: {text!r} states an allergy as the lexicon does")
        if any(cause and cause <= terms(text) for cause in causes):
            problems.append(f"{where}: {text!r} holds every term of a causal rule's cause")
        if text in seed:
            problems.append(f"{where}: {text!r} is a sentence of the seed's tests or demo")
    for name, allergy in ALLERGIES.items():
        if words(allergy.allergy) & words(allergy.cue):
            problems.append(f"allergy {name}: the allergy and the cue share a content word")
    for name, fever in ALL_FEVERS.items():
        if words(fever.throat) & words(fever.fever):
            problems.append(f"fever {name}: the throat and the fever share a content word")
    sentences = [text for _where, text, _cues in checked]
    assert len(set(sentences)) == len(sentences), "a sentence is told twice"
    assert problems == []

    # graphmem.cognition.prototypes is the offline cognition's sentences of meaning.
    prototypes = importlib.import_module("graphmem.cognition.prototypes")
    known: tuple[str, ...] = prototypes.SENTENCES
    assert [text for text in sentences if text in set(known)] == []
