// graphmem console: a page of `graphmem serve` (served at /console/) that reads the HTTP API.
//
// Plain ES2020, no build step, nothing fetched but the API of the server that serves it. The
// page's Content-Security-Policy allows no inline script or style: every element is made here
// with createElement, every text goes in as textContent (never as HTML), and styles are classes
// of console.css. The key is kept in sessionStorage only (this tab), the language in
// localStorage.
'use strict';

(() => {
  const KEY_ITEM = 'graphmem.console.key';
  const LANG_ITEM = 'graphmem.console.lang';
  const MAX_IN_FLIGHT = 3; // the server answers 429 over 4 requests of one key at once
  const LOADED = Date.now().toString(36); // tells this load's pages from an earlier load's
  const PAGE_SIZE = 50;
  const OWNERS_PAGE = 25;
  const REQUESTS_SHOWN = 200;
  const GRAPH_NEIGHBOURS = 16;
  const LISTED_CHARS = 400; // a memory's text in a list; its page shows it whole
  const PLOTTED_EVENTS = 30; // the latest events drawn along time; the table lists them all
  const PLOTTED_MEMORIES = 8; // the most memories whose attention over time is drawn at once
  const FADE_TIMES = 12; // the times the timeline is read at for that plot
  const FADE_SPANS = [7, 30, 60, 180]; // its spans in days, from the time read
  const FADE_SPAN = 60;
  const HOUR = 3600 * 1000;
  const DAY = 24 * HOUR;
  const OPEN_REASONS = 3; // the reasons of the first memories of a recall are shown open
  const KINDS = ['observation', 'fact', 'knowledge', 'summary', 'conjecture'];
  const TIERS = [0, 1, 2, 3];
  const LABELS = ['Memory', 'Turn', 'Event', 'Impression'];
  const REASONS = [
    'relevance', 'lexical', 'time_match', 'speaker_match', 'asker_match',
    'statement', 'importance', 'attention', 'recency', 'association',
  ];

  // ---------------------------------------------------------------- words, in two languages

  const DICT = {
    en: {
      'skip': 'Skip to content',
      'console': 'console',
      'title': 'graphmem console',
      'nav.label': 'Main',
      'nav.owners': 'Owners',
      'nav.keys': 'Keys',
      'nav.requests': 'Requests',
      'language': 'Language',
      'signout': 'Sign out',
      'cancel': 'Cancel',
      'loading': 'Loading…',
      'loaded': 'Loaded.',
      'yes': 'yes',
      'no': 'no',
      'none': '—',
      'session.none': '(none)',
      'signin.title': 'Sign in',
      'signin.intro': 'Give a key of this server: `graphmem keys create` prints one, or an admin makes one on the Keys page.',
      'signin.kept': 'The key is kept for this tab only (sessionStorage, never a cookie) and sent with each request as a bearer token. Sign out forgets it; so does closing the tab.',
      'signin.key': 'API key',
      'signin.submit': 'Sign in',
      'signin.refused': 'The server refused this key: {message}',
      'signin.open': 'A server that has no key yet (on this machine only) takes none: leave it empty.',
      'signin.again': 'The key was refused ({message}): sign in again.',
      'signedout': 'Signed out: the key is forgotten.',
      'error.network': 'The server could not be reached.',
      'error.owner': 'This key does not cover this owner.',
      'error.page': 'This key does not cover this page: an admin key does.',
      'error.generic': 'Error {status}: {message}',
      'notfound.title': 'Not found',
      'notfound.text': 'There is no such page.',
      'owners.title': 'Owners',
      'owners.intro': 'The owners with a memory that this key covers: memories by tier, and what the health report says needs a look.',
      'owners.none': 'This key covers no owner with a memory yet.',
      'owners.caption': 'Owners and their counts',
      'owners.more': 'More owners',
      'owners.shown': '{shown} of {count} owners shown',
      'col.owner': 'Owner',
      'col.memories': 'Memories',
      'col.events': 'Events',
      'col.impressions': 'Impressions',
      'col.turns': 'Messages',
      'col.tombstones': 'Tombstones',
      'col.pending': 'Pending',
      'col.contradictions': 'Open contradictions',
      'owner.recall': 'Recall in this memory',
      'owner.back': 'All owners',
      'owner.glance': 'At a glance',
      'owner.awaiting': 'Awaiting summary',
      'owner.contradictions': 'Contradictions',
      'timeline.title': 'Timeline',
      'timeline.filters': 'Filters',
      'timeline.filtersActive': 'Filters ({count} set)',
      'timeline.caption': 'Memories, newest first',
      'timeline.shown': '{count} memories shown.',
      'timeline.more': 'Older memories',
      'timeline.end': 'No older memories.',
      'timeline.empty': 'No memory matches.',
      'timeline.scroll': 'Timeline table',
      'filter.kind': 'Kind',
      'filter.tier': 'Tier',
      'filter.session': 'Session',
      'filter.speaker': 'Speaker',
      'filter.contains': 'Text contains',
      'filter.since': 'Made since',
      'filter.until': 'Made before',
      'filter.at': 'Attention and profile at (empty: now)',
      'filter.apply': 'Apply',
      'filter.clear': 'Clear filters',
      'col.time': 'Time',
      'col.speaker': 'Speaker',
      'col.session': 'Session',
      'col.text': 'Text',
      'col.kind': 'Kind',
      'col.tier': 'Tier',
      'col.attention': 'Attention',
      'col.belief': 'Belief',
      'plot.label': 'Attention of the {count} memories shown, from {from} to {to}; hotter tiers are darker.',
      'plot.axis': 'attention',
      'col.plot': 'Plot',
      'fade.title': 'Attention over time',
      'fade.what': 'How attention would fade from the time read if the memory is not used again (each use wakes it).',
      'fade.pick': 'Plot the attention of: {text}',
      'fade.span': 'Span',
      'fade.days': '{days} days',
      'fade.show': 'Show the plot',
      'fade.hide': 'Hide the plot',
      'fade.selected': '{count} of at most {max} memories ticked in the Plot column of the table.',
      'fade.none': 'No memory is ticked: tick one in the Plot column of the table.',
      'fade.tooMany': 'At most {max} memories can be plotted: untick one first.',
      'fade.reading': 'Reading attention at {count} times: {done} read…',
      'fade.read': 'Attention of {count} memories read at {times} times.',
      'fade.label': 'Line plot: the attention of {count} memories from {from} to {to}, read at {times} times, if they are not used again. The table of the numbers follows.',
      'fade.xAxis': 'date',
      'fade.yAxis': 'attention',
      'fade.legend': 'Memories plotted',
      'fade.numbers': 'The numbers',
      'fade.caption': 'Attention of the memories plotted, at each time read',
      'fade.scroll': 'Table of the attention plotted',
      'fade.time': 'Time read',
      'profile.title': 'Profile',
      'profile.facts': 'Facts',
      'profile.events': 'Open events',
      'profile.conjectures': 'Conjectures',
      'profile.nothing': 'None.',
      'profile.rules': 'Causal rules learnt: {count}.',
      'profile.fact': 'belief {belief}, since {since}',
      'profile.event': '{category}; latest: {latest}; open until {until}',
      'profile.conjecture': 'belief {belief}; fades {fades}',
      'kind.observation': 'observation',
      'kind.fact': 'fact',
      'kind.knowledge': 'knowledge',
      'kind.summary': 'summary',
      'kind.conjecture': 'conjecture',
      'tier.0': '0 hot',
      'tier.1': '1 warm',
      'tier.2': '2 cool',
      'tier.3': '3 deep',
      'label.Memory': 'Memory',
      'label.Turn': 'Message',
      'label.Event': 'Event',
      'label.Impression': 'Impression',
      'letter.Memory': 'Mem',
      'letter.Turn': 'Msg',
      'letter.Event': 'Evt',
      'letter.Impression': 'Imp',
      'node.missing.title': 'No such node',
      'node.missing.text': 'The owner {owner} has no {label} {id}: it may have been forgotten.',
      'node.fields': 'Fields',
      'node.text': 'Text',
      'node.edges': 'Edges',
      'node.noEdges': 'No edges.',
      'node.graph': 'Graph of this node and its {count} neighbours, each edge labelled by its type; the table below links each neighbour.',
      'node.graphMore': 'The graph shows {shown} of {count} neighbours; the table lists them all.',
      'node.edgesCaption': 'Edges of this node',
      'node.turns': 'Its messages',
      'node.turn': 'The message',
      'node.memories': 'Memories',
      'node.event': 'Its event',
      'node.events': 'Events',
      'node.impressions': 'Impressions',
      'node.timeline': 'Back to the timeline',
      'col.type': 'Type',
      'col.direction': 'Direction',
      'col.neighbour': 'Neighbour',
      'col.label': 'Label',
      'col.strength': 'Weight',
      'dir.out': 'to',
      'dir.in': 'from',
      'field.id': 'Id',
      'field.kind': 'Kind',
      'field.importance': 'Importance',
      'field.attention': 'Attention (stored)',
      'field.attentionValue': 'long-term {long} (set {longAt}), short-term {short} (set {shortAt})',
      'field.tier': 'Tier',
      'field.belief': 'Belief',
      'field.created': 'Made',
      'field.accessed': 'Last used',
      'field.validFrom': 'Holds from',
      'field.validUntil': 'Held until',
      'field.slot': 'Slot',
      'field.offline': 'Perceived offline',
      'field.awaiting': 'Awaiting consolidation',
      'field.speaker': 'Speaker',
      'field.session': 'Session',
      'field.position': 'Position in session',
      'field.pending': 'Pending',
      'field.title': 'Title',
      'field.category': 'Category',
      'field.firstAt': 'First',
      'field.lastAt': 'Last',
      'field.timeliness': 'Stays open (days)',
      'field.beliefAt': 'Belief set',
      'field.halfLife': 'Half-life (days)',
      'field.conjectured': 'Became a conjecture',
      'field.storyline': 'Storyline',
      'forget.button': 'Forget this message',
      'forget.buttonNamed': 'Forget this message ({id})',
      'forget.title': 'Forget message {id}?',
      'forget.goes': 'These memories come from it and will go:',
      'forget.none': 'No memory comes from it.',
      'forget.note': 'The message and what was derived from it go; summaries, events and impressions are told again without it. A tombstone keeps the hash of its id, so that it is not stored again.',
      'forget.ok': 'Forget',
      'forget.done': 'Forgotten',
      'forget.found': 'Message {id} is forgotten.',
      'forget.notFound': 'There was no message {id}: nothing changed.',
      'forget.deleted': 'Deleted',
      'forget.rewritten': 'Rewritten',
      'forget.what': 'What',
      'forget.count': 'How many',
      'recall.title': 'Recall',
      'recall.intro': 'Ask as the agent would: the answer is the memories best related to the query, each score broken into its reasons, and the text the agent gets.',
      'recall.query': 'Query',
      'recall.peek': 'Peek: look without waking anything (attention, tiers and access times stay as they are)',
      'recall.maxTokens': 'Budget in tokens',
      'recall.at': 'Ask at (empty: now)',
      'recall.submit': 'Recall',
      'recall.result': 'Answer',
      'recall.confidence': 'Confidence',
      'recall.motivation': 'Motivation',
      'recall.searches': 'Searches',
      'recall.search': 'motivation {motivation}: tiers 0-{depth}, best relevance {best}',
      'recall.tokens': 'Tokens',
      'recall.tokensValue': '{tokens} of {max}',
      'recall.nothing': 'Nothing in memory bears on this: the confidence fell below the floor.',
      'recall.memories': 'Memories ({count})',
      'recall.score': 'score {score}',
      'recall.reasons': 'Reasons for the score of memory {rank}',
      'recall.via': 'via: {text}',
      'recall.evoked': 'evoked by the impression: {text}',
      'recall.edges': 'Edges among them',
      'recall.noEdges': 'No edges among them.',
      'recall.impressions': 'Impressions the query evoked',
      'recall.impression': '{text} (belief {belief}, implied {implied})',
      'recall.woken': 'Woken',
      'recall.wokenCaption': 'What this recall woke',
      'recall.context': 'Context as the agent gets it',
      'recall.ran': '{count} memories recalled.',
      'recall.peeked': 'Peeked: nothing was woken.',
      'recall.graph': 'The memories and the edges among them',
      'recall.graphLabel': 'Graph of the {count} memories recalled and the {edges} edges among them; each memory is a link to its page.',
      'recall.graphCaption': 'Each circle is a memory recalled, marked with its rank ([1] is the first); the higher its score, the larger and darker it is. Each arrow is an edge between two of them, labelled with its type. A circle links to its memory\'s page; the list below names the same edges.',
      'recall.graphScroll': 'Graph of the memories recalled',
      'recall.node': '[{rank}] {text} (score {score})',
      'fact.title': 'The history of the slot “{slot}”',
      'fact.inForce': 'In force',
      'fact.replaced': 'Replaced',
      'fact.absent': 'Not in the slot\'s history',
      'fact.absentText': 'The profile read at that time neither holds this memory nor lists it among the values replaced: it may have been made later.',
      'fact.read': 'The values of the slot as the profile reads them at {at}, the one in force first, then those it replaced, newest first.',
      'fact.current': 'in force since {since}',
      'fact.earlier': 'held from {since}',
      'fact.this': '(this memory)',
      'fact.missing': 'The profile read at {at} has no slot “{slot}”: no fact of it was made by then, so there is no history to show.',
      'col.reason': 'Reason',
      'col.raw': 'Raw',
      'col.normalised': 'Normalised (0-1)',
      'col.id': 'Id',
      'col.used': 'Used',
      'col.gain': 'Short-term gain',
      'reason.relevance': 'relevance (cosine)',
      'reason.lexical': 'shared words (BM25)',
      'reason.time_match': 'time match',
      'reason.speaker_match': 'speaker match',
      'reason.asker_match': 'asker match',
      'reason.statement': 'statement',
      'reason.importance': 'importance',
      'reason.attention': 'attention',
      'reason.recency': 'recency',
      'reason.association': 'association',
      'keys.title': 'Keys',
      'keys.intro': 'Keys each reach only their owners; an admin key reaches every owner and manages keys. The store keeps a key\'s hash, never its secret.',
      'keys.create': 'Create a key',
      'keys.owners': 'Owners (separated by commas or spaces)',
      'keys.prefix': 'Owner prefix (ends with one of : . _ - @)',
      'keys.admin': 'Admin: every owner, and manages keys',
      'keys.submit': 'Create',
      'keys.new': 'New key: its secret is shown this once',
      'keys.secret': 'Secret',
      'keys.copy': 'Copy',
      'keys.copied': 'Copied.',
      'keys.copyFailed': 'Could not copy: select the secret and copy it by hand.',
      'keys.made': 'Key {id} made.',
      'keys.list': 'All keys',
      'keys.caption': 'Keys, with what each may touch',
      'keys.none': 'No key yet.',
      'keys.revoke': 'Revoke',
      'keys.revokeNamed': 'Revoke (key {id})',
      'keys.revokeTitle': 'Revoke key {id}?',
      'keys.revokeText': 'No request gets in with it after this. Its record stays, with the time.',
      'keys.revoked': 'Key {id} revoked.',
      'scope.admin': 'admin: every owner',
      'scope.owner': 'owner {owner}',
      'scope.prefix': 'owners starting with {prefix}',
      'col.key': 'Key',
      'col.scope': 'May touch',
      'col.created': 'Made',
      'col.revoked': 'Revoked',
      'col.action': 'Action',
      'requests.title': 'Requests',
      'requests.intro': 'The server\'s latest {count} requests, newest first: no bodies, no keys.',
      'requests.refresh': 'Refresh',
      'requests.caption': 'Recent requests',
      'requests.none': 'No request yet.',
      'col.method': 'Method',
      'col.path': 'Path',
      'col.status': 'Status',
      'col.ms': 'Milliseconds',
      'col.request': 'Request id',
      'owner.events': 'Events',
      'owner.impressions': 'Impressions',
      'at.label': 'Read at (empty: now)',
      'at.apply': 'Read',
      'at.now': 'now',
      'events.title': 'Events: {owner}',
      'events.intro': 'The events the sleep job made of the dialogue summaries, latest update first, each with its storyline: one line a development. An event is open while news at the time read would still join it, that is within its timeliness of its last update; then it is closed.',
      'events.none': 'No events yet: the sleep job makes them from dialogue summaries.',
      'events.caption': 'Events, latest update first',
      'events.scroll': 'Events table',
      'events.count': '{count} events, {open} of them open.',
      'events.open': 'open',
      'events.closed': 'closed',
      'events.until': 'until {day}',
      'events.since': 'since {day}',
      'events.storyline': 'Storyline ({count})',
      'events.plot': 'The {count} latest events along time: each bar runs from the first to the last update, then, lighter, to the end of its timeliness; the upright line is the time read, {at}.',
      'events.plotRead': 'read',
      'col.title': 'Title',
      'col.category': 'Category',
      'col.open': 'Open or closed',
      'col.first': 'First update',
      'col.last': 'Last update',
      'col.timeliness': 'Timeliness (days)',
      'impressions.title': 'Impressions: {owner}',
      'impressions.intro': 'What was inferred about the owner from what it said, strongest belief first: each impression rests on its cues, the memories it was inferred from. The belief now is the stored belief halved every half-life since it was set; at 0.7 an impression becomes a conjecture, a memory of its own.',
      'impressions.none': 'No impressions yet: they are inferred from what the owner says, as it is observed.',
      'impressions.caption': 'Impressions, strongest belief first',
      'impressions.scroll': 'Impressions table',
      'impressions.count': '{count} impressions.',
      'col.impression': 'Impression',
      'col.beliefNow': 'Belief now',
      'col.beliefStored': 'Belief stored',
      'col.beliefAt': 'Stored at',
      'col.halfLife': 'Half-life (days)',
      'col.cues': 'Cues',
      'col.conjectures': 'Conjectures',
      'col.conjectured': 'Conjectured at',
    },
    zh: {
      'skip': '跳到内容',
      'console': '控制台',
      'title': 'graphmem 控制台',
      'nav.label': '主导航',
      'nav.owners': '用户',
      'nav.keys': '密钥',
      'nav.requests': '请求',
      'language': '语言',
      'signout': '退出',
      'cancel': '取消',
      'loading': '加载中…',
      'loaded': '已加载。',
      'yes': '是',
      'no': '否',
      'none': '—',
      'session.none': '（无）',
      'signin.title': '登录',
      'signin.intro': '输入这台服务器的密钥：`graphmem keys create` 会打印一个，管理员也可以在“密钥”页创建。',
      'signin.kept': '密钥只保存在这个标签页里（sessionStorage，从不写入 cookie），每次请求作为 bearer 令牌发送。退出或关闭标签页即忘掉它。',
      'signin.key': 'API 密钥',
      'signin.submit': '登录',
      'signin.refused': '服务器拒绝了这个密钥：{message}',
      'signin.open': '还没有任何密钥的服务器（仅限本机）不需要密钥：留空即可。',
      'signin.again': '密钥被拒绝（{message}）：请重新登录。',
      'signedout': '已退出：密钥已忘掉。',
      'error.network': '无法连接服务器。',
      'error.owner': '这个密钥无权访问这个用户。',
      'error.page': '这个密钥无权访问这一页：需要管理员密钥。',
      'error.generic': '错误 {status}：{message}',
      'notfound.title': '找不到',
      'notfound.text': '没有这一页。',
      'owners.title': '用户',
      'owners.intro': '这个密钥能访问、且已有记忆的用户：各层级的记忆数，以及健康报告中需要留意的项目。',
      'owners.none': '这个密钥能访问的用户还没有记忆。',
      'owners.caption': '用户及其计数',
      'owners.more': '更多用户',
      'owners.shown': '显示 {shown} / {count} 个用户',
      'col.owner': '用户',
      'col.memories': '记忆',
      'col.events': '事件',
      'col.impressions': '印象',
      'col.turns': '消息',
      'col.tombstones': '墓碑',
      'col.pending': '待处理',
      'col.contradictions': '未解决的矛盾',
      'owner.recall': '在这份记忆中回忆',
      'owner.back': '全部用户',
      'owner.glance': '概览',
      'owner.awaiting': '待总结',
      'owner.contradictions': '矛盾',
      'timeline.title': '时间线',
      'timeline.filters': '筛选',
      'timeline.filtersActive': '筛选（已设 {count} 项）',
      'timeline.caption': '记忆，最新的在前',
      'timeline.shown': '显示 {count} 条记忆。',
      'timeline.more': '更早的记忆',
      'timeline.end': '没有更早的记忆了。',
      'timeline.empty': '没有符合条件的记忆。',
      'timeline.scroll': '时间线表格',
      'filter.kind': '类型',
      'filter.tier': '层级',
      'filter.session': '会话',
      'filter.speaker': '说话人',
      'filter.contains': '文本包含',
      'filter.since': '创建于此时或之后',
      'filter.until': '创建于此时之前',
      'filter.at': '关注度与画像的时间（留空：现在）',
      'filter.apply': '应用',
      'filter.clear': '清除筛选',
      'col.time': '时间',
      'col.speaker': '说话人',
      'col.session': '会话',
      'col.text': '文本',
      'col.kind': '类型',
      'col.tier': '层级',
      'col.attention': '关注度',
      'col.belief': '信念',
      'plot.label': '所显示的 {count} 条记忆的关注度，从 {from} 到 {to}；颜色越深层级越热。',
      'plot.axis': '关注度',
      'col.plot': '绘图',
      'fade.title': '关注度随时间的变化',
      'fade.what': '从读取时间起，若记忆不再被使用，关注度将如何消退（每次使用都会唤醒它）。',
      'fade.pick': '绘制关注度：{text}',
      'fade.span': '时间跨度',
      'fade.days': '{days} 天',
      'fade.show': '显示图表',
      'fade.hide': '隐藏图表',
      'fade.selected': '已在表格的“绘图”列中勾选 {count} 条记忆（最多 {max} 条）。',
      'fade.none': '没有勾选记忆：请在表格的“绘图”列中勾选。',
      'fade.tooMany': '最多只能绘制 {max} 条记忆：请先取消勾选一条。',
      'fade.reading': '正在读取 {count} 个时间点的关注度：已读取 {done} 个…',
      'fade.read': '已读取 {count} 条记忆在 {times} 个时间点的关注度。',
      'fade.label': '折线图：{count} 条记忆从 {from} 到 {to} 的关注度（在 {times} 个时间点读取），假设它们不再被使用。数值表格在图后。',
      'fade.xAxis': '日期',
      'fade.yAxis': '关注度',
      'fade.legend': '所绘制的记忆',
      'fade.numbers': '数值',
      'fade.caption': '所绘制记忆在各读取时间的关注度',
      'fade.scroll': '所绘制关注度的表格',
      'fade.time': '读取时间',
      'profile.title': '画像',
      'profile.facts': '事实',
      'profile.events': '进行中的事件',
      'profile.conjectures': '猜想',
      'profile.nothing': '无。',
      'profile.rules': '已学到的因果规则：{count} 条。',
      'profile.fact': '信念 {belief}，自 {since}',
      'profile.event': '{category}；最新：{latest}；持续到 {until}',
      'profile.conjecture': '信念 {belief}；{fades} 淡去',
      'kind.observation': '观察',
      'kind.fact': '事实',
      'kind.knowledge': '知识',
      'kind.summary': '总结',
      'kind.conjecture': '猜想',
      'tier.0': '0 热',
      'tier.1': '1 温',
      'tier.2': '2 凉',
      'tier.3': '3 深',
      'label.Memory': '记忆',
      'label.Turn': '消息',
      'label.Event': '事件',
      'label.Impression': '印象',
      'letter.Memory': '记忆',
      'letter.Turn': '消息',
      'letter.Event': '事件',
      'letter.Impression': '印象',
      'node.missing.title': '没有这个节点',
      'node.missing.text': '用户 {owner} 没有{label} {id}：它可能已被遗忘。',
      'node.fields': '字段',
      'node.text': '文本',
      'node.edges': '边',
      'node.noEdges': '没有边。',
      'node.graph': '这个节点及其 {count} 个邻居的图，每条边标有类型；下面的表格链接到每个邻居。',
      'node.graphMore': '图中显示 {count} 个邻居中的 {shown} 个；表格列出全部。',
      'node.edgesCaption': '这个节点的边',
      'node.turns': '它的消息',
      'node.turn': '这条消息',
      'node.memories': '记忆',
      'node.event': '它的事件',
      'node.events': '事件',
      'node.impressions': '印象',
      'node.timeline': '回到时间线',
      'col.type': '类型',
      'col.direction': '方向',
      'col.neighbour': '邻居',
      'col.label': '标签',
      'col.strength': '权重',
      'dir.out': '指向',
      'dir.in': '来自',
      'field.id': 'ID',
      'field.kind': '类型',
      'field.importance': '重要性',
      'field.attention': '关注度（存储值）',
      'field.attentionValue': '长期 {long}（设于 {longAt}），短期 {short}（设于 {shortAt}）',
      'field.tier': '层级',
      'field.belief': '信念',
      'field.created': '创建',
      'field.accessed': '最近使用',
      'field.validFrom': '生效于',
      'field.validUntil': '失效于',
      'field.slot': '槽位',
      'field.offline': '离线感知',
      'field.awaiting': '待整理',
      'field.speaker': '说话人',
      'field.session': '会话',
      'field.position': '会话中的位置',
      'field.pending': '待处理',
      'field.title': '标题',
      'field.category': '类别',
      'field.firstAt': '开始',
      'field.lastAt': '最近',
      'field.timeliness': '时效（天）',
      'field.beliefAt': '信念设定于',
      'field.halfLife': '半衰期（天）',
      'field.conjectured': '成为猜想于',
      'field.storyline': '脉络',
      'forget.button': '遗忘这条消息',
      'forget.buttonNamed': '遗忘这条消息（{id}）',
      'forget.title': '遗忘消息 {id}？',
      'forget.goes': '以下记忆来自它，将一并删除：',
      'forget.none': '没有记忆来自它。',
      'forget.note': '这条消息以及由它得出的内容都会删除；总结、事件和印象会在没有它的情况下重写。墓碑保存其 ID 的哈希，使它不会被再次存储。',
      'forget.ok': '遗忘',
      'forget.done': '已遗忘',
      'forget.found': '消息 {id} 已遗忘。',
      'forget.notFound': '没有消息 {id}：什么也没改变。',
      'forget.deleted': '已删除',
      'forget.rewritten': '已重写',
      'forget.what': '项目',
      'forget.count': '数量',
      'recall.title': '回忆',
      'recall.intro': '像智能体那样提问：回答是与问题最相关的记忆，每个分数拆成各项理由，以及智能体得到的文本。',
      'recall.query': '问题',
      'recall.peek': '只看（peek）：不唤醒任何记忆（关注度、层级和访问时间保持不变）',
      'recall.maxTokens': '词元预算',
      'recall.at': '提问时间（留空：现在）',
      'recall.submit': '回忆',
      'recall.result': '回答',
      'recall.confidence': '置信度',
      'recall.motivation': '求解动机',
      'recall.searches': '搜索',
      'recall.search': '动机 {motivation}：第 0-{depth} 层，最佳相关度 {best}',
      'recall.tokens': '词元',
      'recall.tokensValue': '{tokens} / {max}',
      'recall.nothing': '记忆中没有与此相关的内容：置信度低于下限。',
      'recall.memories': '记忆（{count}）',
      'recall.score': '得分 {score}',
      'recall.reasons': '记忆 {rank} 得分的理由',
      'recall.via': '经由：{text}',
      'recall.evoked': '由印象唤起：{text}',
      'recall.edges': '它们之间的边',
      'recall.noEdges': '它们之间没有边。',
      'recall.impressions': '问题唤起的印象',
      'recall.impression': '{text}（信念 {belief}，问题蕴含 {implied}）',
      'recall.woken': '已唤醒',
      'recall.wokenCaption': '这次回忆唤醒的节点',
      'recall.context': '智能体得到的上下文',
      'recall.ran': '回忆出 {count} 条记忆。',
      'recall.peeked': '只看：没有唤醒任何记忆。',
      'recall.graph': '这些记忆及其之间的边',
      'recall.graphLabel': '回忆出的 {count} 条记忆及其之间 {edges} 条边的图；每条记忆都链接到它的页面。',
      'recall.graphCaption': '每个圆圈是一条回忆出的记忆，标有它的名次（[1] 为第一）；得分越高，圆圈越大、颜色越深。每个箭头是其中两条记忆之间的一条边，标有类型。点击圆圈打开该记忆的页面；下面的列表列出同样的边。',
      'recall.graphScroll': '回忆出的记忆的图',
      'recall.node': '[{rank}] {text}（得分 {score}）',
      'fact.title': '槽位“{slot}”的历史',
      'fact.inForce': '有效',
      'fact.replaced': '已被取代',
      'fact.absent': '不在该槽位的历史中',
      'fact.absentText': '在那个时间读取的画像既没有这条记忆，也没有把它列为被取代的值：它可能是之后才生成的。',
      'fact.read': '在 {at} 读取的画像中该槽位的值：先是有效的值，然后是它取代的值，最新的在前。',
      'fact.current': '自 {since} 起有效',
      'fact.earlier': '自 {since} 起',
      'fact.this': '（这条记忆）',
      'fact.missing': '在 {at} 读取的画像中没有槽位“{slot}”：到那时还没有生成它的事实，因此没有历史可显示。',
      'col.reason': '理由',
      'col.raw': '原始值',
      'col.normalised': '归一化（0-1）',
      'col.id': 'ID',
      'col.used': '已使用',
      'col.gain': '短期增益',
      'reason.relevance': '相关度（余弦）',
      'reason.lexical': '词面匹配（BM25）',
      'reason.time_match': '时间匹配',
      'reason.speaker_match': '说话人匹配',
      'reason.asker_match': '提问人匹配',
      'reason.statement': '陈述',
      'reason.importance': '重要性',
      'reason.attention': '关注度',
      'reason.recency': '新近度',
      'reason.association': '联想',
      'keys.title': '密钥',
      'keys.intro': '每个密钥只能访问它的用户；管理员密钥能访问所有用户并管理密钥。存储只保存密钥的哈希，从不保存其秘密。',
      'keys.create': '创建密钥',
      'keys.owners': '用户（用逗号或空格分隔）',
      'keys.prefix': '用户前缀（以 : . _ - @ 之一结尾）',
      'keys.admin': '管理员：所有用户，并管理密钥',
      'keys.submit': '创建',
      'keys.new': '新密钥：其秘密只显示这一次',
      'keys.secret': '秘密',
      'keys.copy': '复制',
      'keys.copied': '已复制。',
      'keys.copyFailed': '无法复制：请选中秘密手动复制。',
      'keys.made': '已创建密钥 {id}。',
      'keys.list': '全部密钥',
      'keys.caption': '密钥及其可访问的范围',
      'keys.none': '还没有密钥。',
      'keys.revoke': '吊销',
      'keys.revokeNamed': '吊销（密钥 {id}）',
      'keys.revokeTitle': '吊销密钥 {id}？',
      'keys.revokeText': '此后任何请求都不能再用它。它的记录保留，并记下时间。',
      'keys.revoked': '密钥 {id} 已吊销。',
      'scope.admin': '管理员：所有用户',
      'scope.owner': '用户 {owner}',
      'scope.prefix': '以 {prefix} 开头的用户',
      'col.key': '密钥',
      'col.scope': '可访问',
      'col.created': '创建',
      'col.revoked': '吊销',
      'col.action': '操作',
      'requests.title': '请求',
      'requests.intro': '服务器最近的 {count} 个请求，最新的在前：不含请求体，也不含密钥。',
      'requests.refresh': '刷新',
      'requests.caption': '最近的请求',
      'requests.none': '还没有请求。',
      'col.method': '方法',
      'col.path': '路径',
      'col.status': '状态',
      'col.ms': '毫秒',
      'col.request': '请求 ID',
      'owner.events': '事件',
      'owner.impressions': '印象',
      'at.label': '读取时间（留空：现在）',
      'at.apply': '读取',
      'at.now': '现在',
      'events.title': '事件：{owner}',
      'events.intro': '睡眠任务根据对话总结整理出的事件，最近更新的在前，每个事件附有脉络：每行一个进展。在所读取的时间，若新的消息仍会并入某个事件，它就是进行中的，即距其最近一次更新未超过其时效；之后它就结束了。',
      'events.none': '还没有事件：睡眠任务会根据对话总结生成事件。',
      'events.caption': '事件，最近更新的在前',
      'events.scroll': '事件表格',
      'events.count': '{count} 个事件，其中 {open} 个进行中。',
      'events.open': '进行中',
      'events.closed': '已结束',
      'events.until': '至 {day}',
      'events.since': '自 {day}',
      'events.storyline': '脉络（{count}）',
      'events.plot': '最近的 {count} 个事件在时间上的分布：每条横条从首次更新到最近更新，颜色较浅的部分延续到时效结束；竖线是读取时间 {at}。',
      'events.plotRead': '读取',
      'col.title': '标题',
      'col.category': '类别',
      'col.open': '状态',
      'col.first': '首次更新',
      'col.last': '最近更新',
      'col.timeliness': '时效（天）',
      'impressions.title': '印象：{owner}',
      'impressions.intro': '根据用户所说的话对用户作出的推断，当前信念最强的在前：每个印象都基于它的线索，即推断出它的那些记忆。当前信念是存储的信念自设定以来每过一个半衰期减半后的值；信念达到 0.7 的印象会成为猜想，即一条独立的记忆。',
      'impressions.none': '还没有印象：印象是在观察用户所说的话时推断出来的。',
      'impressions.caption': '印象，信念最强的在前',
      'impressions.scroll': '印象表格',
      'impressions.count': '{count} 个印象。',
      'col.impression': '印象',
      'col.beliefNow': '当前信念',
      'col.beliefStored': '存储的信念',
      'col.beliefAt': '存储于',
      'col.halfLife': '半衰期（天）',
      'col.cues': '线索',
      'col.conjectures': '猜想',
      'col.conjectured': '成为猜想于',
    },
  };

  function chosenLanguage() {
    const kept = localStorage.getItem(LANG_ITEM);
    if (kept && DICT[kept]) return kept;
    const wanted = navigator.languages && navigator.languages.length
      ? navigator.languages[0] : navigator.language || 'en';
    return wanted.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  }

  let lang = chosenLanguage();

  /** A label in the current language, with {name} placeholders filled from `values`. */
  function t(id, values) {
    const text = DICT[lang][id] ?? DICT.en[id] ?? id;
    if (!values) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }

  // ---------------------------------------------------------------- building elements

  const PROPERTIES = new Set(['value', 'checked', 'disabled', 'htmlFor', 'readOnly', 'required', 'hidden', 'open', 'selected']);

  /** An element with attributes, listeners (onclick: fn) and children (strings become text). */
  function h(tag, attrs, ...children) {
    const element = document.createElement(tag);
    setAttributes(element, attrs);
    add(element, children);
    return element;
  }

  /** An SVG element with attributes and children. */
  function s(tag, attrs, ...children) {
    const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
    setAttributes(element, attrs);
    add(element, children);
    return element;
  }

  function setAttributes(element, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'style') throw new Error('no inline style: the page\'s CSP forbids it');
      if (name.startsWith('on') && typeof value === 'function') {
        element.addEventListener(name.slice(2), value);
      } else if (name === 'class') {
        element.setAttribute('class', value);
      } else if (PROPERTIES.has(name)) {
        element[name] = value;
      } else {
        element.setAttribute(name, value === true ? '' : String(value));
      }
    }
  }

  function add(element, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      element.append(child instanceof Node ? child : String(child));
    }
  }

  const main = () => document.getElementById('main');

  function say(text, kind) {
    const status = document.getElementById('status');
    status.textContent = text;
    status.className = 'status' + (kind ? ' ' + kind : '');
  }

  function pad(number) {
    return String(number).padStart(2, '0');
  }

  /** A time as YYYY-MM-DD HH:MM (and :SS if asked) in the browser's time zone. */
  function formatTime(iso, withSeconds = false) {
    if (!iso) return t('none');
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return String(iso);
    const seconds = withSeconds ? `:${pad(date.getSeconds())}` : '';
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
  }

  function formatDay(iso) {
    return formatTime(iso).slice(0, 10);
  }

  function timeElement(iso, withSeconds = false) {
    return iso ? h('time', { datetime: iso }, formatTime(iso, withSeconds)) : t('none');
  }

  /** The value of a datetime-local input for an ISO time. */
  function localInput(iso) {
    if (!iso) return '';
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return '';
    return formatTime(iso).replace(' ', 'T');
  }

  /** The ISO time (UTC) of a datetime-local input's value, or '' for none. */
  function isoOfInput(value) {
    if (!value) return '';
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? '' : date.toISOString();
  }

  function number(value, digits) {
    return value === null || value === undefined ? t('none') : Number(value).toFixed(digits);
  }

  function short(text, length) {
    const flat = String(text).replace(/\s+/g, ' ').trim();
    return flat.length > length ? flat.slice(0, length - 1) + '…' : flat;
  }

  /** A table whose header cells are scoped columns, right-aligned at the `numeric` places. */
  function table(caption, headers, rows, className, numeric = []) {
    return h('table', { class: className },
      h('caption', null, caption),
      h('thead', null, h('tr', null, headers.map((header, index) => h('th', { scope: 'col', class: numeric.includes(index) ? 'number' : null }, header)))),
      h('tbody', null, rows));
  }

  /** A horizontally scrolling, keyboard-reachable box around a wide table. */
  function scroller(label, content) {
    return h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': label }, content);
  }

  function definitions(pairs) {
    return h('dl', { class: 'fields' }, pairs.filter(Boolean).map(([term, value]) => [
      h('dt', null, term), h('dd', null, value),
    ]));
  }

  function memoryText(text, tag = 'span') {
    return h(tag, { dir: 'auto', class: 'memory-text' }, text);
  }

  // ---------------------------------------------------------------- routes and links

  function segment(value) {
    return encodeURIComponent(value);
  }

  const link = {
    owners: () => '#/owners',
    owner: (owner, params) => {
      const query = params ? params.toString() : '';
      return `#/owner/${segment(owner)}${query ? '?' + query : ''}`;
    },
    recall: (owner) => `#/owner/${segment(owner)}/recall`,
    events: (owner, at) => `#/owner/${segment(owner)}/events${at ? '?' + atQuery(at) : ''}`,
    impressions: (owner, at) => `#/owner/${segment(owner)}/impressions${at ? '?' + atQuery(at) : ''}`,
    node: (owner, label, id, at) => (label === 'Memory'
      ? `#/owner/${segment(owner)}/memory/${segment(id)}`
      : `#/owner/${segment(owner)}/node/${segment(label)}/${segment(id)}`) + (at ? '?' + atQuery(at) : ''),
    keys: () => '#/keys',
    requests: () => '#/requests',
  };

  /** The query that asks at `at` (an ISO time), or none for now. */
  function atQuery(at) {
    const query = new URLSearchParams();
    if (at) query.set('at', at);
    return query;
  }

  function parseHash() {
    const hash = location.hash.replace(/^#/, '');
    const mark = hash.indexOf('?');
    const path = mark < 0 ? hash : hash.slice(0, mark);
    const params = new URLSearchParams(mark < 0 ? '' : hash.slice(mark + 1));
    const parts = path.split('/').filter(Boolean).map((part) => {
      try {
        return decodeURIComponent(part);
      } catch (error) {
        return part;
      }
    });
    return { parts, params };
  }

  function ownerPath(owner, rest) {
    return `/v1/owners/${segment(owner)}/${rest}`;
  }

  // ---------------------------------------------------------------- the API

  class ApiError extends Error {
    constructor(status, code, message, requestId) {
      super(message);
      this.status = status;
      this.code = code;
      this.requestId = requestId;
    }
  }

  let inFlight = 0;
  const waiting = [];

  function takeSlot() {
    if (inFlight < MAX_IN_FLIGHT) {
      inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function giveSlot() {
    const next = waiting.shift();
    if (next) next();
    else inFlight -= 1;
  }

  function pause(seconds) {
    return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }

  /** The JSON answer of one API call; ApiError for a refusal (429 is tried again, 3 times). */
  async function api(path, options = {}) {
    const { method = 'GET', body, query } = options;
    const text = query ? query.toString() : '';
    const url = text ? `${path}?${text}` : path;
    for (let attempt = 0; ; attempt += 1) {
      await takeSlot();
      let response;
      let answer;
      try {
        const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
        const key = sessionStorage.getItem(KEY_ITEM);
        if (key) headers.Authorization = `Bearer ${key}`;
        response = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          cache: 'no-store',
          credentials: 'omit',
        });
        answer = await response.text();
      } catch (error) {
        throw new ApiError(0, 'network', t('error.network'));
      } finally {
        giveSlot();
      }
      if (response.status === 429 && attempt < 3) {
        const after = Number(response.headers.get('Retry-After')) || 1;
        await pause(Math.min(after, 5));
        continue;
      }
      let data = null;
      try {
        data = answer ? JSON.parse(answer) : null;
      } catch (error) {
        data = null;
      }
      if (!response.ok) {
        const problem = (data && data.error) || {};
        throw new ApiError(response.status, problem.code || '', problem.message || response.statusText, problem.request_id);
      }
      return data;
    }
  }

  /** A promise's outcome as {value} or {error}: a rejection is handled at once. */
  function outcome(promise) {
    return promise.then((value) => ({ value }), (error) => ({ error }));
  }

  // ---------------------------------------------------------------- the frame of every page

  const state = {
    generation: 0,
    admin: null, // whether the key is an admin key: null until asked
    recall: null, // the last recall of this tab: {owner, query, peek, maxTokens, answer}
    flash: null, // a result shown once on the page it belongs to: {hash, render}
    created: null, // a key just made, shown once: {secret, id}
    plotted: null, // the memories ticked for the attention plot: {page, ids, span, open}
    working: 0, // how many pieces of work of the page shown still run (it is busy until none)
    finished: 0, // the generation whose page has rendered to its end
  };

  function signedIn() {
    return sessionStorage.getItem(KEY_ITEM) !== null;
  }

  function applyLanguage() {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = t('title');
    for (const element of document.querySelectorAll('[data-i18n]')) {
      element.textContent = t(element.dataset.i18n);
    }
    for (const element of document.querySelectorAll('[data-i18n-label]')) {
      element.setAttribute('aria-label', t(element.dataset.i18nLabel));
    }
    document.getElementById('lang').value = lang;
  }

  function applyFrame() {
    const inside = signedIn();
    document.getElementById('signout').hidden = !inside;
    document.getElementById('nav').hidden = !inside;
    document.getElementById('nav-keys').hidden = state.admin === false;
    document.getElementById('nav-requests').hidden = state.admin === false;
    const { parts } = parseHash();
    const here = parts[0] === 'owner' ? 'owners' : parts[0] || 'owners';
    for (const anchor of document.querySelectorAll('#nav a')) {
      if (anchor.dataset.route === here) anchor.setAttribute('aria-current', 'page');
      else anchor.removeAttribute('aria-current');
    }
  }

  /** Start a page: clear main, mark it busy, give it its h1; the page's generation. */
  function begin(name, title) {
    state.generation += 1;
    const area = main();
    area.replaceChildren();
    area.setAttribute('aria-busy', 'true');
    area.dataset.page = name;
    area.dataset.generation = `${LOADED}.${state.generation}`; // what tests wait on
    state.working = 0;
    state.finished = 0;
    if (title) area.append(h('h1', { dir: 'auto' }, title));
    say(t('loading'));
    return state.generation;
  }

  function current(generation) {
    return generation === state.generation;
  }

  function finish(generation, message) {
    if (!current(generation)) return;
    state.finished = generation;
    if (!state.working) main().setAttribute('aria-busy', 'false');
    say(message || t('loaded'));
  }

  /** Mark the page busy while some work of it runs (more rows, a plot); the call that ends it. */
  function busy(generation) {
    if (!current(generation)) return () => {};
    state.working += 1;
    main().setAttribute('aria-busy', 'true');
    let ended = false;
    return () => {
      if (ended || !current(generation)) return;
      ended = true;
      state.working -= 1;
      if (!state.working && state.finished === generation) main().setAttribute('aria-busy', 'false');
    };
  }

  /** Show an API refusal on the page: 401 signs out, 403 says what the key does not cover. */
  function refused(generation, error, forbidden) {
    if (!current(generation)) return;
    if (error instanceof ApiError && error.status === 401) {
      signOut(t('signin.again', { message: error.message }));
      return;
    }
    let text;
    if (error instanceof ApiError && error.status === 403) text = forbidden || t('error.page');
    else if (error instanceof ApiError && error.status) text = t('error.generic', { status: error.status, message: error.message });
    else text = error.message || String(error);
    main().append(h('p', { class: 'problem', 'data-refusal': error.status || 'error' }, text));
    main().setAttribute('aria-busy', 'false');
    say(text, 'error');
  }

  function signOut(message) {
    sessionStorage.removeItem(KEY_ITEM);
    state.admin = null;
    state.recall = null;
    state.created = null;
    state.flash = null;
    route();
    say(message || t('signedout'), message ? 'error' : undefined);
  }

  async function learnAdmin() {
    if (state.admin !== null) return state.admin;
    try {
      await api('/v1/keys');
      state.admin = true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) state.admin = false;
      else if (error instanceof ApiError && error.status === 401) throw error;
    }
    applyFrame();
    return state.admin;
  }

  function focusHeading() {
    const heading = main().querySelector('h1');
    if (heading) {
      heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: false });
    }
  }

  // ---------------------------------------------------------------- sign in

  function renderSignIn() {
    const generation = begin('signin', t('signin.title'));
    const input = h('input', {
      id: 'key', name: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false',
      'aria-describedby': 'key-kept key-open',
    });
    const form = h('form', { id: 'key-form', class: 'card narrow', novalidate: true },
      h('p', null, t('signin.intro')),
      h('p', { id: 'key-kept', class: 'hint' }, t('signin.kept')),
      h('div', { class: 'field' }, h('label', { for: 'key' }, t('signin.key')), input),
      h('p', { id: 'key-open', class: 'hint' }, t('signin.open')),
      h('button', { type: 'submit' }, t('signin.submit')));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const key = input.value.trim(); // '' for a server without keys: no Authorization sent
      sessionStorage.setItem(KEY_ITEM, key);
      try {
        await api('/v1/owners');
      } catch (error) {
        sessionStorage.removeItem(KEY_ITEM);
        say(t('signin.refused', { message: error.message }), 'error');
        input.focus();
        return;
      }
      state.admin = null;
      if (!location.hash || location.hash === '#' || location.hash === '#/') {
        location.hash = link.owners(); // the hashchange renders it
      } else {
        route();
      }
    });
    main().append(form);
    finish(generation, ' ');
    input.focus();
  }

  // ---------------------------------------------------------------- owners

  async function renderOwners() {
    const generation = begin('owners', t('owners.title'));
    main().append(h('p', { class: 'lead' }, t('owners.intro')));
    let owners;
    try {
      owners = await api('/v1/owners');
    } catch (error) {
      refused(generation, error);
      return;
    }
    if (!current(generation)) return;
    if (!owners.length) {
      main().append(h('p', null, t('owners.none')));
      finish(generation);
      return;
    }
    const body = h('tbody');
    const headers = [
      t('col.owner'), t('col.memories'), ...TIERS.map((tier) => t(`tier.${tier}`)),
      t('col.events'), t('col.impressions'), t('col.turns'), t('col.tombstones'),
      t('col.pending'), t('col.contradictions'),
    ];
    const shown = h('p', { class: 'hint' });
    const more = h('button', { type: 'button', class: 'quiet' }, t('owners.more'));
    main().append(
      scroller(t('owners.caption'), h('table', { class: 'owners' },
        h('caption', null, t('owners.caption')),
        h('thead', null, h('tr', null, headers.map((header, index) => h('th', { scope: 'col', class: index ? 'number' : null }, header)))),
        body)),
      shown, more);
    let count = 0;
    const showMore = async () => {
      const slice = owners.slice(count, count + OWNERS_PAGE);
      count += slice.length;
      shown.textContent = t('owners.shown', { shown: count, count: owners.length });
      more.hidden = count >= owners.length;
      const rows = slice.map((owner) => ownerRow(owner));
      body.append(...rows.map((row) => row.element));
      await Promise.all(rows.map((row) => row.load(generation)));
    };
    more.addEventListener('click', () => showMore().catch((error) => refused(generation, error)));
    await showMore();
    finish(generation);
  }

  function ownerRow(owner) {
    const cells = Array.from({ length: 11 }, () => h('td', { class: 'number' }, '…'));
    const element = h('tr', null,
      h('th', { scope: 'row' }, h('a', { href: link.owner(owner), dir: 'auto' }, owner)), cells);
    const fill = (values) => values.forEach((value, index) => {
      if (value !== undefined) cells[index].textContent = String(value);
    });
    const load = async (generation) => {
      try {
        const counts = await api(ownerPath(owner, 'statistics'));
        if (!current(generation)) return;
        const tiers = counts.tiers || {};
        fill([
          counts.nodes.Memory || 0, ...TIERS.map((tier) => tiers[tier] || 0),
          counts.nodes.Event || 0, counts.nodes.Impression || 0, counts.nodes.Turn || 0,
          counts.tombstones || 0,
        ]);
        const health = await api(ownerPath(owner, 'health'));
        if (!current(generation)) return;
        fill([...Array(9).fill(undefined), health.checks.pending_turns, health.checks.open_contradictions]);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) throw error;
        cells.forEach((cell) => { cell.textContent = t('none'); });
        cells[0].textContent = error.message;
      }
    };
    return { element, load };
  }

  // ---------------------------------------------------------------- an owner: timeline, profile

  function timelineQuery(params) {
    const query = new URLSearchParams();
    for (const kind of params.getAll('kinds')) query.append('kinds', kind);
    for (const tier of params.getAll('tiers')) query.append('tiers', tier);
    for (const name of ['session', 'speaker', 'contains', 'since', 'until', 'at']) {
      const value = params.get(name);
      if (value !== null && value !== '') query.set(name, value);
    }
    query.set('limit', String(PAGE_SIZE));
    return query;
  }

  function filterForm(owner, params) {
    const checks = (name, values, labelOf) => values.map((value) => {
      const id = `filter-${name}-${value}`;
      return h('span', { class: 'check' },
        h('input', { type: 'checkbox', id, name, value: String(value), checked: params.getAll(name).includes(String(value)) }),
        h('label', { for: id }, labelOf(value)));
    });
    const text = (name, label, attrs) => h('div', { class: 'field' },
      h('label', { for: `filter-${name}` }, label),
      h('input', { id: `filter-${name}`, name, type: 'text', value: params.get(name) || '', ...attrs }));
    const when = (name, label) => h('div', { class: 'field' },
      h('label', { for: `filter-${name}` }, label),
      h('input', { id: `filter-${name}`, name, type: 'datetime-local', value: localInput(params.get(name)) }));
    const form = h('form', { class: 'filters', id: 'filters', 'aria-label': t('timeline.filters'), novalidate: true },
      h('fieldset', null, h('legend', null, t('filter.kind')), checks('kinds', KINDS, (kind) => t(`kind.${kind}`))),
      h('fieldset', null, h('legend', null, t('filter.tier')), checks('tiers', TIERS, (tier) => t(`tier.${tier}`))),
      h('div', { class: 'row' },
        text('contains', t('filter.contains'), { maxlength: '200', type: 'search' }),
        text('speaker', t('filter.speaker')),
        text('session', t('filter.session'))),
      h('div', { class: 'row' },
        when('since', t('filter.since')),
        when('until', t('filter.until')),
        when('at', t('filter.at'))),
      h('div', { class: 'actions' },
        h('button', { type: 'submit' }, t('filter.apply')),
        h('a', { href: link.owner(owner), class: 'button quiet' }, t('filter.clear'))));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const chosen = new URLSearchParams();
      for (const kind of data.getAll('kinds')) chosen.append('kinds', kind);
      for (const tier of data.getAll('tiers')) chosen.append('tiers', tier);
      for (const name of ['contains', 'speaker', 'session']) {
        const value = String(data.get(name) || '').trim();
        if (value) chosen.set(name, value);
      }
      for (const name of ['since', 'until', 'at']) {
        const value = isoOfInput(String(data.get(name) || ''));
        if (value) chosen.set(name, value);
      }
      const target = link.owner(owner, chosen);
      if (location.hash === target) route();
      else location.hash = target;
    });
    const active = ['kinds', 'tiers', 'session', 'speaker', 'contains', 'since', 'until', 'at']
      .filter((name) => params.getAll(name).some((value) => value !== '')).length;
    return h('details', { class: 'filters-box', id: 'filters-box', open: active > 0 },
      h('summary', null, active ? t('timeline.filtersActive', { count: active }) : t('timeline.filters')),
      form);
  }

  function speakersOf(entry) {
    return [...new Set(entry.turns.map((turn) => turn.speaker))];
  }

  function sessionsOf(entry) {
    return [...new Set(entry.turns.map((turn) => turn.session))];
  }

  function timelineRow(owner, entry, pick) {
    const memory = entry.memory;
    const filterLink = (name, value, label) => {
      const params = new URLSearchParams();
      params.set(name, value);
      return h('a', { href: link.owner(owner, params), dir: 'auto' }, label);
    };
    const speakers = speakersOf(entry).map((speaker) => filterLink('speaker', speaker, speaker));
    const sessions = sessionsOf(entry).map((session) => (session
      ? filterLink('session', session, session) : t('session.none')));
    const joined = (items) => (items.length ? items.flatMap((item, index) => (index ? [', ', item] : [item])) : t('none'));
    // data-label names each cell where a phone's width stacks the rows (console.css)
    return h('tr', { 'data-memory': memory.id },
      h('td', { class: 'nowrap', 'data-label': t('col.time') }, timeElement(memory.created_at)),
      h('td', { 'data-label': t('col.speaker') }, joined(speakers)),
      h('td', { class: 'nowrap', 'data-label': t('col.session') }, joined(sessions)),
      h('td', { class: 'text', 'data-label': t('col.text') }, h('a', { href: link.node(owner, 'Memory', memory.id), dir: 'auto', class: 'memory-link' }, short(memory.text, LISTED_CHARS))),
      h('td', { 'data-label': t('col.kind') }, t(`kind.${memory.kind}`)),
      h('td', { class: `nowrap tier tier-${memory.tier}`, 'data-label': t('col.tier') }, t(`tier.${memory.tier}`)),
      h('td', { class: 'number', 'data-label': t('col.attention') }, number(entry.attention, 1)),
      h('td', { class: 'number', 'data-label': t('col.belief') }, number(memory.belief, 2)),
      h('td', { class: 'pick-cell', 'data-label': t('col.plot') }, pick));
  }

  /** A small scatter plot of the attention of the memories shown, by the time they were made. */
  function attentionPlot(entries) {
    const width = 640;
    const height = 130;
    const margin = { left: 34, right: 10, top: 10, bottom: 22 };
    const times = entries.map((entry) => new Date(entry.memory.created_at).getTime());
    const low = Math.min(...times);
    const high = Math.max(...times);
    const top = Math.max(10, ...entries.map((entry) => entry.attention));
    const x = (time) => margin.left + (high === low ? 0.5 : (time - low) / (high - low)) * (width - margin.left - margin.right);
    const y = (value) => margin.top + (1 - value / top) * (height - margin.top - margin.bottom);
    const first = formatDay(new Date(low).toISOString());
    const last = formatDay(new Date(high).toISOString());
    const label = t('plot.label', { count: entries.length, from: first, to: last });
    return s('svg', { class: 'plot', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label },
      s('title', null, label),
      s('line', { x1: margin.left, y1: y(0), x2: width - margin.right, y2: y(0), class: 'axis' }),
      s('line', { x1: margin.left, y1: margin.top, x2: margin.left, y2: y(0), class: 'axis' }),
      [0, top / 2, top].map((value) => s('text', { x: margin.left - 4, y: y(value) + 4, class: 'tick end' }, value.toFixed(0))),
      s('text', { x: margin.left, y: height - 6, class: 'tick' }, first),
      s('text', { x: width - margin.right, y: height - 6, class: 'tick end' }, last),
      s('text', { x: margin.left + 4, y: margin.top + 10, class: 'tick' }, t('plot.axis')),
      entries.map((entry, index) => s('circle', {
        cx: x(times[index]).toFixed(1), cy: y(entry.attention).toFixed(1), r: 3.5, class: `dot tier-${entry.memory.tier}`,
      })));
  }

  async function renderOwner(owner, params) {
    const generation = begin('owner', owner);
    const at = params.get('at') || '';
    main().append(h('p', { class: 'links' },
      h('a', { href: link.owners() }, t('owner.back')), ' · ',
      h('a', { href: link.recall(owner) }, t('owner.recall')), ' · ',
      h('a', { href: link.events(owner, at), id: 'owner-events' }, t('owner.events')), ' · ',
      h('a', { href: link.impressions(owner, at), id: 'owner-impressions' }, t('owner.impressions'))));
    const glance = h('section', { class: 'glance', 'aria-labelledby': 'glance-title' },
      h('h2', { id: 'glance-title' }, t('owner.glance')));
    const timeline = h('section', { class: 'timeline', 'aria-labelledby': 'timeline-title' },
      h('h2', { id: 'timeline-title' }, t('timeline.title')), filterForm(owner, params));
    const profile = h('section', { class: 'profile', 'aria-labelledby': 'profile-title' },
      h('h2', { id: 'profile-title' }, t('profile.title')));
    const side = h('aside', { class: 'side', 'aria-label': `${t('owner.glance')}, ${t('profile.title')}` }, glance, profile);
    main().append(h('div', { class: 'columns' }, timeline, side));

    // Asked together; each answer is kept as {value} or {error}, so that none is left unhandled.
    const pages = outcome(api(ownerPath(owner, 'timeline'), { query: timelineQuery(params) }));
    const health = outcome(api(ownerPath(owner, 'health'), { query: atQuery(at) }));
    const believed = outcome(api(ownerPath(owner, 'profile'), { query: atQuery(at) }));
    const { value: page, error } = await pages;
    if (error) {
      side.remove();
      timeline.remove();
      refused(generation, error, t('error.owner'));
      return;
    }
    if (!current(generation)) return;
    showTimeline(owner, params, timeline, page, generation);
    const counted = await health;
    if (!current(generation)) return;
    if (counted.error) glance.append(h('p', { class: 'problem' }, counted.error.message));
    else showGlance(glance, counted.value);
    const profiled = await believed;
    if (!current(generation)) return;
    if (profiled.error) profile.append(h('p', { class: 'problem' }, profiled.error.message));
    else showProfile(owner, profile, profiled.value, at);
    finish(generation, t('timeline.shown', { count: page.entries.length }));
  }

  function showGlance(section, health) {
    const counts = health.counts;
    const checks = health.checks;
    const item = (label, value) => h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, String(value)));
    section.append(h('dl', { class: 'stats' },
      item(t('col.memories'), counts.nodes.Memory || 0),
      TIERS.map((tier) => item(t(`tier.${tier}`), (counts.tiers || {})[tier] || 0)),
      item(t('col.events'), counts.nodes.Event || 0),
      item(t('col.impressions'), counts.nodes.Impression || 0),
      item(t('col.turns'), counts.nodes.Turn || 0),
      item(t('col.tombstones'), counts.tombstones || 0),
      item(t('col.pending'), checks.pending_turns),
      item(t('owner.awaiting'), checks.awaiting_summary),
      item(t('owner.contradictions'), checks.open_contradictions)));
  }

  function showTimeline(owner, params, section, page, generation) {
    const entries = [...page.entries];
    const plotBox = h('figure', { class: 'plot-box' });
    const body = h('tbody');
    const count = h('p', { class: 'hint', id: 'timeline-count' });
    const more = h('button', { type: 'button', id: 'timeline-more' }, t('timeline.more'));
    const fade = fadePlot(owner, params, generation);
    let next = page.next;
    const refresh = () => {
      plotBox.replaceChildren(...(entries.length ? [attentionPlot(entries)] : []));
      count.textContent = entries.length
        ? t('timeline.shown', { count: entries.length }) + (next ? '' : ' ' + t('timeline.end'))
        : t('timeline.empty');
      more.hidden = !next;
    };
    const rows = (shown, cursor) => shown.map((entry) => timelineRow(owner, entry, fade.pick(entry, cursor)));
    body.append(...rows(entries, ''));
    more.addEventListener('click', async () => {
      more.disabled = true;
      const done = busy(generation);
      say(t('loading'));
      const query = timelineQuery(params);
      const cursor = next;
      query.set('before', cursor);
      try {
        const older = await api(ownerPath(owner, 'timeline'), { query });
        if (!current(generation)) return;
        entries.push(...older.entries);
        body.append(...rows(older.entries, cursor));
        next = older.next;
        refresh();
        say(t('timeline.shown', { count: entries.length }));
      } catch (error) {
        refused(generation, error, t('error.owner'));
      } finally {
        more.disabled = false;
        done();
      }
    });
    const headers = ['col.time', 'col.speaker', 'col.session', 'col.text', 'col.kind', 'col.tier', 'col.attention', 'col.belief', 'col.plot'];
    section.append(plotBox, fade.element,
      scroller(t('timeline.scroll'), h('table', { class: 'timeline-table stack', id: 'timeline' },
        h('caption', null, t('timeline.caption')),
        h('thead', null, h('tr', null, headers.map((header) => h('th', {
          scope: 'col', class: header === 'col.attention' || header === 'col.belief' ? 'number' : null,
        }, t(header))))),
        body)),
      count, more);
    refresh();
    fade.restored();
  }

  /** A memory's first words: what names it in the plot's legend and table. */
  function firstWords(text) {
    const flat = String(text).replace(/\s+/g, ' ').trim();
    const words = flat.split(' ');
    return words.length > 6 ? short(words.slice(0, 6).join(' '), 44) + '…' : short(flat, 44);
  }

  /** The times the plot reads at: FADE_TIMES from `start` to `span` days after it, on the hour. */
  function fadeTimes(start, span) {
    return Array.from({ length: FADE_TIMES }, (unused, index) => {
      const offset = Math.round((index * span * DAY) / (FADE_TIMES - 1) / HOUR) * HOUR;
      return new Date(start + offset).toISOString();
    });
  }

  /**
   * The attention of the memories ticked in the timeline, over time: the section above the table,
   * and the checkbox of each row (`pick`). It reads the page each ticked memory is on (the same
   * filters, cursor and limit) at FADE_TIMES times, each page and span once.
   */
  function fadePlot(owner, params, generation) {
    const at = params.get('at') || '';
    const start = at ? new Date(at).getTime() : Date.now(); // the time read: the page's own
    const pageKey = `${owner}?${timelineQuery(params).toString()}`;
    const kept = state.plotted && state.plotted.page === pageKey ? state.plotted : null;
    const picked = new Map(); // memory id -> {slot, text, cursor, input}
    const boxes = new Map(); // memory id -> its checkbox
    const read = new Map(); // `${cursor}|${span}` -> promise of [Map(memory id -> attention)]
    let span = kept ? kept.span : FADE_SPAN;
    let open = kept ? kept.open : false;
    let drawn = ''; // what is drawn: the span and the memories, in their slots
    let asked = 0;
    const progress = { done: 0, count: 0 };

    const hint = h('span', { class: 'hint', id: 'fade-count' });
    const spanChoice = h('select', { id: 'fade-span', name: 'span' },
      FADE_SPANS.map((days) => h('option', { value: String(days), selected: days === span }, t('fade.days', { days }))));
    const toggle = h('button', { type: 'button', id: 'fade-toggle', class: 'quiet', 'aria-controls': 'fade-figure' });
    const drawing = h('div', { class: 'fade-drawing' });
    const legend = h('ul', { class: 'fade-legend', id: 'fade-legend', 'aria-label': t('fade.legend') });
    const numbers = h('div', { class: 'fade-numbers-table' });
    const details = h('details', { class: 'fade-numbers', id: 'fade-numbers' },
      h('summary', null, t('fade.numbers')), numbers);
    const figure = h('figure', { class: 'plot-box fade-box', id: 'fade-figure' }, drawing, legend, details);
    const element = h('section', { class: 'fade', id: 'fade', 'aria-labelledby': 'fade-title' },
      h('h3', { id: 'fade-title' }, t('fade.title')),
      h('p', { class: 'fade-what' }, t('fade.what')),
      h('div', { class: 'fade-controls' },
        h('label', { for: 'fade-span' }, t('fade.span')), spanChoice, toggle, hint),
      figure);

    const keep = () => {
      state.plotted = { page: pageKey, ids: [...picked.keys()], span, open };
    };
    const showState = () => {
      hint.textContent = t('fade.selected', { count: picked.size, max: PLOTTED_MEMORIES });
      toggle.textContent = open ? t('fade.hide') : t('fade.show');
      toggle.setAttribute('aria-expanded', String(open));
      figure.hidden = !open;
    };
    const inOrder = () => [...picked.entries()].sort((a, b) => a[1].slot - b[1].slot);

    /** The attention on one page (its cursor) at each time of the span, read once. */
    const readPage = (cursor, days) => {
      const key = `${cursor}|${days}`;
      if (!read.has(key)) {
        progress.count += FADE_TIMES;
        const pages = fadeTimes(start, days).map((time) => {
          const query = timelineQuery(params);
          if (cursor) query.set('before', cursor);
          query.set('at', time);
          return api(ownerPath(owner, 'timeline'), { query }).then((answer) => {
            progress.done += 1;
            if (current(generation)) say(t('fade.reading', { count: progress.count, done: progress.done }));
            return new Map(answer.entries.map((entry) => [entry.memory.id, entry.attention]));
          });
        });
        const all = Promise.all(pages);
        all.catch(() => read.delete(key)); // asked again next time
        read.set(key, all);
      }
      return read.get(key);
    };

    const draw = async () => {
      const shown = inOrder();
      const key = `${span}|${shown.map(([id, item]) => `${item.slot}:${id}`).join(',')}`;
      if (!open || key === drawn) return; // nothing changed: nothing read, nothing drawn again
      asked += 1;
      const ticket = asked;
      if (!shown.length) {
        drawn = key;
        figure.dataset.drawn = key;
        drawing.replaceChildren(h('p', { class: 'empty', id: 'fade-none' }, t('fade.none')));
        legend.replaceChildren();
        numbers.replaceChildren();
        details.hidden = true;
        return;
      }
      const days = span;
      const cursors = [...new Set(shown.map(([, item]) => item.cursor))];
      const done = busy(generation);
      let series;
      try {
        const answers = await Promise.all(cursors.map((cursor) => readPage(cursor, days)));
        series = shown.map(([id, item]) => {
          const pages = answers[cursors.indexOf(item.cursor)];
          return { id, ...item, values: pages.map((values) => (values.has(id) ? values.get(id) : null)) };
        });
      } catch (error) {
        if (current(generation) && ticket === asked) {
          if (error instanceof ApiError && error.status === 401) refused(generation, error);
          else say(error instanceof ApiError ? t('error.generic', { status: error.status, message: error.message }) : error.message, 'error');
        }
        return;
      } finally {
        done();
        if (progress.done >= progress.count) {
          progress.done = 0;
          progress.count = 0;
        }
      }
      if (!current(generation) || ticket !== asked) return;
      const times = fadeTimes(start, days);
      drawing.replaceChildren(fadeSvg(series, times));
      legend.replaceChildren(...series.map((item) => h('li', { 'data-memory': item.id },
        s('svg', { class: 'sample', viewBox: '0 0 40 12', 'aria-hidden': 'true', focusable: 'false' },
          s('line', { x1: 1, y1: 6, x2: 39, y2: 6, class: `series s-${item.slot}` })),
        h('a', { href: link.node(owner, 'Memory', item.id), dir: 'auto' }, item.text))));
      numbers.replaceChildren(fadeTable(series, times));
      details.hidden = false;
      drawn = key;
      figure.dataset.drawn = key; // what tests wait on
      say(t('fade.read', { count: series.length, times: times.length }));
    };

    const choose = (id, text, cursor, input) => {
      if (!input.checked) {
        picked.delete(id);
      } else if (picked.size >= PLOTTED_MEMORIES) {
        input.checked = false;
        say(t('fade.tooMany', { max: PLOTTED_MEMORIES }), 'error');
        return;
      } else {
        const used = new Set([...picked.values()].map((item) => item.slot));
        let slot = 0;
        while (used.has(slot)) slot += 1;
        picked.set(id, { slot, text, cursor });
      }
      keep();
      showState();
      draw();
    };

    spanChoice.addEventListener('change', () => {
      span = Number(spanChoice.value) || FADE_SPAN;
      keep();
      draw();
    });
    toggle.addEventListener('click', () => {
      open = !open;
      keep();
      showState();
      draw();
    });

    /** The checkbox of a row, named by the memory's first words. */
    const pick = (entry, cursor) => {
      const id = entry.memory.id;
      const text = firstWords(entry.memory.text);
      const input = h('input', { type: 'checkbox', class: 'pick', 'data-memory': id });
      input.addEventListener('change', () => choose(id, text, cursor, input));
      boxes.set(id, { input, text, cursor });
      return h('label', { class: 'pick-label' }, input,
        h('span', { class: 'visually-hidden', dir: 'auto' }, t('fade.pick', { text })));
    };

    /** The memories ticked before (this page, in another language, say) ticked again. */
    const restored = () => {
      for (const id of kept ? kept.ids : []) {
        const box = boxes.get(id);
        if (!box || picked.size >= PLOTTED_MEMORIES) continue;
        box.input.checked = true;
        picked.set(id, { slot: picked.size, text: box.text, cursor: box.cursor });
      }
      keep();
      showState();
      draw();
    };

    return { element, pick, restored };
  }

  /** The line plot: one line a memory, its colour and dashes its own, dates along, 0-10 up. */
  function fadeSvg(series, times) {
    const width = 720;
    const height = 300;
    const margin = { left: 50, right: 18, top: 16, bottom: 46 };
    const instants = times.map((time) => new Date(time).getTime());
    const low = instants[0];
    const high = instants[instants.length - 1];
    const values = series.flatMap((item) => item.values.filter((value) => value !== null));
    const top = Math.max(10, Math.ceil(Math.max(0, ...values) / 2) * 2);
    const x = (time) => margin.left + (high === low ? 0.5 : (time - low) / (high - low)) * (width - margin.left - margin.right);
    const y = (value) => margin.top + (1 - value / top) * (height - margin.top - margin.bottom);
    const ticks = Array.from({ length: 6 }, (unused, index) => (top * index) / 5);
    const dated = [0, Math.round((times.length - 1) / 3), Math.round((2 * (times.length - 1)) / 3), times.length - 1];
    const label = t('fade.label', {
      count: series.length, from: formatDay(times[0]), to: formatDay(times[times.length - 1]), times: times.length,
    });
    const line = (item) => {
      let path = '';
      let pen = 'M';
      item.values.forEach((value, index) => {
        if (value === null) {
          pen = 'M';
          return;
        }
        path += `${pen}${x(instants[index]).toFixed(1)} ${y(value).toFixed(1)} `;
        pen = 'L';
      });
      return path.trim();
    };
    return s('svg', { class: 'fade-plot', id: 'fade-svg', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label },
      s('title', null, label),
      ticks.map((value) => s('g', null,
        s('line', { x1: margin.left, y1: y(value).toFixed(1), x2: width - margin.right, y2: y(value).toFixed(1), class: value ? 'grid' : 'axis' }),
        s('text', { x: margin.left - 6, y: (y(value) + 4).toFixed(1), class: 'tick end' }, value.toFixed(0)))),
      s('line', { x1: margin.left, y1: margin.top, x2: margin.left, y2: y(0), class: 'axis' }),
      dated.map((index, place) => s('g', null,
        s('line', { x1: x(instants[index]).toFixed(1), y1: y(0), x2: x(instants[index]).toFixed(1), y2: y(0) + 5, class: 'axis' }),
        s('text', {
          x: x(instants[index]).toFixed(1), y: y(0) + 18,
          class: `tick ${place === 0 ? '' : place === dated.length - 1 ? 'end' : 'middle'}`.trim(),
        }, formatDay(times[index])))),
      s('text', { x: ((margin.left + width - margin.right) / 2).toFixed(1), y: height - 6, class: 'tick middle axis-title' }, t('fade.xAxis')),
      s('text', {
        x: 0, y: 0, class: 'tick middle axis-title',
        transform: `translate(14 ${((margin.top + y(0)) / 2).toFixed(1)}) rotate(-90)`,
      }, t('fade.yAxis')),
      series.map((item) => s('g', { class: `line s-${item.slot}`, 'data-memory': item.id },
        s('title', null, item.text),
        s('path', { d: line(item), class: `series s-${item.slot}` }),
        item.values.map((value, index) => (value === null ? null : s('circle', {
          cx: x(instants[index]).toFixed(1), cy: y(value).toFixed(1), r: 3, class: `point s-${item.slot}`,
        }))))));
  }

  /** The same numbers as a table: a row a time read, a column a memory. */
  function fadeTable(series, times) {
    return scroller(t('fade.scroll'), h('table', { class: 'fade-table', id: 'fade-table' },
      h('caption', null, t('fade.caption')),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, t('fade.time')),
        series.map((item) => h('th', { scope: 'col', class: 'number', dir: 'auto', 'data-memory': item.id }, item.text)))),
      h('tbody', null, times.map((time, index) => h('tr', null,
        h('th', { scope: 'row', class: 'nowrap' }, timeElement(time)),
        series.map((item) => h('td', { class: 'number' }, number(item.values[index], 2))))))));
  }

  function showProfile(owner, aside, profile, at) {
    const list = (items, render) => (items.length
      ? h('ul', null, items.map((item) => h('li', null, render(item))))
      : h('p', { class: 'hint' }, t('profile.nothing')));
    aside.append(
      h('h3', null, t('profile.facts')),
      list(profile.facts, (fact) => [
        h('strong', { dir: 'auto' }, fact.slot), ': ',
        fact.rests_on && fact.rests_on.length
          ? h('a', { href: link.node(owner, 'Memory', fact.rests_on[0], at), dir: 'auto' }, fact.text)
          : memoryText(fact.text),
        ' ', h('span', { class: 'hint' }, t('profile.fact', { belief: number(fact.belief, 2), since: formatDay(fact.since) })),
      ]),
      h('h3', null, t('profile.events')),
      list(profile.events, (event) => [
        h('a', { href: link.node(owner, 'Event', event.event), dir: 'auto' }, event.title), ' ',
        h('span', { class: 'hint', dir: 'auto' }, t('profile.event', {
          category: event.category, latest: event.latest, until: formatDay(event.open_until),
        })),
      ]),
      h('h3', null, t('profile.conjectures')),
      list(profile.conjectures, (conjecture) => [
        h('a', { href: link.node(owner, 'Impression', conjecture.impression), dir: 'auto' }, conjecture.text), ' ',
        h('span', { class: 'hint' }, t('profile.conjecture', {
          belief: number(conjecture.belief, 2), fades: formatDay(conjecture.fades_at),
        })),
      ]),
      h('p', { class: 'hint' }, t('profile.rules', { count: profile.causal_rules })));
  }

  // ---------------------------------------------------------------- an owner's events and impressions

  /** A label whose `{name}` is an element: the text around it, and the element in its place. */
  function around(id, name, element) {
    const [before, after = ''] = t(id).split(`{${name}}`);
    return [before, element, after];
  }

  function dayElement(iso) {
    return iso ? h('time', { datetime: iso }, formatDay(iso)) : t('none');
  }

  /** Days as a short number: 30, 0.5. */
  function days(value) {
    return value === null || value === undefined ? t('none') : String(Number(Number(value).toFixed(1)));
  }

  /** The links, the lead and the "read at" form of the events (`page`) or impressions page. */
  function readingHead(owner, at, page) {
    const here = (chosen) => link[page](owner, chosen);
    const other = page === 'events' ? 'impressions' : 'events';
    const when = h('input', { id: 'read-at', name: 'at', type: 'datetime-local', value: localInput(at) });
    const form = h('form', { class: 'at-form', id: 'at-form', novalidate: true },
      h('div', { class: 'field' }, h('label', { for: 'read-at' }, t('at.label')), when),
      h('button', { type: 'submit' }, t('at.apply')));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const target = here(isoOfInput(when.value));
      if (location.hash === target) route();
      else location.hash = target;
    });
    return [
      h('p', { class: 'links' },
        h('a', { href: link.owner(owner, atQuery(at)) }, t('node.timeline')), ' · ',
        h('a', { href: link[other](owner, at), id: `to-${other}` }, t(`owner.${other}`)), ' · ',
        h('a', { href: link.recall(owner) }, t('owner.recall'))),
      h('p', { class: 'lead' }, t(`${page}.intro`)),
      form,
    ];
  }

  /** The events along time: first to last update, then the rest of the timeliness; the time read. */
  function eventsPlot(entries, at) {
    const shown = entries.slice(0, PLOTTED_EVENTS);
    const read = at ? new Date(at).getTime() : Date.now();
    const row = 24;
    const width = 800;
    const margin = { left: 230, right: 14, top: 20, bottom: 24 };
    const height = margin.top + shown.length * row + margin.bottom;
    const time = (iso) => new Date(iso).getTime();
    const low = Math.min(read, ...shown.map((entry) => time(entry.event.first_at)));
    const high = Math.max(read, ...shown.map((entry) => time(entry.open_until)));
    const x = (when) => margin.left + (high === low ? 0.5 : (when - low) / (high - low)) * (width - margin.left - margin.right);
    const readDay = formatTime(new Date(read).toISOString());
    const label = t('events.plot', { count: shown.length, at: at ? readDay : `${t('at.now')} (${readDay})` });
    return s('svg', { class: 'plot events-plot', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label },
      s('title', null, label),
      shown.map((entry, index) => {
        const y = margin.top + index * row;
        const first = x(time(entry.event.first_at));
        const last = x(time(entry.event.last_at));
        const until = x(time(entry.open_until));
        return s('g', { class: `event-row ${entry.open ? 'is-open' : 'is-closed'}` },
          s('text', { x: margin.left - 8, y: y + row / 2 + 4, class: 'tick end row-label' }, short(entry.event.title, 36)),
          s('rect', { x: last.toFixed(1), y: y + 6, width: Math.max(until - last, 1).toFixed(1), height: row - 12, class: 'window' }),
          s('rect', { x: first.toFixed(1), y: y + 4, width: Math.max(last - first, 3).toFixed(1), height: row - 8, class: 'span' }));
      }),
      s('line', { x1: x(read).toFixed(1), y1: margin.top - 4, x2: x(read).toFixed(1), y2: height - margin.bottom + 2, class: 'read' }),
      s('text', { x: x(read).toFixed(1), y: margin.top - 8, class: 'tick middle' }, t('events.plotRead')),
      s('text', { x: margin.left, y: height - 6, class: 'tick' }, formatDay(new Date(low).toISOString())),
      s('text', { x: width - margin.right, y: height - 6, class: 'tick end' }, formatDay(new Date(high).toISOString())));
  }

  function eventRow(owner, entry, index) {
    const event = entry.event;
    const lines = String(event.text).split('\n').map((line) => line.trim()).filter(Boolean);
    const state = entry.open ? 'open' : 'closed';
    return h('tr', { 'data-event': event.id },
      h('td', { class: 'text', 'data-label': t('col.title') },
        h('a', { href: link.node(owner, 'Event', event.id), dir: 'auto', class: 'event-link' }, event.title || short(event.text, 80)),
        h('details', { class: 'storyline', open: index === 0 },
          h('summary', null, t('events.storyline', { count: lines.length })),
          h('ol', { class: 'storyline-lines' }, lines.map((line) => h('li', { dir: 'auto' }, line))))),
      h('td', { dir: 'auto', 'data-label': t('col.category') }, event.category),
      h('td', { class: 'state', 'data-label': t('col.open') },
        h('span', { class: `badge state-${state}` }, t(`events.${state}`)), ' ',
        h('span', { class: 'nowrap' }, around(entry.open ? 'events.until' : 'events.since', 'day', dayElement(entry.open_until)))),
      h('td', { class: 'nowrap', 'data-label': t('col.first') }, timeElement(event.first_at)),
      h('td', { class: 'nowrap', 'data-label': t('col.last') }, timeElement(event.last_at)),
      h('td', { class: 'number', 'data-label': t('col.timeliness') }, days(event.timeliness_days)),
      h('td', { class: 'number', 'data-label': t('col.memories') }, String(entry.memories)),
      h('td', { class: 'number', 'data-label': t('col.attention') }, number(entry.attention, 2)),
      h('td', { class: `nowrap tier tier-${event.tier}`, 'data-label': t('col.tier') }, t(`tier.${event.tier}`)));
  }

  async function renderEvents(owner, params) {
    const generation = begin('events', t('events.title', { owner }));
    const at = params.get('at') || '';
    main().append(...readingHead(owner, at, 'events'));
    let entries;
    try {
      entries = await api(ownerPath(owner, 'events'), { query: atQuery(at) });
    } catch (error) {
      refused(generation, error, t('error.owner'));
      return;
    }
    if (!current(generation)) return;
    if (!entries.length) {
      main().append(h('p', { class: 'empty', id: 'events-none' }, t('events.none')));
      finish(generation, t('events.none'));
      return;
    }
    const open = entries.filter((entry) => entry.open).length;
    const headers = ['col.title', 'col.category', 'col.open', 'col.first', 'col.last', 'col.timeliness', 'col.memories', 'col.attention', 'col.tier'];
    const grid = table(t('events.caption'), headers.map(t),
      entries.map((entry, index) => eventRow(owner, entry, index)), 'events-table stack', [5, 6, 7]);
    grid.id = 'events';
    main().append(
      h('figure', { class: 'plot-box' }, eventsPlot(entries, at)),
      scroller(t('events.scroll'), grid),
      h('p', { class: 'hint', id: 'events-count' }, t('events.count', { count: entries.length, open })));
    finish(generation, t('events.count', { count: entries.length, open }));
  }

  function impressionRow(owner, entry) {
    const impression = entry.impression;
    return h('tr', { 'data-impression': impression.id },
      h('td', { class: 'text', 'data-label': t('col.impression') },
        h('a', { href: link.node(owner, 'Impression', impression.id), dir: 'auto', class: 'impression-link' }, short(impression.text, LISTED_CHARS))),
      h('td', { class: 'belief-now', 'data-label': t('col.beliefNow') },
        h('span', { class: 'belief-bar' }, bar(entry.belief), h('span', { class: 'number' }, number(entry.belief, 2)))),
      h('td', { class: 'number', 'data-label': t('col.beliefStored') }, number(impression.belief, 2)),
      h('td', { class: 'nowrap', 'data-label': t('col.beliefAt') }, timeElement(impression.belief_at)),
      h('td', { class: 'number', 'data-label': t('col.halfLife') }, days(impression.half_life_days)),
      h('td', { class: 'number', 'data-label': t('col.cues') }, String(entry.cues)),
      h('td', { class: 'number', 'data-label': t('col.conjectures') }, String(entry.conjectures)),
      h('td', { class: 'nowrap', 'data-label': t('col.conjectured') }, timeElement(impression.conjectured_at)));
  }

  async function renderImpressions(owner, params) {
    const generation = begin('impressions', t('impressions.title', { owner }));
    const at = params.get('at') || '';
    main().append(...readingHead(owner, at, 'impressions'));
    let entries;
    try {
      entries = await api(ownerPath(owner, 'impressions'), { query: atQuery(at) });
    } catch (error) {
      refused(generation, error, t('error.owner'));
      return;
    }
    if (!current(generation)) return;
    if (!entries.length) {
      main().append(h('p', { class: 'empty', id: 'impressions-none' }, t('impressions.none')));
      finish(generation, t('impressions.none'));
      return;
    }
    const headers = ['col.impression', 'col.beliefNow', 'col.beliefStored', 'col.beliefAt', 'col.halfLife', 'col.cues', 'col.conjectures', 'col.conjectured'];
    const grid = table(t('impressions.caption'), headers.map(t),
      entries.map((entry) => impressionRow(owner, entry)), 'impressions-table stack', [2, 4, 5, 6]);
    grid.id = 'impressions';
    main().append(scroller(t('impressions.scroll'), grid),
      h('p', { class: 'hint', id: 'impressions-count' }, t('impressions.count', { count: entries.length })));
    finish(generation, t('impressions.count', { count: entries.length }));
  }

  // ---------------------------------------------------------------- a node and its edges

  function nodesOf(hood) {
    const nodes = new Map();
    for (const [label, list] of [['Turn', hood.turns], ['Memory', hood.memories], ['Event', hood.events], ['Impression', hood.impressions]]) {
      for (const node of list || []) {
        if (!nodes.has(node.id) || (node.id === hood.node_id && label === hood.label)) nodes.set(node.id, { label, node });
      }
    }
    return nodes;
  }

  function strengthOf(edge) {
    for (const name of ['weight', 'sufficiency', 'belief']) {
      if (edge[name] !== undefined && edge[name] !== null) return `${name} ${Number(edge[name]).toFixed(2)}`;
    }
    return t('none');
  }

  function nodeName(entry) {
    if (!entry) return '?';
    const node = entry.node;
    return entry.label === 'Event' ? node.title || node.text : node.text;
  }

  /**
   * An SVG graph of placed nodes and the edges among them, each edge an arrow labelled with its
   * type. `place` maps a node's id to its {x, y}; `describe(id)` tells how it looks: {kind,
   * letter, title, caption, captionAbove, r, middle, className, href, name}. With `links`, a node that
   * has an href is a link (an <a>, reached with the keyboard too) and the SVG is a group of them;
   * without, the SVG is one image and a click on a node follows its href. `merged` labels the edges
   * of a pair of nodes once, with all their types (RELATED · SUPPORTS), instead of one by one.
   */
  function drawGraph({ name, className, width, height, label, place, edges, describe, links = false, merged = false }) {
    const looks = new Map([...place.keys()].map((id) => [id, describe(id)]));
    const drawn = edges.filter((edge) => place.has(edge.source) && place.has(edge.target) && edge.source !== edge.target);
    const pairCount = new Map();
    const pairTypes = new Map(); // merged: the first edge of a pair is labelled with the types of all
    for (const edge of drawn) {
      const pair = [edge.source, edge.target].sort().join('\n');
      const types = pairTypes.get(pair) || [];
      if (!types.includes(edge.type)) types.push(edge.type);
      pairTypes.set(pair, types);
    }
    const marker = `${name}-arrow`;
    return s('svg', {
      class: className, id: name, viewBox: `0 0 ${width} ${height}`,
      role: links ? 'group' : 'img', 'aria-label': label,
    },
    s('title', null, label),
    s('defs', null, s('marker', { id: marker, viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' },
      s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }))),
    drawn.map((edge) => {
      const from = place.get(edge.source);
      const to = place.get(edge.target);
      const pair = [edge.source, edge.target].sort().join('\n');
      const seen = pairCount.get(pair) || 0; // a second edge of a pair: its label further on
      pairCount.set(pair, seen + 1);
      const dx = to.x - from.x;
      const dy = to.y - from.y;
      const length = Math.hypot(dx, dy) || 1;
      const start = looks.get(edge.source).r + 2;
      const end = looks.get(edge.target).r + 4;
      const x1 = from.x + (dx / length) * start;
      const y1 = from.y + (dy / length) * start;
      const x2 = to.x - (dx / length) * end;
      const y2 = to.y - (dy / length) * end;
      const share = merged ? 0.5 : 0.5 + seen * 0.12;
      const aside = merged ? 0 : seen * 12; // and aside the line, so that two labels do not overlap
      const text = merged ? (seen ? null : pairTypes.get(pair).join(' · ')) : edge.type;
      return s('g', { class: `edge edge-${edge.type}`, 'data-type': edge.type, 'data-source': edge.source, 'data-target': edge.target },
        s('line', { x1: x1.toFixed(1), y1: y1.toFixed(1), x2: x2.toFixed(1), y2: y2.toFixed(1), 'marker-end': `url(#${marker})` }),
        text ? s('text', {
          x: (from.x + dx * share - (dy / length) * aside).toFixed(1),
          y: (from.y + dy * share + (dx / length) * aside - 4).toFixed(1),
          class: 'edge-label',
        }, text) : null);
    }),
    [...place.entries()].map(([id, spot]) => {
      const look = looks.get(id);
      const x = spot.x.toFixed(1);
      const group = s('g', { class: ['node', `node-${look.kind}`, look.middle ? 'middle' : null, look.className].filter(Boolean).join(' '), 'data-node': id },
        s('circle', { cx: x, cy: spot.y.toFixed(1), r: look.r.toFixed(1) }),
        s('text', { x, y: (spot.y + 4.5).toFixed(1), class: 'node-letter' }, look.letter),
        s('title', null, look.title),
        look.caption ? s('text', {
          x, y: (look.captionAbove ? spot.y - look.r - 8 : spot.y + look.r + 16).toFixed(1), class: 'node-label',
        }, look.caption) : null);
      if (!look.href) return group;
      if (links) return s('a', { href: look.href, class: 'node-link', 'aria-label': look.name || look.title }, group);
      group.addEventListener('click', () => { location.hash = look.href; });
      return group;
    }));
  }

  /** The SVG graph of a node: the node in the middle, its neighbours around it, each edge labelled. */
  function nodeGraph(owner, hood, nodes) {
    const neighbours = [];
    for (const edge of hood.links) {
      const other = edge.source === hood.node_id ? edge.target : edge.source;
      if (other !== hood.node_id && !neighbours.includes(other)) neighbours.push(other);
    }
    const drawn = neighbours.slice(0, GRAPH_NEIGHBOURS);
    const width = 560;
    const height = drawn.length > 8 ? 460 : drawn.length > 2 ? 380 : 240;
    const cx = width / 2;
    const cy = height / 2;
    const rx = width / 2 - 90;
    const ry = height / 2 - 55;
    const place = new Map([[hood.node_id, { x: cx, y: cy }]]);
    const count = Math.max(drawn.length, 1);
    drawn.forEach((id, index) => {
      const angle = -Math.PI / 2 + Math.PI / count + (2 * Math.PI * index) / count;
      place.set(id, { x: cx + rx * Math.cos(angle), y: cy + ry * Math.sin(angle) });
    });
    const svg = drawGraph({
      name: 'node-graph', className: 'graph', width, height, place, edges: hood.links,
      label: t('node.graph', { count: neighbours.length }),
      describe: (id) => {
        const entry = nodes.get(id);
        const middle = id === hood.node_id;
        const kind = entry ? entry.label : 'Memory';
        return {
          kind, middle, r: middle ? 26 : 22, letter: t(`letter.${kind}`), title: nodeName(entry),
          caption: middle ? null : short(nodeName(entry), 22), captionAbove: place.get(id).y < cy - 1,
          href: !middle && entry ? link.node(owner, entry.label, id) : null,
        };
      },
    });
    return { svg, shown: drawn.length, count: neighbours.length };
  }

  function edgeTable(owner, hood, nodes) {
    const rows = hood.links.map((edge) => {
      const outgoing = edge.source === hood.node_id;
      const other = outgoing ? edge.target : edge.source;
      const entry = nodes.get(other);
      return h('tr', { 'data-edge': edge.type },
        h('td', null, h('code', null, edge.type)),
        h('td', null, outgoing ? t('dir.out') : t('dir.in')),
        h('td', { class: 'text' }, entry
          ? h('a', { href: link.node(owner, entry.label, other), dir: 'auto', class: 'neighbour' }, short(nodeName(entry), 120))
          : other),
        h('td', null, entry ? t(`label.${entry.label}`) : t('none')),
        h('td', { class: 'nowrap' }, strengthOf(edge)));
    });
    return scroller(t('node.edgesCaption'), table(t('node.edgesCaption'),
      ['col.type', 'col.direction', 'col.neighbour', 'col.label', 'col.strength'].map(t), rows, 'edges'));
  }

  function nodeFields(label, node) {
    const common = [[t('field.id'), h('code', { dir: 'auto' }, node.id)], [t('field.created'), timeElement(node.created_at)]];
    if (label === 'Memory') {
      const attention = node.attention || {};
      return [
        ...common,
        [t('field.kind'), t(`kind.${node.kind}`)],
        [t('field.importance'), number(node.importance, 1)],
        [t('field.attention'), t('field.attentionValue', {
          long: number(attention.long_term, 2), longAt: formatTime(attention.long_term_at),
          short: number(attention.short_term, 2), shortAt: formatTime(attention.short_term_at),
        })],
        [t('field.tier'), t(`tier.${node.tier}`)],
        [t('field.belief'), number(node.belief, 2)],
        [t('field.accessed'), timeElement(node.accessed_at)],
        node.valid_from ? [t('field.validFrom'), timeElement(node.valid_from)] : null,
        node.valid_until ? [t('field.validUntil'), timeElement(node.valid_until)] : null,
        node.slot ? [t('field.slot'), h('span', { dir: 'auto' }, node.slot)] : null,
        node.offline ? [t('field.offline'), t('yes')] : null,
        node.awaiting_consolidation ? [t('field.awaiting'), t('yes')] : null,
      ];
    }
    if (label === 'Turn') {
      return [
        ...common,
        [t('field.speaker'), h('span', { dir: 'auto' }, node.speaker)],
        [t('field.session'), node.session ? h('span', { dir: 'auto' }, node.session) : t('session.none')],
        [t('field.position'), node.position === null || node.position === undefined ? t('none') : String(node.position)],
        [t('field.pending'), node.pending ? t('yes') : t('no')],
      ];
    }
    if (label === 'Event') {
      return [
        ...common,
        [t('field.title'), h('span', { dir: 'auto' }, node.title)],
        [t('field.category'), h('span', { dir: 'auto' }, node.category)],
        [t('field.firstAt'), timeElement(node.first_at)],
        [t('field.lastAt'), timeElement(node.last_at)],
        [t('field.timeliness'), number(node.timeliness_days, 0)],
        [t('field.importance'), number(node.importance, 1)],
        [t('field.tier'), t(`tier.${node.tier}`)],
      ];
    }
    return [
      ...common,
      [t('field.belief'), number(node.belief, 2)],
      [t('field.beliefAt'), timeElement(node.belief_at)],
      [t('field.halfLife'), number(node.half_life_days, 0)],
      [t('field.conjectured'), node.conjectured_at ? timeElement(node.conjectured_at) : t('none')],
    ];
  }

  function turnCard(owner, turn, after) {
    return h('article', { class: 'turn card', 'data-turn': turn.id },
      h('p', { class: 'meta' },
        timeElement(turn.created_at), ' · ', h('span', { dir: 'auto' }, turn.speaker),
        turn.session ? [' · ', h('span', { dir: 'auto' }, turn.session)] : null, ' · ',
        h('a', { href: link.node(owner, 'Turn', turn.id) }, h('code', { dir: 'auto' }, short(turn.id, 40)))),
      memoryText(turn.text, 'p'),
      h('button', {
        type: 'button', class: 'danger forget', 'aria-label': t('forget.buttonNamed', { id: turn.id }),
        onclick: () => forgetMessage(owner, turn.id, after),
      }, t('forget.button')));
  }

  /**
   * A fact's slot as the profile reads it at `at` (or now): whether this memory is the value in
   * force or one it replaced, and every value with its time, each a link to its memory.
   */
  async function factHistory(owner, node, at) {
    const section = h('section', { class: 'card slot-history', id: 'slot-history', 'aria-labelledby': 'slot-title' },
      h('h2', { id: 'slot-title' }, t('fact.title', { slot: node.slot })));
    let profile;
    try {
      profile = await api(ownerPath(owner, 'profile'), { query: atQuery(at) });
    } catch (error) {
      section.append(h('p', { class: 'problem' }, error.message));
      return section;
    }
    const when = timeElement(profile.at);
    const fact = profile.facts.find((entry) => entry.slot === node.slot);
    if (!fact) {
      section.append(h('p', { id: 'slot-missing' }, around('fact.missing', 'at', when).map((part) => (
        typeof part === 'string' ? part.replace('{slot}', node.slot) : part))));
      return section;
    }
    const values = [
      { id: fact.rests_on[0], text: fact.text, since: fact.since, current: true },
      ...fact.earlier.map((value) => ({ ...value, current: false })),
    ];
    const state = fact.rests_on.includes(node.id) ? 'inForce'
      : fact.earlier.some((value) => value.id === node.id) ? 'replaced' : 'absent';
    section.append(
      h('p', { id: 'slot-state' }, h('span', { class: `badge slot-${state}` }, t(`fact.${state}`)), ' ',
        state === 'absent' ? h('span', { class: 'hint' }, t('fact.absentText')) : null),
      h('p', { class: 'hint' }, around('fact.read', 'at', when)),
      h('ol', { class: 'slot-values', 'aria-labelledby': 'slot-title' }, values.map((value) => h('li', {
        'data-memory': value.id, class: value.id === node.id ? 'this' : null,
        'aria-current': value.id === node.id ? 'page' : null,
      },
      h('a', { href: link.node(owner, 'Memory', value.id, at), dir: 'auto' }, value.text), ' ',
      h('span', { class: 'hint' }, value.current
        ? around('fact.current', 'since', timeElement(value.since)).concat(` · ${t('field.belief')} ${number(fact.belief, 2)}`)
        : around('fact.earlier', 'since', timeElement(value.since))),
      value.id === node.id ? [' ', h('strong', null, t('fact.this'))] : null))));
    return section;
  }

  async function renderNode(owner, label, id, params) {
    const generation = begin('node', null);
    main().dataset.label = label;
    if (!LABELS.includes(label)) {
      main().append(h('h1', null, t('notfound.title')), h('p', null, t('notfound.text')));
      finish(generation);
      return;
    }
    const flash = takeFlash();
    if (flash) main().append(flash);
    let hood;
    try {
      const query = new URLSearchParams({ node_id: id, label });
      hood = await api(ownerPath(owner, 'neighbourhood'), { query });
    } catch (error) {
      main().prepend(h('h1', { dir: 'auto' }, `${t(`label.${label}`)} ${short(id, 40)}`));
      refused(generation, error, t('error.owner'));
      return;
    }
    if (!current(generation)) return;
    const nodes = nodesOf(hood);
    const self = nodes.get(id);
    const back = h('p', { class: 'links' },
      h('a', { href: link.owner(owner) }, t('node.timeline')), ' · ',
      h('a', { href: link.recall(owner) }, t('owner.recall')));
    if (!self || self.label !== label) {
      main().prepend(h('h1', null, t('node.missing.title')));
      main().append(h('p', { class: 'problem', 'data-refusal': 'missing' }, t('node.missing.text', { owner, label: t(`label.${label}`), id })), back);
      finish(generation);
      return;
    }
    const node = self.node;
    main().prepend(h('h1', { dir: 'auto' }, `${t(`label.${label}`)}: ${short(nodeName(self), 70)}`));
    const rerender = () => route();
    const left = h('div', { class: 'node-main' });
    const right = h('div', { class: 'node-side' });
    main().append(back, h('div', { class: 'columns node-columns' }, left, right));
    left.append(
      h('section', { class: 'card', 'aria-labelledby': 'text-title' },
        h('h2', { id: 'text-title' }, label === 'Event' ? t('field.storyline') : t('node.text')),
        memoryText(node.text, 'p'),
        h('h3', null, t('node.fields')),
        definitions(nodeFields(label, node))));

    const related = (type, from, to) => hood.links
      .filter((edge) => edge.type === type && (from === null || edge.source === from) && (to === null || edge.target === to))
      .map((edge) => (edge.source === id ? edge.target : edge.source))
      .map((other) => nodes.get(other))
      .filter(Boolean);

    if (label === 'Turn') {
      left.append(h('section', { 'aria-labelledby': 'turns-title' },
        h('h2', { id: 'turns-title' }, t('node.turn')), turnCard(owner, node, rerender)));
    }
    if (label === 'Memory') {
      const turns = related('FROM', id, null).filter((entry) => entry.label === 'Turn');
      if (turns.length) {
        left.append(h('section', { 'aria-labelledby': 'turns-title' },
          h('h2', { id: 'turns-title' }, t('node.turns')),
          turns.map((entry) => turnCard(owner, entry.node, rerender))));
      }
    }
    const events = [...nodes.values()].filter((entry) => entry.label === 'Event' && entry.node.id !== id);
    if (events.length) {
      left.append(h('section', { 'aria-labelledby': 'events-title' },
        h('h2', { id: 'events-title' }, label === 'Memory' ? t('node.event') : t('node.events')),
        events.map((entry) => h('article', { class: 'card event' },
          h('h3', null, h('a', { href: link.node(owner, 'Event', entry.node.id), dir: 'auto' }, entry.node.title)),
          h('p', { class: 'meta' }, h('span', { dir: 'auto' }, entry.node.category), ' · ',
            timeElement(entry.node.first_at), ' – ', timeElement(entry.node.last_at)),
          memoryText(entry.node.text, 'p')))));
    }
    const impressions = [...nodes.values()].filter((entry) => entry.label === 'Impression' && entry.node.id !== id);
    if (impressions.length) {
      left.append(h('section', { 'aria-labelledby': 'impressions-title' },
        h('h2', { id: 'impressions-title' }, t('node.impressions')),
        h('ul', null, impressions.map((entry) => h('li', null,
          h('a', { href: link.node(owner, 'Impression', entry.node.id), dir: 'auto' }, entry.node.text), ' ',
          h('span', { class: 'hint' }, `${t('field.belief')} ${number(entry.node.belief, 2)}`))))));
    }
    if (label !== 'Memory') {
      const memories = [...nodes.values()].filter((entry) => entry.label === 'Memory' && entry.node.id !== id);
      if (memories.length) {
        left.append(h('section', { 'aria-labelledby': 'memories-title' },
          h('h2', { id: 'memories-title' }, t('node.memories')),
          h('ul', null, memories.map((entry) => h('li', null,
            h('a', { href: link.node(owner, 'Memory', entry.node.id), dir: 'auto' }, entry.node.text), ' ',
            h('span', { class: 'hint' }, `${t(`kind.${entry.node.kind}`)} · ${t(`tier.${entry.node.tier}`)}`))))));
      }
    }
    const edges = h('section', { 'aria-labelledby': 'edges-title', id: 'edges' }, h('h2', { id: 'edges-title' }, t('node.edges')));
    if (hood.links.length) {
      const graph = nodeGraph(owner, hood, nodes);
      edges.append(h('figure', { class: 'graph-box' }, graph.svg,
        graph.shown < graph.count ? h('figcaption', { class: 'hint' }, t('node.graphMore', { shown: graph.shown, count: graph.count })) : null),
      edgeTable(owner, hood, nodes));
    } else {
      edges.append(h('p', null, t('node.noEdges')));
    }
    right.append(edges);
    if (label === 'Memory' && node.kind === 'fact' && node.slot) {
      const history = await factHistory(owner, node, (params && params.get('at')) || '');
      if (!current(generation)) return;
      left.children[0].after(history);
    }
    finish(generation);
  }

  // ---------------------------------------------------------------- forgetting a message

  const dialog = () => document.getElementById('confirm');

  /** Ask in the <dialog>; true if confirmed. `fill` may add to the body as it learns more. */
  function confirmDialog(title, okLabel, fill) {
    const box = dialog();
    const body = document.getElementById('confirm-body');
    const ok = document.getElementById('confirm-ok');
    const cancel = document.getElementById('confirm-cancel');
    document.getElementById('confirm-title').textContent = title;
    body.replaceChildren();
    ok.textContent = okLabel;
    cancel.textContent = t('cancel');
    const opener = document.activeElement;
    return new Promise((resolve) => {
      let answered = false;
      const end = (answer) => {
        if (answered) return;
        answered = true;
        ok.removeEventListener('click', yes);
        cancel.removeEventListener('click', no);
        box.removeEventListener('close', closed);
        if (box.open) box.close();
        if (opener && opener.isConnected) opener.focus();
        resolve(answer);
      };
      const yes = () => end(true);
      const no = () => end(false);
      const closed = () => end(false);
      ok.addEventListener('click', yes);
      cancel.addEventListener('click', no);
      box.addEventListener('close', closed);
      box.showModal();
      cancel.focus();
      if (fill) fill(body);
    });
  }

  async function forgetMessage(owner, messageId, after) {
    const confirmed = await confirmDialog(t('forget.title', { id: messageId }), t('forget.ok'), async (body) => {
      const waitingText = h('p', { class: 'hint' }, t('loading'));
      body.append(waitingText);
      try {
        const query = new URLSearchParams({ node_id: messageId, label: 'Turn' });
        const hood = await api(ownerPath(owner, 'neighbourhood'), { query });
        const derived = new Set(hood.links.filter((edge) => edge.type === 'FROM' && edge.target === messageId).map((edge) => edge.source));
        const memories = hood.memories.filter((memory) => derived.has(memory.id));
        waitingText.replaceWith(
          h('p', null, memories.length ? t('forget.goes') : t('forget.none')),
          memories.length ? h('ul', { class: 'goes' }, memories.map((memory) => h('li', null, memoryText(memory.text), ' ',
            h('span', { class: 'hint' }, t(`kind.${memory.kind}`))))) : null,
          h('p', { class: 'hint' }, t('forget.note')));
      } catch (error) {
        waitingText.replaceWith(h('p', { class: 'problem' }, error.message));
      }
    });
    if (!confirmed) return;
    say(t('loading'));
    let forgotten;
    try {
      forgotten = await api(ownerPath(owner, 'forget_message'), { method: 'POST', body: { message_id: messageId } });
    } catch (error) {
      refused(state.generation, error, t('error.owner'));
      return;
    }
    const counts = (title, values) => {
      const rows = Object.entries(values || {}).filter(([, value]) => value).map(([name, value]) => h('tr', null,
        h('th', { scope: 'row' }, name), h('td', { class: 'number' }, String(value))));
      return rows.length ? table(title, [t('forget.what'), t('forget.count')], rows, 'counts', [1]) : null;
    };
    const result = h('section', { class: 'card result', id: 'forgotten', 'aria-labelledby': 'forgotten-title' },
      h('h2', { id: 'forgotten-title' }, t('forget.done')),
      h('p', null, forgotten.found ? t('forget.found', { id: messageId }) : t('forget.notFound', { id: messageId })),
      counts(t('forget.deleted'), forgotten.deleted),
      counts(t('forget.rewritten'), forgotten.rewritten),
      h('p', null, h('a', { href: link.owner(owner) }, t('node.timeline'))));
    state.flash = { hash: location.hash, element: result };
    const message = forgotten.found ? t('forget.found', { id: messageId }) : t('forget.notFound', { id: messageId });
    after();
    say(message);
  }

  function takeFlash() {
    const flash = state.flash;
    state.flash = null;
    return flash && flash.hash === location.hash ? flash.element : null;
  }

  // ---------------------------------------------------------------- recall

  function bar(value) {
    const clamped = Math.max(0, Math.min(1, Number(value) || 0));
    return s('svg', { class: 'bar', viewBox: '0 0 100 10', 'aria-hidden': 'true', focusable: 'false', preserveAspectRatio: 'none' },
      s('rect', { x: 0, y: 0, width: 100, height: 10, class: 'bar-back' }),
      s('rect', { x: 0, y: 0, width: (clamped * 100).toFixed(1), height: 10, class: 'bar-fill' }));
  }

  function recalledCard(owner, item, rank, byId) {
    const memory = item.memory;
    const via = item.via && byId.get(item.via);
    const rows = REASONS.map((reason) => h('tr', { 'data-reason': reason },
      h('th', { scope: 'row' }, t(`reason.${reason}`)),
      h('td', { class: 'number' }, number(item.components[reason], 3)),
      h('td', { class: 'number' }, number(item.normalised[reason], 3)),
      h('td', { class: 'bar-cell' }, bar(item.normalised[reason]))));
    return h('li', { class: 'card recalled', 'data-memory': memory.id },
      h('p', { class: 'score' }, h('span', { class: 'rank' }, `[${rank}]`), ' ',
        h('strong', null, t('recall.score', { score: number(item.score, 3) })), ' · ',
        t(`kind.${memory.kind}`), ' · ', t(`tier.${memory.tier}`), ' · ', timeElement(memory.created_at)),
      h('p', null, h('a', { href: link.node(owner, 'Memory', memory.id), dir: 'auto', class: 'memory-link' }, short(memory.text, LISTED_CHARS))),
      item.turns.length ? h('ul', { class: 'turns' }, item.turns.map((turn) => h('li', null,
        h('span', { class: 'hint' }, `${turn.speaker}: `), memoryText(turn.text)))) : null,
      via ? h('p', { class: 'hint' }, t('recall.via', { text: short(via.memory.text, 80) })) : null,
      item.evoked_by ? h('p', { class: 'hint' }, t('recall.evoked', { text: item.evoked_by })) : null,
      h('details', { class: 'reasons', open: rank <= OPEN_REASONS },
        h('summary', null, t('recall.reasons', { rank })),
        h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': t('recall.reasons', { rank }) },
          table(t('recall.reasons', { rank }), ['col.reason', 'col.raw', 'col.normalised', ''].map((id) => (id ? t(id) : h('span', { class: 'visually-hidden' }, t('col.normalised')))), rows, 'reasons', [1, 2]))));
  }

  /**
   * Places for the nodes of a graph in a box, spread by forces (after Fruchterman and Reingold):
   * nodes push each other apart, an edge pulls its ends together, a light pull keeps the loose
   * ones near the middle. Then no two labels (`room`: a node's width and height with its caption)
   * are left overlapping while the box has room. It starts from a ring in the given order and has
   * no chance in it: the same graph is drawn the same each time.
   */
  function forceLayout(ids, edges, box, room) {
    const count = ids.length;
    const index = new Map(ids.map((id, at) => [id, at]));
    const pairs = new Map();
    for (const edge of edges) {
      if (!index.has(edge.source) || !index.has(edge.target) || edge.source === edge.target) continue;
      const pair = [index.get(edge.source), index.get(edge.target)].sort((a, b) => a - b);
      pairs.set(pair.join(' '), pair); // two edges of a pair pull as one
    }
    const cx = (box.left + box.right) / 2;
    const cy = (box.top + box.bottom) / 2;
    const wide = (box.right - box.left) / 2;
    const high = (box.bottom - box.top) / 2;
    const spot = ids.map((id, at) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * at) / Math.max(count, 1);
      return count === 1 ? { x: cx, y: cy } : { x: cx + wide * 0.8 * Math.cos(angle), y: cy + high * 0.8 * Math.sin(angle) };
    });
    const k = Math.sqrt((4 * wide * high) / Math.max(count, 1)) * 0.4;
    const keep = (place) => {
      place.x = Math.max(box.left, Math.min(box.right, place.x));
      place.y = Math.max(box.top, Math.min(box.bottom, place.y));
    };
    let heat = wide / 4;
    for (let step = 0; step < 300 && count > 1; step += 1) {
      const move = spot.map((place) => ({ x: (cx - place.x) * 0.3, y: (cy - place.y) * 0.3 * (wide / high) }));
      for (let a = 0; a < count; a += 1) {
        for (let b = a + 1; b < count; b += 1) {
          const dx = spot[a].x - spot[b].x;
          const dy = spot[a].y - spot[b].y;
          const push = (k * k) / Math.max(dx * dx + dy * dy, 1);
          move[a].x += dx * push;
          move[a].y += dy * push;
          move[b].x -= dx * push;
          move[b].y -= dy * push;
        }
      }
      for (const [a, b] of pairs.values()) {
        const dx = spot[a].x - spot[b].x;
        const dy = spot[a].y - spot[b].y;
        const pull = Math.hypot(dx, dy) / k / 4;
        move[a].x -= dx * pull;
        move[a].y -= dy * pull;
        move[b].x += dx * pull;
        move[b].y += dy * pull;
      }
      spot.forEach((place, at) => {
        const length = Math.hypot(move[at].x, move[at].y) || 1;
        const moved = Math.min(length, heat);
        place.x += (move[at].x / length) * moved;
        place.y += (move[at].y / length) * moved;
        keep(place);
      });
      heat = Math.max(heat * 0.98, 1);
    }
    for (let round = 0; round < 200; round += 1) { // labels apart
      let overlapping = false;
      for (let a = 0; a < count; a += 1) {
        for (let b = a + 1; b < count; b += 1) {
          const dx = spot[b].x - spot[a].x;
          const dy = spot[b].y - spot[a].y;
          const across = room.width - Math.abs(dx);
          const down = room.height - Math.abs(dy);
          if (across <= 0 || down <= 0) continue;
          overlapping = true;
          if (across / room.width < down / room.height) {
            const shift = (across / 2 + 0.5) * (dx < 0 ? -1 : 1);
            spot[a].x -= shift;
            spot[b].x += shift;
          } else {
            const shift = (down / 2 + 0.5) * (dy < 0 ? -1 : 1);
            spot[a].y -= shift;
            spot[b].y += shift;
          }
          keep(spot[a]);
          keep(spot[b]);
        }
      }
      if (!overlapping) break;
    }
    return new Map(ids.map((id, at) => [id, spot[at]]));
  }

  /** The related-context subgraph of a recall: a node a memory, by its rank, an arrow an edge. */
  function recallGraph(owner, answer) {
    const ids = answer.memories.map((item) => item.memory.id);
    const byId = new Map(answer.memories.map((item, index) => [item.memory.id, { item, rank: index + 1 }]));
    const best = Math.max(...answer.memories.map((item) => Number(item.score) || 0), 1e-9);
    const width = 1000;
    const height = Math.round(Math.min(700, Math.max(280, 200 + ids.length * 18)));
    const place = forceLayout(ids, answer.links, { left: 70, right: width - 70, top: 30, bottom: height - 40 }, { width: 150, height: 80 });
    return drawGraph({
      name: 'recall-graph', className: 'graph recall-graph', width, height, place, edges: answer.links, links: true, merged: true,
      label: t('recall.graphLabel', { count: ids.length, edges: answer.links.length }),
      describe: (id) => {
        const { item, rank } = byId.get(id);
        const share = Math.max(0, Math.min(1, (Number(item.score) || 0) / best));
        const caption = short(item.memory.text, 20); // the link's name is what it shows
        return {
          kind: 'Memory', r: 13 + 9 * share, letter: `[${rank}]`,
          title: t('recall.node', { rank, text: short(item.memory.text, 120), score: number(item.score, 3) }),
          caption, name: `[${rank}] ${caption}`, className: `score-${Math.min(3, Math.floor(share * 4))}`,
          href: link.node(owner, 'Memory', id),
        };
      },
    });
  }

  /** An answer in the page's parts: its summary beside the form, the memories, the rest below. */
  function showRecall(owner, parts, answer, peek) {
    const area = parts.rest;
    const byId = new Map(answer.memories.map((item) => [item.memory.id, item]));
    const rankOf = new Map(answer.memories.map((item, index) => [item.memory.id, index + 1]));
    const impressionText = new Map((answer.impressions || []).map((item) => [item.id, item.text]));
    const summary = definitions([
      [t('recall.confidence'), number(answer.confidence, 2)],
      [t('recall.motivation'), number(answer.motivation, 1)],
      [t('recall.searches'), h('ul', { class: 'plain' }, answer.attempts.map((attempt) => h('li', null, t('recall.search', {
        motivation: number(attempt.motivation, 1), depth: attempt.depth, best: number(attempt.best_relevance, 3),
      }))))],
      answer.max_tokens ? [t('recall.tokens'), t('recall.tokensValue', { tokens: answer.tokens, max: answer.max_tokens })] : null,
    ]);
    parts.summary.append(h('h2', { id: 'answer-title' }, t('recall.result')), summary);
    if (answer.nothing_relevant) parts.summary.append(h('p', { class: 'problem' }, t('recall.nothing')));
    parts.memories.append(h('h2', { id: 'memories-title' }, t('recall.memories', { count: answer.memories.length })),
      h('ol', { class: 'recalled-list', id: 'recalled' }, answer.memories.map((item, index) => recalledCard(owner, {
        ...item, evoked_by: item.evoked_by ? impressionText.get(item.evoked_by) || item.evoked_by : null,
      }, index + 1, byId))));
    if (answer.memories.length) {
      area.append(h('section', { id: 'recall-graph-box', 'aria-labelledby': 'recall-graph-title' },
        h('h2', { id: 'recall-graph-title' }, t('recall.graph')),
        h('figure', { class: 'graph-box' },
          h('div', { class: 'graph-scroll', tabindex: '0', role: 'region', 'aria-label': t('recall.graphScroll') }, recallGraph(owner, answer)),
          h('figcaption', { class: 'hint' }, t('recall.graphCaption')))));
    }
    area.append(h('h2', null, t('recall.edges')), answer.links.length
      ? h('ul', { class: 'edges-list' }, answer.links.map((edge) => h('li', null,
        `[${rankOf.get(edge.source) || '?'}] `, h('code', null, edge.type), ` [${rankOf.get(edge.target) || '?'}] `,
        h('span', { class: 'hint', dir: 'auto' }, `${short((byId.get(edge.source) || { memory: { text: edge.source } }).memory.text, 50)} → ${short((byId.get(edge.target) || { memory: { text: edge.target } }).memory.text, 50)}`))))
      : h('p', { class: 'hint' }, t('recall.noEdges')));
    if (answer.impressions && answer.impressions.length) {
      area.append(h('h2', null, t('recall.impressions')), h('ul', null, answer.impressions.map((item) => h('li', null,
        h('a', { href: link.node(owner, 'Impression', item.id), dir: 'auto' }, item.text), ' ',
        h('span', { class: 'hint' }, t('recall.impression', { text: '', belief: number(item.belief, 2), implied: number(item.implied, 2) }).trim())))));
    }
    if (!peek && answer.woken && answer.woken.length) {
      area.append(h('h2', null, t('recall.woken')), scroller(t('recall.wokenCaption'), table(t('recall.wokenCaption'),
        ['col.id', 'col.label', 'col.used', 'col.gain', 'col.tier'].map(t),
        answer.woken.map((item) => h('tr', null,
          h('td', null, item.label === 'Memory' || item.label === 'Event' || item.label === 'Impression' || item.label === 'Turn'
            ? h('a', { href: link.node(owner, item.label, item.id) }, h('code', null, short(item.id, 24))) : item.id),
          h('td', null, t(`label.${item.label}`)),
          h('td', null, item.used ? t('yes') : t('no')),
          h('td', { class: 'number' }, number(item.short_term_gain, 2)),
          h('td', null, t(`tier.${item.tier}`)))))));
    }
    area.append(h('h2', { id: 'context-title' }, t('recall.context')),
      h('pre', { class: 'context', id: 'context', dir: 'auto', tabindex: '0', 'aria-labelledby': 'context-title' }, answer.rendered));
  }

  function renderRecall(owner) {
    const generation = begin('recall', `${t('recall.title')}: ${owner}`);
    const last = state.recall && state.recall.owner === owner ? state.recall : null;
    const query = h('textarea', { id: 'query', name: 'query', rows: '2', required: true, dir: 'auto' });
    query.value = last ? last.query : '';
    const peek = h('input', { id: 'peek', name: 'peek', type: 'checkbox', checked: last ? last.peek : true });
    const budget = h('input', { id: 'max-tokens', name: 'max_tokens', type: 'number', min: '1', step: '1', value: last ? String(last.maxTokens) : '1000' });
    const when = h('input', { id: 'recall-at', name: 'at', type: 'datetime-local', value: last ? localInput(last.at) : '' });
    const parts = {
      summary: h('div', { class: 'answer-summary' }),
      memories: h('div', { class: 'answer-memories' }),
      rest: h('div', { class: 'answer', id: 'answer' }),
    };
    const clear = () => Object.values(parts).forEach((part) => part.replaceChildren());
    const form = h('form', { class: 'card', id: 'recall-form', novalidate: true },
      h('div', { class: 'field wide' }, h('label', { for: 'query' }, t('recall.query')), query),
      h('div', { class: 'check' }, peek, h('label', { for: 'peek' }, t('recall.peek'))),
      h('div', { class: 'row' },
        h('div', { class: 'field' }, h('label', { for: 'max-tokens' }, t('recall.maxTokens')), budget),
        h('div', { class: 'field' }, h('label', { for: 'recall-at' }, t('recall.at')), when)),
      h('button', { type: 'submit' }, t('recall.submit')));
    main().append(
      h('p', { class: 'links' }, h('a', { href: link.owner(owner) }, t('node.timeline'))),
      h('p', { class: 'lead' }, t('recall.intro')),
      h('div', { class: 'columns recall-columns' }, h('div', null, form, parts.summary), parts.memories),
      parts.rest);
    if (last && last.answer) showRecall(owner, parts, last.answer, last.peek);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const text = query.value.trim();
      if (!text) {
        query.focus();
        return;
      }
      const maxTokens = Number.parseInt(budget.value, 10);
      const body = { query: text, peek: peek.checked };
      if (maxTokens > 0) body.max_tokens = maxTokens;
      const at = isoOfInput(when.value);
      if (at) body.at = at;
      main().setAttribute('aria-busy', 'true');
      say(t('loading'));
      clear();
      let answer;
      try {
        answer = await api(ownerPath(owner, 'recall'), { method: 'POST', body });
      } catch (error) {
        refused(generation, error, t('error.owner'));
        return;
      }
      if (!current(generation)) return;
      state.recall = { owner, query: text, peek: peek.checked, maxTokens: maxTokens > 0 ? maxTokens : 1000, at, answer };
      showRecall(owner, parts, answer, peek.checked);
      finish(generation, t('recall.ran', { count: answer.memories.length }) + (peek.checked ? ' ' + t('recall.peeked') : ''));
    });
    finish(generation, ' ');
  }

  // ---------------------------------------------------------------- keys and requests (admin)

  function scopeOf(key) {
    if (key.admin) return t('scope.admin');
    const parts = (key.owners || []).map((owner) => t('scope.owner', { owner }));
    if (key.owner_prefix) parts.push(t('scope.prefix', { prefix: key.owner_prefix }));
    return parts.join(', ') || t('none');
  }

  async function renderKeys() {
    const generation = begin('keys', t('keys.title'));
    main().append(h('p', { class: 'lead' }, t('keys.intro')));
    let keys;
    try {
      keys = await api('/v1/keys');
    } catch (error) {
      refused(generation, error, t('error.page'));
      return;
    }
    if (!current(generation)) return;
    state.admin = true;
    applyFrame();
    const made = state.created;
    state.created = null;
    if (made) {
      const secret = h('input', { id: 'new-secret', type: 'text', readOnly: true, value: made.secret, class: 'secret', spellcheck: 'false' });
      const copied = h('span', { class: 'hint', role: 'status' });
      main().append(h('section', { class: 'card result', id: 'new-key', 'aria-labelledby': 'new-key-title' },
        h('h2', { id: 'new-key-title' }, t('keys.new')),
        h('p', null, t('keys.made', { id: made.id })),
        h('div', { class: 'field wide' }, h('label', { for: 'new-secret' }, t('keys.secret')), secret),
        h('button', {
          type: 'button',
          onclick: async () => {
            secret.select();
            try {
              await navigator.clipboard.writeText(made.secret);
              copied.textContent = t('keys.copied');
            } catch (error) {
              copied.textContent = t('keys.copyFailed');
            }
          },
        }, t('keys.copy')), ' ', copied));
    }
    const owners = h('input', { id: 'key-owners', name: 'owners', type: 'text', spellcheck: 'false' });
    const prefix = h('input', { id: 'key-prefix', name: 'owner_prefix', type: 'text', spellcheck: 'false' });
    const admin = h('input', { id: 'key-admin', name: 'admin', type: 'checkbox' });
    const form = h('form', { class: 'card', id: 'key-create', 'aria-labelledby': 'create-title', novalidate: true },
      h('h2', { id: 'create-title' }, t('keys.create')),
      h('div', { class: 'field wide' }, h('label', { for: 'key-owners' }, t('keys.owners')), owners),
      h('div', { class: 'field wide' }, h('label', { for: 'key-prefix' }, t('keys.prefix')), prefix),
      h('div', { class: 'check' }, admin, h('label', { for: 'key-admin' }, t('keys.admin'))),
      h('button', { type: 'submit' }, t('keys.submit')));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const body = {
        owners: owners.value.split(/[\s,]+/).filter(Boolean),
        admin: admin.checked,
      };
      if (prefix.value.trim()) body.owner_prefix = prefix.value.trim();
      let created;
      try {
        created = await api('/v1/keys', { method: 'POST', body });
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          refused(generation, error);
          return;
        }
        say(error instanceof ApiError ? t('error.generic', { status: error.status, message: error.message }) : error.message, 'error');
        return;
      }
      state.created = { id: created.key.id, secret: created.secret };
      route();
    });
    const rows = keys.map((key) => h('tr', { 'data-key': key.id },
      h('th', { scope: 'row' }, h('code', null, key.id)),
      h('td', { dir: 'auto' }, scopeOf(key)),
      h('td', { class: 'nowrap' }, timeElement(key.created_at)),
      h('td', { class: 'nowrap' }, key.revoked_at ? timeElement(key.revoked_at) : t('none')),
      h('td', null, key.revoked_at ? t('none') : h('button', {
        type: 'button', class: 'danger', 'aria-label': t('keys.revokeNamed', { id: key.id }),
        onclick: () => revokeKey(key.id),
      }, t('keys.revoke')))));
    main().append(form, h('h2', null, t('keys.list')), keys.length
      ? scroller(t('keys.caption'), table(t('keys.caption'), ['col.key', 'col.scope', 'col.created', 'col.revoked', 'col.action'].map(t), rows, 'keys'))
      : h('p', null, t('keys.none')));
    finish(generation);
    if (made) document.getElementById('new-secret').focus();
  }

  async function revokeKey(id) {
    const confirmed = await confirmDialog(t('keys.revokeTitle', { id }), t('keys.revoke'), (body) => {
      body.append(h('p', null, t('keys.revokeText')));
    });
    if (!confirmed) return;
    try {
      await api(`/v1/keys/${segment(id)}/revoke`, { method: 'POST' });
    } catch (error) {
      refused(state.generation, error, t('error.page'));
      return;
    }
    route();
    say(t('keys.revoked', { id }));
  }

  async function renderRequests() {
    const generation = begin('requests', t('requests.title'));
    main().append(h('p', { class: 'lead' }, t('requests.intro', { count: REQUESTS_SHOWN })),
      h('p', null, h('button', { type: 'button', class: 'quiet', onclick: () => route() }, t('requests.refresh'))));
    let requests;
    try {
      requests = await api('/v1/requests', { query: new URLSearchParams({ limit: String(REQUESTS_SHOWN) }) });
    } catch (error) {
      refused(generation, error, t('error.page'));
      return;
    }
    if (!current(generation)) return;
    const rows = requests.map((item) => h('tr', null,
      h('td', { class: 'nowrap' }, timeElement(item.at, true)),
      h('td', null, item.method),
      h('td', { class: 'text' }, h('code', { dir: 'auto' }, item.path)),
      h('td', { dir: 'auto' }, item.owner || t('none')),
      h('td', { class: `number status-${String(item.status).slice(0, 1)}xx` }, String(item.status)),
      h('td', { class: 'number' }, number(item.milliseconds, 1)),
      h('td', null, h('code', null, item.request_id))));
    main().append(requests.length
      ? scroller(t('requests.caption'), table(t('requests.caption'),
        ['col.time', 'col.method', 'col.path', 'col.owner', 'col.status', 'col.ms', 'col.request'].map(t), rows, 'requests', [4, 5]))
      : h('p', null, t('requests.none')));
    finish(generation);
  }

  function renderNotFound() {
    const generation = begin('notfound', t('notfound.title'));
    main().append(h('p', null, t('notfound.text')), h('p', null, h('a', { href: link.owners() }, t('nav.owners'))));
    finish(generation);
  }

  // ---------------------------------------------------------------- the router

  function route() {
    applyFrame();
    if (dialog().open) dialog().close();
    if (!signedIn()) {
      renderSignIn();
      return;
    }
    const { parts, params } = parseHash();
    let rendering;
    if (parts.length === 0 || (parts[0] === 'owners' && parts.length === 1)) rendering = renderOwners();
    else if (parts[0] === 'owner' && parts.length === 2) rendering = renderOwner(parts[1], params);
    else if (parts[0] === 'owner' && parts.length === 3 && parts[2] === 'recall') rendering = renderRecall(parts[1]);
    else if (parts[0] === 'owner' && parts.length === 3 && parts[2] === 'events') rendering = renderEvents(parts[1], params);
    else if (parts[0] === 'owner' && parts.length === 3 && parts[2] === 'impressions') rendering = renderImpressions(parts[1], params);
    else if (parts[0] === 'owner' && parts.length === 4 && parts[2] === 'memory') rendering = renderNode(parts[1], 'Memory', parts[3], params);
    else if (parts[0] === 'owner' && parts.length === 5 && parts[2] === 'node') rendering = renderNode(parts[1], parts[3], parts[4]);
    else if (parts[0] === 'keys' && parts.length === 1) rendering = renderKeys();
    else if (parts[0] === 'requests' && parts.length === 1) rendering = renderRequests();
    else rendering = renderNotFound();
    Promise.resolve(rendering).then(() => {
      if (signedIn()) focusHeadingOnce();
    }, (error) => refused(state.generation, error));
    learnAdmin().catch((error) => refused(state.generation, error));
  }

  let focusWanted = false;

  function focusHeadingOnce() {
    if (!focusWanted) return;
    focusWanted = false;
    focusHeading();
  }

  function start() {
    applyLanguage();
    document.getElementById('lang').addEventListener('change', (event) => {
      lang = DICT[event.target.value] ? event.target.value : 'en';
      localStorage.setItem(LANG_ITEM, lang);
      applyLanguage();
      route();
    });
    document.getElementById('signout').addEventListener('click', () => signOut());
    document.getElementById('nav').addEventListener('click', (event) => {
      const anchor = event.target.closest('a');
      if (anchor && anchor.getAttribute('href') === location.hash) {
        event.preventDefault(); // the page it is on: read it again
        route();
      }
    });
    document.getElementById('skip').addEventListener('click', (event) => {
      event.preventDefault();
      main().focus();
    });
    window.addEventListener('hashchange', () => {
      focusWanted = true;
      route();
    });
    if (!location.hash && signedIn()) location.replace(link.owners());
    route();
  }

  start();
})();
