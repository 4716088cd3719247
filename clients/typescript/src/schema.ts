/**
 * The types of graphmem serve's /openapi.json, made by openapi-typescript with
 * defaultNonNullable false (a field with a default is optional, as a request may leave it out).
 * Do not edit: `npm run schema` writes it again from a live server.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Alive
         * @description The process is up.
         */
        get: operations["alive_healthz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Ready
         * @description The store answers (503 otherwise).
         */
        get: operations["ready_readyz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Owners
         * @description The owners with a memory that this key may touch.
         */
        get: operations["list_owners_v1_owners_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/observe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Observe
         * @description GraphMem.observe: store a message and derive its memory.
         */
        post: operations["observe_v1_owners__owner__observe_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/observe_many": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Observe Many
         * @description GraphMem.observe_many: store messages in one transaction, then derive them.
         *
         *     413 when the messages are more than the server takes in one request (serve --max-messages).
         */
        post: operations["observe_many_v1_owners__owner__observe_many_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recall
         * @description GraphMem.recall: the related-context subgraph, with its text for a prompt (`rendered`).
         */
        post: operations["recall_v1_owners__owner__recall_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/consolidate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Consolidate
         * @description GraphMem.consolidate: the sleep job for this owner.
         */
        post: operations["consolidate_v1_owners__owner__consolidate_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/complete_pending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete Pending
         * @description GraphMem.complete_pending: derive pending turns' memories; how many.
         */
        post: operations["complete_pending_v1_owners__owner__complete_pending_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/learn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Learn
         * @description GraphMem.learn: teach that a cause leads to an effect.
         */
        post: operations["learn_v1_owners__owner__learn_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/retier": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retier
         * @description GraphMem.retier: sink faded memories to their tiers; how many moved.
         */
        post: operations["retier_v1_owners__owner__retier_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/forget_message": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forget Message
         * @description GraphMem.forget_message: forget a message and what derives only from it.
         *
         *     `found` is false when the owner has no such message (nothing changes), as on every face.
         */
        post: operations["forget_message_v1_owners__owner__forget_message_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Turns
         * @description GraphMem.turns: the turns of one session in the order received.
         */
        get: operations["turns_v1_owners__owner__turns_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Timeline
         * @description GraphMem.timeline: a page of the owner's memories, newest first; `next` reads on.
         */
        get: operations["timeline_v1_owners__owner__timeline_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/neighbourhood": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Neighbourhood
         * @description GraphMem.neighbourhood: a node, every node one edge away and those edges.
         */
        get: operations["neighbourhood_v1_owners__owner__neighbourhood_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/forget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forget
         * @description GraphMem.forget: delete everything of this owner.
         */
        post: operations["forget_v1_owners__owner__forget_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health
         * @description GraphMem.health: what needs attention in this owner's memory.
         */
        get: operations["health_v1_owners__owner__health_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Profile
         * @description GraphMem.profile: who the user is now, as the memory believes (no model call).
         */
        get: operations["profile_v1_owners__owner__profile_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Events
         * @description GraphMem.events: every event of the owner, open or closed, latest update first.
         */
        get: operations["events_v1_owners__owner__events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/impressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Impressions
         * @description GraphMem.impressions: every impression of the owner, its belief now, strongest first.
         */
        get: operations["impressions_v1_owners__owner__impressions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/statistics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Statistics
         * @description GraphMem.statistics: the owner's nodes and edges counted.
         */
        get: operations["statistics_v1_owners__owner__statistics_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export
         * @description GraphMem.export: the export file's lines, a header then one JSON record a line.
         *
         *     `graphmem import` reads it as it is; its records are what `load` takes.
         */
        get: operations["export_v1_owners__owner__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/owners/{owner}/load": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Load
         * @description GraphMem.load: add exported records to the owner's memory.
         */
        post: operations["load_v1_owners__owner__load_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Keys
         * @description Every key, without its secret or its hash (admin only).
         */
        get: operations["list_keys_v1_keys_get"];
        put?: never;
        /**
         * Create Key
         * @description A new key (admin only); its secret is in this answer and nowhere else.
         */
        post: operations["create_key_v1_keys_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke Key
         * @description Revoke a key (admin only; 404 if there is no such key).
         */
        post: operations["revoke_key_v1_keys__key_id__revoke_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Request Log
         * @description The latest requests this server answered, newest first (admin only): no body, no key.
         *
         *     It keeps the latest thousand since it started: route, owner, status, milliseconds, id.
         */
        get: operations["request_log_v1_requests_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * Attempt
         * @description One search of a recall: its motivation, how deep it looked, the best relevance found.
         */
        Attempt: {
            /** Motivation */
            motivation: number;
            depth: components["schemas"]["Tier"];
            /** Best Relevance */
            best_relevance: number | null;
        };
        /**
         * Attention
         * @description Attention as stored: a long-term and a short-term part, each with the time it was set.
         */
        Attention: {
            /** Long Term */
            long_term: number;
            /**
             * Long Term At
             * Format: date-time
             */
            long_term_at: string;
            /** Short Term */
            short_term: number;
            /**
             * Short Term At
             * Format: date-time
             */
            short_term_at: string;
        };
        /**
         * Components
         * @description The components of a score.
         *
         *     Association is spread from relevance as the score counts it, and time match, speaker and
         *     asker match and statement are 0-1 already, so their raw and normalised values are equal.
         */
        Components: {
            /** Relevance */
            relevance: number;
            /** Lexical */
            lexical: number;
            /** Time Match */
            time_match: number;
            /** Speaker Match */
            speaker_match: number;
            /** Asker Match */
            asker_match: number;
            /** Statement */
            statement: number;
            /** Importance */
            importance: number;
            /** Attention */
            attention: number;
            /** Recency */
            recency: number;
            /** Association */
            association: number;
        };
        /**
         * EarlierValue
         * @description A value of a slot that a newer one replaced.
         */
        EarlierValue: {
            /** Id */
            id: string;
            /** Text */
            text: string;
            /**
             * Since
             * Format: date-time
             */
            since: string;
        };
        /**
         * ErrorAnswer
         * @description The body of every error response.
         */
        ErrorAnswer: {
            error: components["schemas"]["ErrorBody"];
        };
        /**
         * ErrorBody
         * @description What went wrong.
         */
        ErrorBody: {
            /** Code */
            code: string;
            /** Message */
            message: string;
            /** Field */
            field?: string | null;
            /** Request Id */
            request_id: string;
        };
        /**
         * Event
         * @description A major event of the owner's life; its text is the storyline summary.
         */
        Event: {
            /** Id */
            id: string;
            /** Owner */
            owner: string;
            /** Text */
            text: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Category */
            category: string;
            /** Title */
            title: string;
            /**
             * First At
             * Format: date-time
             */
            first_at: string;
            /**
             * Last At
             * Format: date-time
             */
            last_at: string;
            /** Timeliness Days */
            timeliness_days: number;
            /** Importance */
            importance: number;
            attention: components["schemas"]["Attention"];
            tier: components["schemas"]["Tier"];
            /** Embedding */
            embedding: number[];
        };
        /**
         * EventEntry
         * @description An event of the owner (its embedding left out), its size, and whether it is still open.
         */
        EventEntry: {
            event: components["schemas"]["Event"];
            /** Memories */
            memories: number;
            /**
             * Open Until
             * Format: date-time
             */
            open_until: string;
            /** Open */
            open: boolean;
            /** Attention */
            attention: number;
        };
        /**
         * EvokedImpression
         * @description An impression the query implies, which the owner holds, and the memories it evoked.
         */
        EvokedImpression: {
            /** Id */
            id: string;
            /** Text */
            text: string;
            /** Belief */
            belief: number;
            /** Implied */
            implied: number;
            /** Memories */
            memories: string[];
        };
        /**
         * Forgotten
         * @description What forgetting a message did: nodes deleted per label, and what was derived again.
         *
         *     `rewritten` counts summaries written again, events told again, impressions accumulated
         *     again, conjectures made or re-believed, and facts whose validity changed. `found` is false
         *     when the owner had no such message (then nothing changed).
         */
        Forgotten: {
            /** Owner */
            owner: string;
            /** Message Id */
            message_id: string;
            /** Found */
            found: boolean;
            /** Deleted */
            deleted: {
                [key: string]: number;
            };
            /** Rewritten */
            rewritten: {
                [key: string]: number;
            };
        };
        /**
         * GraphCounts
         * @description How many nodes per label and edges per type one owner has, and its memories' spread.
         *
         *     `tiers` counts memories per tier (every tier present, zeros included); `beliefs` counts
         *     memories per tenth of belief ("0.0" for [0, 0.1) up to "0.9" for [0.9, 1]; only tenths
         *     that hold a memory) and "unset" for memories without a belief.
         */
        GraphCounts: {
            /** Nodes */
            nodes: {
                [key: string]: number;
            };
            /** Links */
            links: {
                [key: string]: number;
            };
            /** Tiers */
            tiers: {
                [key: string]: number;
            };
            /** Beliefs */
            beliefs: {
                [key: string]: number;
            };
            /**
             * Tombstones
             * @default 0
             */
            tombstones?: number;
        };
        /**
         * Health
         * @description One owner's memory at a glance: what it holds, the work left, and what may need a look.
         *
         *     `counts` and `checks` come from the store; browser/queries.cypher has a query for each row
         *     of the report that shows its nodes (docs/forgetting-and-health.md).
         */
        Health: {
            /** Owner */
            owner: string;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Embedder */
            embedder: string;
            /** Cognition */
            cognition: string;
            counts: components["schemas"]["GraphCounts"];
            checks: components["schemas"]["HealthCounts"];
            /** Oldest Conjecture Days */
            oldest_conjecture_days: number | null;
            /** Newest Conjecture Days */
            newest_conjecture_days: number | null;
        };
        /**
         * HealthCounts
         * @description What an owner's health report counts besides GraphCounts (see GraphMem.health).
         */
        HealthCounts: {
            /** Kinds */
            kinds: {
                [key: string]: number;
            };
            /** Pending Turns */
            pending_turns: number;
            /** Awaiting Summary */
            awaiting_summary: number;
            /** Awaiting Consolidation */
            awaiting_consolidation: number;
            /** Open Contradictions */
            open_contradictions: number;
            /** Superseded */
            superseded: number;
            /** Never Used */
            never_used: number;
            /** Isolated */
            isolated: number;
            /** First Conjecture At */
            first_conjecture_at: string | null;
            /** Last Conjecture At */
            last_conjecture_at: string | null;
        };
        /**
         * Impression
         * @description An inferred, possibly weak statement whose belief fades with its half-life.
         */
        Impression: {
            /** Id */
            id: string;
            /** Owner */
            owner: string;
            /** Text */
            text: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Belief */
            belief: number;
            /**
             * Belief At
             * Format: date-time
             */
            belief_at: string;
            /** Half Life Days */
            half_life_days: number;
            /** Embedding */
            embedding: number[];
            /** Conjectured At */
            conjectured_at?: string | null;
        };
        /**
         * ImpressionEntry
         * @description An impression of the owner (its embedding left out), its belief now, what it rests on.
         */
        ImpressionEntry: {
            impression: components["schemas"]["Impression"];
            /** Belief */
            belief: number;
            /** Cues */
            cues: number;
            /** Conjectures */
            conjectures: number;
        };
        /**
         * KeyInfo
         * @description What a key may touch and when it was made or revoked: all of it but its secret.
         */
        KeyInfo: {
            /**
             * Id
             * @description names the key; not secret
             */
            id: string;
            /**
             * Owners
             * @description owners the key may touch
             * @default []
             */
            owners?: string[];
            /**
             * Owner Prefix
             * @description it may touch owners starting with this
             */
            owner_prefix?: string | null;
            /**
             * Admin
             * @description it may touch every owner and manage keys
             * @default false
             */
            admin?: boolean;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Revoked At */
            revoked_at?: string | null;
        };
        /**
         * KeyRequest
         * @description What a new key may touch.
         */
        KeyRequest: {
            /**
             * Owners
             * @description owners the key may touch
             * @default []
             */
            owners?: string[];
            /**
             * Owner Prefix
             * @description it may touch owners starting with this (itself an owner's name)
             */
            owner_prefix?: string | null;
            /**
             * Admin
             * @description it may touch every owner and manage keys
             * @default false
             */
            admin?: boolean;
        };
        /**
         * Lesson
         * @description Knowledge to teach: a cause, its effect, how surely one brings the other.
         */
        Lesson: {
            /**
             * Cause
             * @description what leads to the effect
             */
            cause: string;
            /**
             * Effect
             * @description what the cause leads to
             */
            effect: string;
            /**
             * Sufficiency
             * @description how surely it does, from 0 to 1
             */
            sufficiency: number;
            /**
             * At
             * @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now
             */
            at?: string | null;
        };
        /**
         * Limit
         * @description How many at most.
         */
        Limit: {
            /**
             * Limit
             * @description the most to do in this call
             * @default 1000
             */
            limit?: number;
        };
        /**
         * Link
         * @description A directed edge; RELATED carries a weight, CAUSES a sufficiency, the others nothing.
         *
         *     An impression's INFERRED_FROM edge to a cue may carry the belief that cue gave (graphs
         *     stored before cues kept theirs have none): forgetting a cue subtracts it.
         */
        Link: {
            type: components["schemas"]["LinkType"];
            /** Source */
            source: string;
            /** Target */
            target: string;
            /** Weight */
            weight?: number | null;
            /** Sufficiency */
            sufficiency?: number | null;
            /** Belief */
            belief?: number | null;
        };
        /**
         * LinkType
         * @description The relationship types of the graph, spelled as Neo4j shows them.
         * @enum {string}
         */
        LinkType: "FROM" | "PART_OF" | "RELATED" | "CAUSES" | "SUPPORTS" | "CONTRADICTS" | "INFERRED_FROM" | "MERGED_INTO" | "UPDATES" | "NEXT";
        /**
         * Memory
         * @description A statement the agent keeps, with its importance, attention, tier, belief and embedding.
         *
         *     Every stored memory has its embedding but dialogue summaries and facts, which no search
         *     finds (they restate their turns' memories); memories found by a search come without it
         *     (None): callers never need it, and 384 or more floats a memory would dominate a recall's
         *     cost.
         *     `awaiting_consolidation` marks a new fact until the sleep job has weighed it against older
         *     ones. `offline` marks an observation that the offline cognition perceived because the model
         *     could not answer about its turn, even alone, twice (graphmem.ingestion).
         */
        Memory: {
            /** Id */
            id: string;
            /** Owner */
            owner: string;
            /** Text */
            text: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            kind: components["schemas"]["MemoryKind"];
            /** Importance */
            importance: number;
            attention: components["schemas"]["Attention"];
            tier: components["schemas"]["Tier"];
            /** Belief */
            belief?: number | null;
            /** Embedding */
            embedding: number[] | null;
            /**
             * Accessed At
             * Format: date-time
             */
            accessed_at: string;
            /**
             * Awaiting Consolidation
             * @default false
             */
            awaiting_consolidation?: boolean;
            /** Valid From */
            valid_from?: string | null;
            /** Valid Until */
            valid_until?: string | null;
            /**
             * Offline
             * @default false
             */
            offline?: boolean;
            /** Slot */
            slot?: string | null;
        };
        /**
         * MemoryKind
         * @description What a Memory states.
         *
         *     An observation is what a turn said; a fact, a lasting fact about the user that the sleep
         *     job read in a dialogue, with its slot (no search finds one: recall finds the observation it
         *     was read in, `profile` shows the facts); knowledge is taught causal knowledge; a summary
         *     restates a stretch of dialogue (no search finds one either); a conjecture is an impression
         *     grown strong.
         * @enum {string}
         */
        MemoryKind: "observation" | "fact" | "knowledge" | "summary" | "conjecture";
        /**
         * MessageRef
         * @description A message by its id.
         */
        MessageRef: {
            /**
             * Message Id
             * @description the id the message was observed with
             */
            message_id: string;
        };
        /**
         * NewKey
         * @description A key just made: its record and its secret, which is shown this once.
         */
        NewKey: {
            key: components["schemas"]["KeyInfo"];
            /**
             * Secret
             * @description send as Authorization: Bearer <secret>; not kept
             */
            secret: string;
        };
        /**
         * NodeNeighbourhood
         * @description A node and every node one edge away from it, by label, with those edges.
         *
         *     Memories come without their embeddings. Empty (no nodes) when the owner has no such node.
         */
        NodeNeighbourhood: {
            /** Owner */
            owner: string;
            /** Node Id */
            node_id: string;
            /** Label */
            label: string;
            /** Turns */
            turns: components["schemas"]["Turn"][];
            /** Memories */
            memories: components["schemas"]["Memory"][];
            /** Events */
            events: components["schemas"]["Event"][];
            /** Impressions */
            impressions: components["schemas"]["Impression"][];
            /** Links */
            links: components["schemas"]["Link"][];
        };
        /**
         * Observation
         * @description What `observe` stored: the turn, and the memories this call derived from it.
         *
         *     `pending` is true when the model failed: the turn is stored and its memories will be
         *     derived by a later call or by `complete_pending`. `memories` is empty then, and also when
         *     the message was `already_stored` or `forgotten` earlier. `conjectures` are the impressions
         *     that this turn tipped over the threshold: new conjecture memories for the agent to consider.
         */
        Observation: {
            turn: components["schemas"]["Turn"];
            /** Memories */
            memories: components["schemas"]["Memory"][];
            /** Pending */
            pending: boolean;
            /**
             * Conjectures
             * @default []
             */
            conjectures?: components["schemas"]["Memory"][];
            /**
             * Forgotten
             * @default false
             */
            forgotten?: boolean;
            /**
             * Already Stored
             * @default false
             */
            already_stored?: boolean;
        };
        /**
         * ObserveMany
         * @description Messages to observe in order, in one transaction.
         */
        ObserveMany: {
            /**
             * Messages
             * @description the messages, oldest first
             */
            messages: components["schemas"]["ObservedMessage"][];
            /**
             * Readmit Forgotten
             * @description store messages forgotten earlier again (their tombstones go)
             * @default false
             */
            readmit_forgotten?: boolean;
        };
        /**
         * ObserveOne
         * @description A message to observe, and whether a message forgotten earlier may come back.
         */
        ObserveOne: {
            /**
             * Text
             * @description what was said or perceived
             */
            text: string;
            /**
             * Message Id
             * @description the message's id in your system: one id stores once
             */
            message_id?: string | null;
            /**
             * At
             * @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now
             */
            at?: string | null;
            /**
             * Speaker
             * @description who said it, e.g. user or assistant
             * @default user
             */
            speaker?: string;
            /**
             * Session
             * @description the conversation session it belongs to ('' for none)
             * @default
             */
            session?: string;
            /**
             * Readmit Forgotten
             * @description store a message forgotten earlier again (its tombstone goes)
             * @default false
             */
            readmit_forgotten?: boolean;
        };
        /**
         * ObservedMessage
         * @description One message to observe.
         */
        ObservedMessage: {
            /**
             * Text
             * @description what was said or perceived
             */
            text: string;
            /**
             * Message Id
             * @description the message's id in your system: one id stores once
             */
            message_id?: string | null;
            /**
             * At
             * @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now
             */
            at?: string | null;
            /**
             * Speaker
             * @description who said it, e.g. user or assistant
             * @default user
             */
            speaker?: string;
            /**
             * Session
             * @description the conversation session it belongs to ('' for none)
             * @default
             */
            session?: string;
        };
        /**
         * Profile
         * @description The user as graphmem believes them to be at `at` (mechanisms.profile says how).
         */
        Profile: {
            /** Owner */
            owner: string;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Facts */
            facts: components["schemas"]["ProfileFact"][];
            /** Conjectures */
            conjectures: components["schemas"]["ProfileConjecture"][];
            /** Events */
            events: components["schemas"]["ProfileEvent"][];
            /** Causal Rules */
            causal_rules: number;
        };
        /**
         * ProfileConjecture
         * @description A conjecture about the user: its belief at the profile's time and when it fades.
         */
        ProfileConjecture: {
            /** Text */
            text: string;
            /** Belief */
            belief: number;
            /**
             * Fades At
             * Format: date-time
             */
            fades_at: string;
            /** Impression */
            impression: string;
            /** Rests On */
            rests_on: string[];
        };
        /**
         * ProfileEvent
         * @description An open major event with its latest development and until when it stays open.
         */
        ProfileEvent: {
            /** Title */
            title: string;
            /** Category */
            category: string;
            /** Latest */
            latest: string;
            /**
             * Last At
             * Format: date-time
             */
            last_at: string;
            /**
             * Open Until
             * Format: date-time
             */
            open_until: string;
            /** Event */
            event: string;
            /** Rests On */
            rests_on: string[];
        };
        /**
         * ProfileFact
         * @description A slot's value in force: the fact's text, its belief, since when, the values it replaced.
         */
        ProfileFact: {
            /** Slot */
            slot: string;
            /** Text */
            text: string;
            /** Belief */
            belief: number;
            /**
             * Since
             * Format: date-time
             */
            since: string;
            /** Rests On */
            rests_on: string[];
            /** Earlier */
            earlier: components["schemas"]["EarlierValue"][];
        };
        /**
         * QueryTurn
         * @description One turn of the conversation a recall is asked with.
         */
        QueryTurn: {
            /**
             * Speaker
             * @default
             */
            speaker?: string;
            /** Text */
            text: string;
        };
        /**
         * Recall
         * @description The answer to a recall: the owner's memories best related to the query, best first.
         *
         *     Together with `links` (the edges among the recalled memories) it is the related-context
         *     subgraph; `impressions` are the owner's impressions through which the query evoked some of
         *     them. `attempts` has one entry per search: more than one means recall thought again with
         *     raised motivation because the best relevance was too low. `woken` lists what the recall used
         *     and woke (empty in peek mode).
         */
        Recall: {
            /** Owner */
            owner: string;
            /** Query */
            query: string;
            /** Motivation */
            motivation: number;
            /** Attempts */
            attempts: components["schemas"]["Attempt"][];
            /** Memories */
            memories: components["schemas"]["RecalledMemory"][];
            /** Links */
            links: components["schemas"]["Link"][];
            /** Woken */
            woken: components["schemas"]["Woken"][];
            /**
             * Impressions
             * @default []
             */
            impressions?: components["schemas"]["EvokedImpression"][];
            /**
             * Cut Short
             * @default []
             */
            cut_short?: string[];
            /** Max Tokens */
            max_tokens?: number | null;
            /** Tokens */
            tokens?: number | null;
            /**
             * Profile
             * @default []
             */
            profile?: string[];
            /**
             * Confidence
             * @default 0
             */
            confidence?: number;
            /**
             * Nearness
             * @default 0
             */
            nearness?: number;
            /**
             * Coverage
             * @default 0
             */
            coverage?: number;
            /**
             * First Coverage
             * @default 0
             */
            first_coverage?: number;
            /**
             * Nothing Relevant
             * @default false
             */
            nothing_relevant?: boolean;
            /**
             * Rendered
             * @description `render()`: the text of the recall for a prompt.
             */
            readonly rendered: string;
        };
        /**
         * RecallQuestion
         * @description What to recall, and how: the query, how deep and how much, the weights, the filters.
         */
        RecallQuestion: {
            /**
             * Query
             * @description a question, or the recent conversation (oldest first, the last turn is what is asked)
             */
            query: string | components["schemas"]["QueryTurn"][];
            /**
             * K
             * @description how many memories to return at most; default 10, or 100 with max_tokens
             */
            k?: number | null;
            /**
             * Motivation
             * @description how deep to search (0-10); default: the query's label
             */
            motivation?: number | null;
            /**
             * Weights
             * @description the score's weights: a preset (balanced, relevance, generative_agents) or each
             * @default balanced
             */
            weights?: string | components["schemas"]["Weights"];
            /**
             * Peek
             * @description recall without waking anything
             * @default false
             */
            peek?: boolean;
            /**
             * At
             * @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now
             */
            at?: string | null;
            /**
             * Budget Seconds
             * @description time after which thinking again and association are skipped
             */
            budget_seconds?: number | null;
            /**
             * Max Tokens
             * @description keep what fits this many tokens of `rendered` (the most evidence)
             */
            max_tokens?: number | null;
            /**
             * Sessions
             * @description only memories from these sessions
             */
            sessions?: string[] | null;
            /**
             * Speakers
             * @description only memories said by these speakers
             */
            speakers?: string[] | null;
            /**
             * Since
             * @description only memories made at or after this time
             */
            since?: string | null;
            /**
             * Until
             * @description only memories made before this time
             */
            until?: string | null;
            /**
             * Kinds
             * @description only memories of these kinds: observation, knowledge, conjecture
             */
            kinds?: string[] | null;
            /**
             * Min Belief
             * @description only memories holding a belief of at least this (0-1), or none
             */
            min_belief?: number | null;
            /**
             * Min Confidence
             * @description below this confidence that anything found is relevant (0-1), return no memory and say nothing relevant was found; 0 returns what was found
             * @default 0
             */
            min_confidence?: number;
        };
        /**
         * RecalledMemory
         * @description A recalled memory, the turns it came from, and why it was chosen.
         *
         *     `components` are the raw relevance (cosine), lexical match (BM25), time match (to a time
         *     the query names), speaker match (to whom it names), asker match (to the one asking, for a
         *     query in the first person), statement (0 for a question that tells nothing of its speaker),
         *     importance, current attention, recency and the association received from neighbours;
         *     `normalised` the same over the memories found, 0 for a component equal over them all;
         *     `score` the weighted sum of `normalised`, such a component counted as 1 for every memory (a
         *     constant cannot change the order); `via` the memory whose relevance reached this one by
         *     association the most (a neighbouring turn's, a session mate's or a linked memory's), if any;
         *     `evoked_by` the impression (in Recall.impressions) that the query implies and this memory
         *     gave, through which the query evoked it, if any.
         */
        RecalledMemory: {
            memory: components["schemas"]["Memory"];
            /** Turns */
            turns: components["schemas"]["Turn"][];
            /** Score */
            score: number;
            components: components["schemas"]["Components"];
            normalised: components["schemas"]["Components"];
            /** Via */
            via: string | null;
            /** Evoked By */
            evoked_by?: string | null;
        };
        /**
         * Records
         * @description An owner's graph as the records `export` streams.
         */
        Records: {
            /** Records */
            records: {
                [key: string]: unknown;
            }[];
        };
        /**
         * ServedRequest
         * @description A request `graphmem serve` answered, as its request log keeps it: no body, no key.
         */
        ServedRequest: {
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Method */
            method: string;
            /** Path */
            path: string;
            /** Owner */
            owner: string | null;
            /** Status */
            status: number;
            /** Milliseconds */
            milliseconds: number;
            /** Request Id */
            request_id: string;
        };
        /**
         * SleepReport
         * @description What one owner's sleep job did: items per step, model calls per task, wall time.
         *
         *     `counts` holds derived (pending turns done), summaries, events started, events continued,
         *     profile facts (read in the dialogues: mechanisms.profile), facts (consolidated), SUPPORTS,
         *     CONTRADICTS, UPDATES and MERGED_INTO (edges made) and retiered (tier moves); derived offline
         *     (pending turns the model could not answer about even alone, perceived by the offline
         *     cognition); and what the model could not answer about, left for a later job: left
         *     unsummarised (turns), left unjudged (facts).
         */
        SleepReport: {
            /** Owner */
            owner: string;
            /** Counts */
            counts: {
                [key: string]: number;
            };
            /** Model Calls */
            model_calls: {
                [key: string]: number;
            };
            /** Seconds */
            seconds: number;
        };
        /**
         * Tier
         * @description Storage tier by current attention: 0 is searched by every recall, 3 only by deep ones.
         * @enum {integer}
         */
        Tier: 0 | 1 | 2 | 3;
        /**
         * TimelineEntry
         * @description A memory on a page of the timeline (its embedding left out), its turns, its attention.
         */
        TimelineEntry: {
            memory: components["schemas"]["Memory"];
            /** Turns */
            turns: components["schemas"]["Turn"][];
            /** Attention */
            attention: number;
        };
        /**
         * TimelinePage
         * @description A page of an owner's memories, newest first; `next` reads the page after it.
         */
        TimelinePage: {
            /** Owner */
            owner: string;
            /**
             * At
             * Format: date-time
             */
            at: string;
            /** Entries */
            entries: components["schemas"]["TimelineEntry"][];
            /** Next */
            next: string | null;
        };
        /**
         * Turn
         * @description A raw perceived item (a message, a tool result); immutable, the source of truth.
         *
         *     Its marks are the one thing that changes: `pending` is true from the moment the turn is
         *     stored until its memories are derived, so model work that failed or was cut short is found
         *     and done later; `awaiting_summary` until a dialogue summary covers it (the sleep job).
         */
        Turn: {
            /** Id */
            id: string;
            /** Owner */
            owner: string;
            /** Text */
            text: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Speaker
             * @default user
             */
            speaker?: string;
            /**
             * Session
             * @default
             */
            session?: string;
            /** Position */
            position?: number | null;
            /**
             * Pending
             * @default false
             */
            pending?: boolean;
            /**
             * Awaiting Summary
             * @default false
             */
            awaiting_summary?: boolean;
        };
        /**
         * Weights
         * @description How much each normalised component counts in a memory's score.
         */
        Weights: {
            /**
             * Relevance
             * @default 1
             */
            relevance?: number;
            /**
             * Lexical
             * @default 0
             */
            lexical?: number;
            /**
             * Time Match
             * @default 0
             */
            time_match?: number;
            /**
             * Speaker Match
             * @default 0
             */
            speaker_match?: number;
            /**
             * Asker Match
             * @default 0
             */
            asker_match?: number;
            /**
             * Statement
             * @default 0
             */
            statement?: number;
            /**
             * Importance
             * @default 0
             */
            importance?: number;
            /**
             * Attention
             * @default 0
             */
            attention?: number;
            /**
             * Recency
             * @default 0
             */
            recency?: number;
            /**
             * Association
             * @default 0
             */
            association?: number;
        };
        /**
         * When
         * @description A time to do something at.
         */
        When: {
            /**
             * At
             * @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now
             */
            at?: string | null;
        };
        /**
         * Woken
         * @description A node whose attention a recall raised: used itself, or woken as a neighbour.
         */
        Woken: {
            /** Id */
            id: string;
            /** Label */
            label: string;
            /** Used */
            used: boolean;
            /** Short Term Gain */
            short_term_gain: number;
            tier: components["schemas"]["Tier"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    alive_healthz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    ready_readyz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    list_owners_v1_owners_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string[];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    observe_v1_owners__owner__observe_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ObserveOne"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Observation"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    observe_many_v1_owners__owner__observe_many_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ObserveMany"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Observation"][];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    recall_v1_owners__owner__recall_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecallQuestion"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recall"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    consolidate_v1_owners__owner__consolidate_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["When"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SleepReport"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    complete_pending_v1_owners__owner__complete_pending_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Limit"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": number;
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    learn_v1_owners__owner__learn_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Lesson"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    retier_v1_owners__owner__retier_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["When"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": number;
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    forget_message_v1_owners__owner__forget_message_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageRef"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Forgotten"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    turns_v1_owners__owner__turns_get: {
        parameters: {
            query?: {
                /** @description the session; "" (default) for turns without one */
                session?: string;
                /** @description only the last this many; default: all */
                last?: number | null;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"][];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    timeline_v1_owners__owner__timeline_get: {
        parameters: {
            query?: {
                /** @description only these kinds */
                kinds?: components["schemas"]["MemoryKind"][] | null;
                /** @description only these tiers (0 hot to 3 deep) */
                tiers?: number[] | null;
                /** @description only memories of this session */
                session?: string | null;
                /** @description only memories this speaker said */
                speaker?: string | null;
                /** @description only memories whose text holds this (case ignored) */
                contains?: string | null;
                /** @description only memories made at or after this time (ISO 8601, UTC offset) */
                since?: string | null;
                /** @description only memories made before this time (ISO 8601, UTC offset) */
                until?: string | null;
                /** @description the time attention is read at; default: now */
                at?: string | null;
                /** @description the `next` of the page before; default: the newest page */
                before?: string | null;
                /** @description the most memories on the page */
                limit?: number;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TimelinePage"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    neighbourhood_v1_owners__owner__neighbourhood_get: {
        parameters: {
            query: {
                /** @description the node's id */
                node_id: string;
                /** @description what the node is: Memory, Turn, Event or Impression */
                label?: string;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeNeighbourhood"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    forget_v1_owners__owner__forget_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GraphCounts"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    health_v1_owners__owner__health_get: {
        parameters: {
            query?: {
                /** @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now */
                at?: string | null;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    profile_v1_owners__owner__profile_get: {
        parameters: {
            query?: {
                /** @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now */
                at?: string | null;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    events_v1_owners__owner__events_get: {
        parameters: {
            query?: {
                /** @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now */
                at?: string | null;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventEntry"][];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    impressions_v1_owners__owner__impressions_get: {
        parameters: {
            query?: {
                /** @description ISO 8601 with a UTC offset (whole minutes), from the year 1500 to 8499; default: now */
                at?: string | null;
            };
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImpressionEntry"][];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    statistics_v1_owners__owner__statistics_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GraphCounts"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    export_v1_owners__owner__export_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": unknown;
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    load_v1_owners__owner__load_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                owner: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Records"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GraphCounts"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    list_keys_v1_keys_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyInfo"][];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    create_key_v1_keys_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KeyRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewKey"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    revoke_key_v1_keys__key_id__revoke_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyInfo"];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no such key */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
    request_log_v1_requests_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServedRequest"][];
                };
            };
            /** @description bad input; the message names the field (or two Authorization headers) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description no key, or an unknown or revoked one */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the key may not touch this owner */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body did not arrive in time */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the input contradicts what is stored */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request body is too large, or a batch has too many messages */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the body is not sent as application/json (or, on an open server, no key and no JSON) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the Host header does not name this server */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the request does not fit its schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description too many requests, or requests in progress, for this key; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the model endpoint failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description the store cannot be reached; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
        };
    };
}
