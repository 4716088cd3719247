"""Cue words of the offline cognition, in English and Chinese.

An English cue matches at the start of a word (`allerg` matches allergy and allergic); a cue of
three letters or fewer matches whole words only (`ill`, `sad`). A Chinese cue matches anywhere.
The Chinese cues were reviewed against the seed design's own examples (身体不适, 我开始发烧了,
喉咙痛 and a cold, 迪士尼, 情人节聚会, impressions of mood and character).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Cues:
    """A named set of cue words with the number the offline rules attach to it."""

    name: str
    value: float
    words: tuple[str, ...]


def cues(name: str, value: float, words: str) -> Cues:
    """Cues from a '|'-separated list of words."""
    return Cues(name, value, tuple(words.split("|")))


SALIENCE = (
    cues(
        "health or safety",
        8.0,
        "allerg|sick|ill|illness|fever|pain|hurt|injur|hospital|doctor|medic|emergenc|danger|"
        "throat|cough|flu|bleed|surgery|diagnos|symptom|headache|vomit|dizzy|asthma|"
        "过敏|生病|发烧|发热|疼|痛|医院|医生|药|受伤|咳嗽|感冒|手术|危险|嗓子|喉咙|头晕|呕吐|哮喘|"
        "不适|不舒服|住院|急诊",
    ),
    cues(
        "life event or strong feeling",
        7.0,
        "died|death|funeral|divorce|married|marry|wedding|engaged|pregnan|baby|born|fired|"
        "laid off|promot|anxious|anxiety|depress|scared|afraid|worried|worry|stress|panic|"
        "lonely|cry|grief|can't sleep|sleepless|insomnia|breakup|broke up|"
        "去世|离婚|结婚|订婚|怀孕|宝宝|出生|被解雇|裁员|升职|焦虑|抑郁|害怕|担心|压力|孤独|哭|"
        "失眠|睡不着|分手",
    ),
    cues(
        "plan or commitment",
        5.0,
        "plan|going to|tomorrow|next week|next month|deadline|due|appointment|trip|travel|"
        "meeting|interview|exam|visit|计划|打算|明天|下周|下个月|截止|预约|旅行|出差|面试|考试",
    ),
    cues(
        "preference or habit",
        4.0,
        "love|favorite|favourite|prefer|hate|enjoy|hobby|always|never|like to|i like|"
        "喜欢|最爱|讨厌|爱好|习惯|总是|从不",
    ),
)
"""Salience of an item: the value of its highest matching cue set (see offline.BASE_SALIENCE)."""

EVENT_CATEGORIES = (
    cues(
        "illness",
        14.0,
        "sick|ill|fever|cold|flu|cough|throat|headache|sneez|temperature|"
        "感冒|发烧|发热|咳嗽|嗓子|喉咙|头疼|生病",
    ),
    cues(
        "travel",
        30.0,
        "trip|travel|vacation|holiday|flight|hotel|disneyland|beach|tour|"
        "旅行|旅游|度假|迪士尼|机票|酒店",
    ),
    cues(
        "work",
        30.0,
        "work|job|boss|project|report|deadline|colleague|office|promot|interview|"
        "工作|上班|老板|项目|报告|加班|同事|面试",
    ),
    cues(
        "celebration",
        7.0,
        "birthday|party|wedding|anniversary|celebrat|festival|valentine|christmas|"
        "生日|派对|聚会|婚礼|纪念日|庆祝|情人节|春节|过年|节日",
    ),
    cues(
        "study",
        90.0,
        "school|class|exam|course|study|university|homework|学校|考试|课程|学习|大学|作业",
    ),
    cues("home", 60.0, "moving|move to|apartment|house|rent|renovat|搬家|房子|租房|装修"),
    cues(
        "relationship",
        180.0,
        "breakup|broke up|dating|date with|girlfriend|boyfriend|分手|约会|恋爱|女朋友|男朋友",
    ),
)
"""Event categories, each with its default timeliness in days."""

NEGATION = cues(
    "negation",
    -1.0,
    "not|no|never|don't|doesn't|didn't|isn't|aren't|wasn't|can't|cannot|won't|nobody|nothing|"
    "不|没|别|未|无",
)
"""Cues that negate a statement: two close statements of opposite negation contradict."""

NOT_NEGATING = (
    "不错|不过|不少|不久|不断|不同|不仅|不但|差不多|没错|特别|别人|区别|分别|告别|未来|无论|无聊"
).split("|")
"""Chinese words that hold a negation cue but do not negate (特别开心 is not 别开心)."""

NAME_ENDS = "now|again|too|with|since|for|last|this|next|and|but|because|so|when|after|before|in|at"
"""Words that end an English place or employer ("I live in Paris now")."""
ENGLISH_NAME = rf"[a-z][\w&-]*(?: (?!(?:{NAME_ENDS})\b)[a-z][\w&-]*)?"
"""A place or employer in English: one word, or two (new york)."""

UPDATE_SLOTS = (
    (
        "home",
        r"\bi(?: now)? (?:live|am living|'m living|moved|have moved|'ve moved|relocated)"
        rf"(?: back)? (?:in|to) (?P<value>{ENGLISH_NAME})",
    ),
    ("home", r"我(?:现在)?(?:住在|搬到了?|搬去了?)(?P<value>[\u4e00-\u9fff]{2,})"),
    (
        "work",
        r"\bi (?:now )?(?:work|am working|'m working|started working|got a job|started a new job"
        rf"|have a new job) (?:at|for) (?P<value>{ENGLISH_NAME})",
    ),
    ("work", r"我(?:现在)?在(?P<value>[\u4e00-\u9fff]{2,8}?)(?:工作|上班)"),
    (
        "name",
        r"\bmy (?P<subject>[a-z]+(?: [a-z]+)?)(?:'s name is| is called| is named)"
        r" (?P<value>[a-z][\w-]*)",
    ),
    ("name", r"我的(?P<subject>[\u4e00-\u9fff]{1,6}?)叫(?P<value>[\u4e00-\u9fff\w]{1,8})"),
    (
        "number",
        r"\bmy (?P<subject>[a-z]+(?: [a-z]+)?) (?:is now|is|changed to|was changed to)"
        r" (?P<value>[\w+-]*\d[\w+-]*)",
    ),
    (
        "number",
        r"我的(?P<subject>[\u4e00-\u9fff]{1,6}?)(?:现在是|是|改成了?|换成了?)"
        r"(?P<value>[\w+-]*\d[\w+-]*)",
    ),
)
"""What a statement can give a newer value of (where one lives, one's job, a name, a number),
as regular expressions over the lower-cased text: `value`, and `subject` for a slot that names
one (my phone number, 我的猫). Two statements of different values for the same slot and subject:
the newer one updates the older one."""

ALLERGY = (
    r"\bi(?:'m| am)(?: (?:very|really|severely|seriously|badly|so))? allergic to"
    r" (?P<subject>[a-z]+)",
    r"我对(?P<subject>[\u4e00-\u9fff]{1,6}?)(?:严重)?过敏",
)
"""A statement of an allergy: `subject`, what to (its first word in English)."""

MOOD = (
    cues(
        "good mood",
        1.0,
        "good mood|happy|great|relaxed|cheerful|excited|content|calm|"
        "心情好|心情很好|心情不错|开心|高兴|快乐|放松|兴奋",
    ),
    cues(
        "bad mood",
        -1.0,
        "bad mood|sad|worried|worry|anxious|stressed|upset|depress|can't sleep|sleepless|"
        "insomnia|exhausted|miserable|lonely|心情不好|难过|担心|焦虑|压力|失眠|睡不着|沮丧|孤独|"
        "不开心|不高兴|不快乐|郁闷|烦躁|累坏了|筋疲力尽",
    ),
)
"""Mood valence: first-person statements of opposite mood contradict."""

IMPRESSION_HALF_LIVES = (
    cues("illness", 7.0, "cold|flu|fever|sick|ill|infection|感冒|发烧|生病|感染"),
    cues("mood", 3.0, "mood|stress|sad|happy|心情|压力|难过|开心"),
    cues(
        "character",
        365.0,
        "kind|generous|patient|honest|introvert|extrovert|shy|curious|careful|person|character|"
        "性格|善良|耐心|诚实|内向|外向|害羞|细心|慷慨",
    ),
)
"""Half-life in days of an inferred impression by what it is about."""

DEFAULT_IMPRESSION_HALF_LIFE_DAYS = 30.0
"""Half-life of an impression that names none of the subjects above."""

CAUSAL_KNOWLEDGE = (
    ("sore throat", "The user has a cold", 0.9),
    ("throat hurts", "The user has a cold", 0.9),
    ("runny nose", "The user has a cold", 0.6),
    ("fever", "The user has a cold", 0.5),
    ("sneezing", "The user has a cold", 0.3),
    ("嗓子疼", "用户感冒了", 0.9),
    ("喉咙痛", "用户感冒了", 0.9),
    ("流鼻涕", "用户感冒了", 0.6),
    ("发烧", "用户感冒了", 0.5),
    ("打喷嚏", "用户感冒了", 0.3),
    ("helped", "The user is a kind person", 0.15),
    ("volunteered", "The user is a kind person", 0.15),
    ("donated", "The user is a kind person", 0.15),
    ("帮助", "用户是个善良的人", 0.15),
    ("志愿", "用户是个善良的人", 0.15),
    ("捐赠", "用户是个善良的人", 0.15),
    ("献血", "用户是个善良的人", 0.15),
    ("can't sleep", "The user is under stress", 0.4),
    ("worried", "The user is under stress", 0.3),
    ("失眠", "用户压力很大", 0.4),
    ("睡不着", "用户压力很大", 0.4),
    ("担心", "用户压力很大", 0.3),
)
"""The offline cognition's own causal knowledge (cause, effect, sufficiency), used with the
owner's CAUSES edges: a few common inferences about health, mood and character."""

IMPRESSION_WORDINGS = (
    ("The user has a cold", "用户感冒了"),
    ("The user is a kind person", "用户是个善良的人"),
    ("The user is under stress", "用户压力很大"),
)
"""The effects of CAUSAL_KNOWLEDGE as (English, Chinese) wordings of one impression: a query that
implies one evokes the owner's impression in either wording (graphmem.recall_pipeline)."""
