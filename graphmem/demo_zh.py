"""The demo in Chinese: each English line of graphmem.demo and demo_story, with its translation.

The conversation uses the seed's own examples (桌上有喝了一半的牛奶, 我开始发烧了, 喉咙痛 and a
cold, 迪士尼 twice half a year apart, weak hints of character). Keys are the English texts as
the demo writes them, {fields} included; a translation keeps the same fields.
"""

CHINESE = {
    # The conversation, step by step.
    "I'm allergic to milk: even a little gives me hives.": "我对牛奶过敏，喝一点就会起疹子。",
    "I love making pork dumplings with chives.": "我喜欢包猪肉韭菜饺子。",
    "I love grandma's ginger dumplings best.": "我最爱奶奶包的姜味饺子。",
    "Grandma's dumpling recipe uses pork, chives and ginger.": "奶奶的饺子配方用猪肉、韭菜和姜。",
    "There's half a glass of milk on the table.": "桌上有喝了一半的牛奶。",
    "My throat is sore and I've felt tired all afternoon.": "我喉咙痛，一下午都觉得很累。",
    "I started having a fever": "我开始发烧了",
    "I started having a fever.": "我开始发烧了。",
    "We arrived at Disneyland today, the kids loved the castle.": (
        "我们今天到了迪士尼，孩子们很喜欢城堡。"
    ),
    "Second day at Disneyland: we rode Space Mountain twice.": (
        "在迪士尼的第二天，我们坐了两次太空山。"
    ),
    "Last day at Disneyland, we watched the fireworks from the hotel.": (
        "在迪士尼的最后一天，我们在酒店看了烟花。"
    ),
    "We're planning another trip to Disneyland with the kids.": "我们打算再带孩子们去一次迪士尼。",
    "What should I cook tonight?": "今晚做什么菜好？",
    "I love making dumplings": "我喜欢包饺子",
    "Which dumplings do I love best?": "我最爱哪种饺子？",
    "I feel like making dumplings this weekend": "这个周末我想包饺子",
    "Should I make pork dumplings?": "我该包猪肉饺子吗？",
    "I helped my neighbour carry her groceries upstairs.": "我帮助邻居把买的菜搬上了楼。",
    "I volunteered at the food bank on Saturday.": "周六我去食物银行做志愿者。",
    "I donated blood at the hospital.": "我在医院献血了。",
    "I helped a lost kid find his parents at the mall.": "我帮助一个走丢的孩子在商场找到了父母。",
    "I volunteered to read to the kids at the library.": "我做志愿者，在图书馆给孩子们读书。",
    "I donated my old coats to the shelter.": "我把旧大衣捐赠给了收容所。",
    "I helped an old man cross the busy road.": "我帮助一位老人过了繁忙的马路。",
    "I volunteered to clean up the park by the river.": "我做志愿者，清扫河边的公园。",
    "I donated our old toys to the children's hospital.": "我把家里的旧玩具捐赠给了儿童医院。",
    "I helped my sister paint her kitchen.": "我帮助妹妹粉刷了她的厨房。",
    "I got promoted and I'm so happy at work.": "我升职了，工作上特别开心。",
    "I'm stressed, my new boss keeps changing the deadlines.": "我压力很大，新老板总是改截止日期。",
    "I can't sleep, I keep worrying about my job.": "我睡不着，一直在担心工作。",
    "I feel anxious every Sunday evening before work.": "每个周日晚上想到上班我就焦虑。",
    # The header and the end.
    "graphmem demo: seven months with one user, played in simulated time": (
        "graphmem 演示：与一位用户的七个月，在模拟时间中展开"
    ),
    "store: {store}; owner {owner}": "存储：{store}；用户 {owner}",
    "neo4j at {uri}, database {database}": "neo4j，地址 {uri}，数据库 {database}",
    "networkx, in memory only (pass --path FILE to keep it)": (
        "networkx，只在内存中（用 --path FILE 保存）"
    ),
    "networkx in {path}": "networkx，文件 {path}",
    "cognition: offline rules; embeddings: e5 on the CPU; no network, same figures each run": (
        "认知：离线规则；向量：CPU 上的 e5；不联网，每次运行数字相同"
    ),
    "att = attention label 0-10 (the memory's importance); T0-T3 = tier, hot to deep": (
        "关注 = 关注度标注 0-10（记忆的重要性）；T0-T3 = 记忆层，由热到深"
    ),
    "plot of attention over time: {plot}": "关注度随时间变化图：{plot}",
    "  (titled in English: matplotlib found no font with Chinese characters; install one,"
    " e.g. apt install fonts-noto-cjk, and run again)": (
        "  （图中文字为英文：matplotlib 没有找到中文字体。安装一个中文字体后再运行，"
        "例如 apt install fonts-noto-cjk）"
    ),
    "the plot of attention over time needs matplotlib: pip install 'graphmem[demo]'": (
        "关注度随时间变化图需要 matplotlib：pip install 'graphmem[demo]'"
    ),
    "done in {seconds:.1f} s": "用时 {seconds:.1f} 秒",
    # The steps' titles.
    "Attention labelling: each new item is judged in the light of related memories": (
        "关注度标注：每条新信息都结合相关记忆来评判"
    ),
    "Recall: a fever the next morning brings back yesterday's sore throat": (
        "联想：第二天早上发烧，想起昨天的喉咙痛"
    ),
    "Major events: a three-day trip is one event; a trip months later follows it": (
        "大类事件：三天的旅行是一个事件；几个月后的旅行是接在它后面的新事件"
    ),
    "Regional wake-up: a run of questions on one topic warms its neighbours": (
        "区域唤醒：围绕一个话题的一连串问题，让相邻的记忆升温"
    ),
    "Impressions: weak hints of character add up to a conjecture": (
        "印象冲击：对性格的微弱推知累积成猜想"
    ),
    "Consolidation: in sleep, a contradicted fact loses belief and is kept": (
        "记忆整理：睡眠中，被反驳的事实失去信念，但仍被保留"
    ),
    # What the steps print.
    "Mon": "周一",
    "Tue": "周二",
    "Wed": "周三",
    "Thu": "周四",
    "Fri": "周五",
    "Sat": "周六",
    "Sun": "周日",
    ", ": "，",
    "att": "关注",
    "impression {statement}: belief {before:.2f} → {after:.2f}": (
        "印象 {statement}：信念 {before:.2f} → {after:.2f}"
    ),
    ": a conjecture, returned by observe": "：成为猜想，由 observe 返回",
    "in working memory: {text} (attention {level:.1f})": "工作记忆中：{text}（关注度 {level:.1f}）",
    "  shares {shared}, so it passes on {share} × {level:.1f} = {passed:.1f}": (
        "  共有 {shared}，因此传递 {share} × {level:.1f} = {passed:.1f}"
    ),
    "for a user with no such memory: {score:.1f} ({reason}), T{tier}": (
        "对没有这条记忆的用户：{score:.1f}（{reason}），T{tier}"
    ),
    "no salience cue": "没有显著性线索",
    "peek": "窥视",
    "recall": "回忆",
    "motivation {motivations}: searched tiers {depths}": "动机 {motivations}：搜索的层 {depths}",
    "score   rel   lex  imp   att →  now  rec assoc  tier memory": (
        " 得分  相关  词面 重要  关注 → 现在 新近  联想  层   记忆"
    ),
    "via": "经由",
    "impression": "印象",
    "rel = cosine similarity, lex = shared words (BM25, 0-1 over those found),"
    " imp = importance, att → now = attention before and after this use woke it,"
    " rec = recency, assoc = relevance gained from neighbours"
    " (↳ the one it came through most) and from an impression the query implies too": (
        "相关 = 余弦相似度，词面 = 共有词语（BM25，在找到的记忆中归一到 0-1），重要 = 重要性，"
        "关注 → 现在 = 这次使用唤醒它之前和之后的关注度，新近 = 新近度，"
        "联想 = 从相邻记忆得到的相关度（↳ 主要经由的那条记忆）及从查询同样蕴含的印象得到的相关度"
    ),
    "sleep job": "睡眠任务",
    "sleep job: {counts}": "睡眠任务：{counts}",
    "derived": "推导",
    "summaries": "总结",
    "events started": "新事件",
    "events continued": "延续事件",
    "profile facts": "画像事实",
    "facts": "事实",
    "SUPPORTS": "SUPPORTS",
    "CONTRADICTS": "CONTRADICTS",
    "MERGED_INTO": "MERGED_INTO",
    "retiered": "换层",
    "{category} event {title}, storyline:": "{category}事件 {title}，脉络：",
    "travel": "旅行",
    "illness": "疾病",
    "work": "工作",
    "celebration": "庆祝",
    "study": "学习",
    "home": "家居",
    "relationship": "感情",
    "NEXT from {title}: its last news came {days} days before, past its {window:g}-day window": (
        "NEXT 来自 {title}：它最后的消息在 {days} 天前，超出了 {window:g} 天的时效"
    ),
    "forgetting: six months unused, memories per tier T0/T1/T2/T3 {spread}": (
        "遗忘：六个月未用，各层记忆数 T0/T1/T2/T3 {spread}"
    ),
    "{memory} was in T{tier}, {depth} the tiers searched: {outcome}": (
        "{memory} 在 T{tier}，{depth}搜索的层：{outcome}"
    ),
    "within": "在",
    "below": "低于",
    "found": "找到",
    "not found": "没找到",
    "before": "之前",
    "Q{number}": "问{number}",
    " recall {query} (k=2)": " 回忆 {query}（k=2）",
    "attention, tier (* used, + woken)": "关注度 层（* 用到，+ 唤醒）",
    "each time, the recipe gained {gain:.2f} short-term as a neighbour of what was used: {use:g}"
    " × {per_hop:g} per hop × RELATED weight {weight:g}": (
        "每一次，配方作为被用到记忆的邻居获得短期关注 {gain:.2f}：{use:g} × 每跳 {per_hop:g} ×"
        " RELATED 权重 {weight:g}"
    ),
    "belief in {statement} after each hint (noisy-OR, half-life {days:g} days)": (
        "每条线索之后对 {statement} 的信念（noisy-OR，半衰期 {days:g} 天）"
    ),
    "→ conjecture {statement} (belief {belief:.2f}), returned by observe": (
        "→ 猜想 {statement}（信念 {belief:.2f}），由 observe 返回"
    ),
    "belief       attention    tier      memory": "信念         关注度       层       记忆",
    "Of two contradicting facts, the one of lower belief (the newcomer on a tie) moves {rate:g}"
    " of the way to 1 - the other's belief and keeps {kept:.0%} of its attention. Nothing is"
    " deleted: the rows above are read back from the graph after the job.": (
        "两个相互矛盾的事实中，信念较低的一个（相同时为新来的）向 1 减去另一个的信念移动 {rate:g}，"
        "并保留 {kept:.0%} 的关注度。什么都不删除：上面各行是任务之后从图中读回的。"
    ),
    "Profile: who the user is now, read from the graph without a model": (
        "画像：用户现在是什么样的人，不调用模型，从图中读出"
    ),
    "profile": "画像",
    "{kind}: {subject}": "{kind}（{subject}）",
    "allergy": "过敏",
    "mood at work": "工作心情",
    "{slot}: {text} (belief {belief:.2f}, since {since})": (
        "{slot}：{text}（信念 {belief:.2f}，自 {since}）"
    ),
    "conjecture {text} (belief {belief:.2f}, fades {fades})": (
        "猜想 {text}（信念 {belief:.2f}，{fades} 淡去）"
    ),
    "ongoing {category} event {title}: {latest}": "进行中的{category}事件 {title}：{latest}",
    "Facts are read in the dialogues by the sleep job, one value a slot (the latest); a"
    " conjecture shows until its belief fades below {faded:g}: the cold of day 1 (half-life"
    " {days:g} days) is gone by day 214, kindness (a year) is not.": (
        "事实由睡眠任务从对话中读出，每个槽位一个值（最新的）；猜想在信念降到 {faded:g} 以下之前"
        "一直显示：第 1 天的感冒（半衰期 {days:g} 天）到第 214 天已经淡去，善良（一年）没有。"
    ),
    # The plot.
    "recalled": "被回忆",
    "woken": "被唤醒",
    "contradicted in sleep": "睡眠中被反驳",
    "{day}, enlarged": "{day}，放大",
    "%b %d": "%m-%d",
    "%b %Y": "%Y-%m",
    "attention": "关注度",
    "long-term part (half-life 30 days)": "长期部分（半衰期 30 天）",
    "short-term part (half-life 12 hours)": "短期部分（半衰期 12 小时）",
    "graphmem demo: attention of {count} memories over simulated months": (
        "graphmem 演示：{count} 条记忆在模拟的几个月中的关注度"
    ),
}
"""The demo's English lines and their Chinese."""
