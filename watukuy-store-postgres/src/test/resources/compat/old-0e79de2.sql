--
-- PostgreSQL database dump
--

\restrict compat0e79de2

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: compat_0e79de2; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA compat_0e79de2;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: watukuy_items; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_items (
    poller text NOT NULL COLLATE pg_catalog."C",
    partition text NOT NULL COLLATE pg_catalog."C",
    identity text NOT NULL COLLATE pg_catalog."C",
    version text,
    hash text NOT NULL,
    schema_version integer NOT NULL,
    payload json,
    ordering_key text NOT NULL,
    seen_at timestamp with time zone NOT NULL
);


--
-- Name: watukuy_log; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_log (
    poller text NOT NULL COLLATE pg_catalog."C",
    partition text NOT NULL COLLATE pg_catalog."C",
    seq bigint NOT NULL,
    event json NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: watukuy_meta; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_meta (
    name text NOT NULL COLLATE pg_catalog."C",
    value text NOT NULL
);


--
-- Name: watukuy_outbox; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_outbox (
    poller text NOT NULL COLLATE pg_catalog."C",
    partition text NOT NULL COLLATE pg_catalog."C",
    seq bigint NOT NULL,
    event_id text NOT NULL,
    ordering_key text NOT NULL,
    event json NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    last_error json,
    created_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY compat_0e79de2.watukuy_outbox ALTER COLUMN event SET STORAGE EXTERNAL;


--
-- Name: watukuy_parked; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_parked (
    poller text NOT NULL COLLATE pg_catalog."C",
    partition text NOT NULL COLLATE pg_catalog."C",
    id text NOT NULL COLLATE pg_catalog."C",
    kind text NOT NULL,
    seq bigint,
    event_id text,
    ordering_key text NOT NULL,
    event json,
    item json,
    error json NOT NULL,
    attempts integer NOT NULL,
    parked_at timestamp with time zone NOT NULL,
    hold_key text,
    created_at timestamp with time zone,
    CONSTRAINT watukuy_parked_kind_check CHECK ((kind = ANY (ARRAY['poison'::text, 'invalid'::text])))
);


--
-- Name: watukuy_pollers; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_pollers (
    poller text NOT NULL COLLATE pg_catalog."C",
    partition text NOT NULL COLLATE pg_catalog."C",
    state jsonb,
    lease_owner text,
    lease_epoch bigint,
    lease_expires_at timestamp with time zone,
    epoch_counter bigint DEFAULT 0 NOT NULL
);


--
-- Name: watukuy_validators; Type: TABLE; Schema: compat_0e79de2; Owner: -
--

CREATE TABLE compat_0e79de2.watukuy_validators (
    poller text NOT NULL COLLATE pg_catalog."C",
    partition text NOT NULL COLLATE pg_catalog."C",
    url_hash text NOT NULL COLLATE pg_catalog."C",
    etag text,
    last_modified text,
    stored_at timestamp with time zone NOT NULL
);


--
-- Data for Name: watukuy_items; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('orders', '', 'o3', '2026-03-01T10:00:00.000Z#1', 'd09fa9d71d2ab5774ff7612a06df929c8b58a6676b87a5aac33e82cb3da558da', 1, NULL, 'o3', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('orders', '', 'o5', '2026-03-01T10:00:00.000Z#1', '60bf10b63d066994799db23d1ce2943b6bfa80920f720ca168693041776767da', 1, NULL, 'o5', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('stock', 'eu', 's2', NULL, '05332a63ed9f094a7df4ac9df585b86104e72f47f4a205129e88c19b922601b6', 1, NULL, 's2', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('catalog', '', 'c1', NULL, '6a0045adc7d27b6480b22604a162d47beb7297409c83cab4b672b05a6eb954f5', 1, '{"id":"c1","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"title":"chair"}', 'c1', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('catalog', '', 'c3', NULL, 'ca99109eb3d151cc0ebd13e694f711c835bb8de21cde33f5143439135cc57e82', 1, '{"id":"c3","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"title":"lamp"}', 'c3', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('orders', '', 'o2', '2026-03-01T10:00:30.000Z#2', '774afe458a7382b527c5adb3e6d1cd98e46f476ed5c318a145041c12b1bda124', 1, NULL, 'o2', '2026-03-01 10:00:30+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('stock', 'us', 's3', NULL, 'b1104b4e529f0a9639e4419e1658aff723449d30a7abd3476da5c24668c201e2', 1, NULL, 's3', '2026-03-01 10:00:30+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('stock', 'us', 's4', NULL, '6088540bfcb4dac49d7fab53ff244fe5ed38e7be64afd4eec061f27a7ff239d5', 1, NULL, 's4', '2026-03-01 10:00:30+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('orders', '', 'o1', '2026-03-01T10:01:00.000Z#2', '21aa7b0882e8e35ed6a4df3da396cbf3d0243fd8fda095ef8dd0c87245e0be3b', 1, NULL, 'o1', '2026-03-01 10:01:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('catalog', '', 'c2', NULL, '430bb009ba2a46f967cf79044a17cc304022e876f27a7f148b073ed5929ac1a2', 1, '{"id":"c2","updatedAt":"2026-03-01T10:01:00.000Z","rev":2,"title":"standing desk"}', 'c2', '2026-03-01 10:01:00+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('orders', '', 'o6', '2026-03-01T10:01:30.000Z#1', '70cce1639b7a7c1108f579480aeb978608e6ee6c9ce77a9e6ad595c236737429', 1, NULL, 'o6', '2026-03-01 10:01:30+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('stock', 'eu', 's1', NULL, '79eca04b1c2f21d88a04141a3f930254d80dcf5eb489f49c445e99861971e5be', 1, NULL, 's1', '2026-03-01 10:01:30+00');
INSERT INTO compat_0e79de2.watukuy_items (poller, partition, identity, version, hash, schema_version, payload, ordering_key, seen_at) VALUES ('stock', 'eu', 's5', NULL, '3471d3f6758b100662b0a2af302a3494f7313907c5f92b77ee72a67f7c9b95f2', 1, NULL, 's5', '2026-03-01 10:01:30+00');


--
-- Data for Name: watukuy_log; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 1, '{"id":"a075b1271c495a75eccbe328cab6ca8b475bfdeed68309a7faa23c33ee249e3b","type":"created","source":"orders","partition":"","identity":"o1","orderingKey":"o1","version":"2026-03-01T10:00:00.000Z#1","hash":"1fdf88f7ea371d76998fd83dac67c94707d0ae8576a444525e37b40abe940009","schemaVersion":1,"lane":"live","sequence":1,"observedAt":"2026-03-01T10:00:00.000Z","data":{"id":"o1","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"price":10},"previous":null,"attempt":null}', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 2, '{"id":"1a11d5131c8144314f55f620e4e3baa733e98103bb128e9dc6d50b21223fdebc","type":"created","source":"orders","partition":"","identity":"o2","orderingKey":"o2","version":"2026-03-01T10:00:00.000Z#1","hash":"332ce8d5a77a0e3d1f61baac7d14ab3399552d0b4f73aa539d66b35f680e968c","schemaVersion":1,"lane":"live","sequence":2,"observedAt":"2026-03-01T10:00:00.000Z","data":{"id":"o2","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"price":20},"previous":null,"attempt":null}', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 3, '{"id":"60f22320e4ddaee65ad966358fd9a4e9ea4ea40832df6a86db79adbc1d8432e4","type":"created","source":"orders","partition":"","identity":"o3","orderingKey":"o3","version":"2026-03-01T10:00:00.000Z#1","hash":"d09fa9d71d2ab5774ff7612a06df929c8b58a6676b87a5aac33e82cb3da558da","schemaVersion":1,"lane":"live","sequence":3,"observedAt":"2026-03-01T10:00:00.000Z","data":{"id":"o3","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"price":30},"previous":null,"attempt":null}', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 4, '{"id":"6baa2c65877e565b82336d3d6bff2526cdd7a9600efd5a5a944133a3f27ad592","type":"created","source":"orders","partition":"","identity":"o5","orderingKey":"o5","version":"2026-03-01T10:00:00.000Z#1","hash":"60bf10b63d066994799db23d1ce2943b6bfa80920f720ca168693041776767da","schemaVersion":1,"lane":"live","sequence":4,"observedAt":"2026-03-01T10:00:00.000Z","data":{"id":"o5","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"price":50},"previous":null,"attempt":null}', '2026-03-01 10:00:00+00');
INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 5, '{"id":"403cb1498228a3e5bca41f91a97b2396d8958ff62cf244d16ea20a7b633ce743","type":"updated","source":"orders","partition":"","identity":"o2","orderingKey":"o2","version":"2026-03-01T10:00:30.000Z#2","hash":"774afe458a7382b527c5adb3e6d1cd98e46f476ed5c318a145041c12b1bda124","schemaVersion":1,"lane":"live","sequence":5,"observedAt":"2026-03-01T10:00:30.000Z","data":{"id":"o2","updatedAt":"2026-03-01T10:00:30.000Z","rev":2,"price":21},"previous":null,"attempt":null}', '2026-03-01 10:00:30+00');
INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 6, '{"id":"f628451f2579bca72eea57a838f455a992a43682671a0015122fcfdc172ed295","type":"updated","source":"orders","partition":"","identity":"o1","orderingKey":"o1","version":"2026-03-01T10:01:00.000Z#2","hash":"21aa7b0882e8e35ed6a4df3da396cbf3d0243fd8fda095ef8dd0c87245e0be3b","schemaVersion":1,"lane":"live","sequence":6,"observedAt":"2026-03-01T10:01:00.000Z","data":{"id":"o1","updatedAt":"2026-03-01T10:01:00.000Z","rev":2,"price":11},"previous":null,"attempt":null}', '2026-03-01 10:01:00+00');
INSERT INTO compat_0e79de2.watukuy_log (poller, partition, seq, event, created_at) VALUES ('orders', '', 7, '{"id":"710703cb9ec07d5092ac982db25cf1ee706ca38612162b54b2863830bb0fc239","type":"created","source":"orders","partition":"","identity":"o6","orderingKey":"o6","version":"2026-03-01T10:01:30.000Z#1","hash":"70cce1639b7a7c1108f579480aeb978608e6ee6c9ce77a9e6ad595c236737429","schemaVersion":1,"lane":"live","sequence":7,"observedAt":"2026-03-01T10:01:30.000Z","data":{"id":"o6","updatedAt":"2026-03-01T10:01:30.000Z","rev":1,"price":60},"previous":null,"attempt":null}', '2026-03-01 10:01:30+00');


--
-- Data for Name: watukuy_meta; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_meta (name, value) VALUES ('schema_version', '2');


--
-- Data for Name: watukuy_outbox; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_outbox (poller, partition, seq, event_id, ordering_key, event, status, attempts, next_attempt_at, last_error, created_at) VALUES ('orders', '', 7, '710703cb9ec07d5092ac982db25cf1ee706ca38612162b54b2863830bb0fc239', 'o6', '{"id":"710703cb9ec07d5092ac982db25cf1ee706ca38612162b54b2863830bb0fc239","type":"created","source":"orders","partition":"","identity":"o6","orderingKey":"o6","version":"2026-03-01T10:01:30.000Z#1","hash":"70cce1639b7a7c1108f579480aeb978608e6ee6c9ce77a9e6ad595c236737429","schemaVersion":1,"lane":"live","sequence":7,"observedAt":"2026-03-01T10:01:30.000Z","data":{"id":"o6","updatedAt":"2026-03-01T10:01:30.000Z","rev":1,"price":60},"previous":null,"attempt":null}', 'pending', 1, '2026-03-01 10:01:30.655+00', '[{"attempt":1,"at":"2026-03-01T10:01:30.000Z","name":"Refused","message":"handler refused o6 created","stack":"io.watukuy.store.postgres.CompatFixtureGenerator$Refused: handler refused o6 created\n"}]', '2026-03-01 10:01:30+00');
INSERT INTO compat_0e79de2.watukuy_outbox (poller, partition, seq, event_id, ordering_key, event, status, attempts, next_attempt_at, last_error, created_at) VALUES ('stock', 'eu', 3, '6656e872fd87212443731391f684ccd6a26051080b0471668eb86aa4c1a14604', 's1', '{"id":"6656e872fd87212443731391f684ccd6a26051080b0471668eb86aa4c1a14604","type":"updated","source":"stock","partition":"eu","identity":"s1","orderingKey":"s1","version":"79eca04b1c2f21d88a04141a3f930254d80dcf5eb489f49c445e99861971e5be","hash":"79eca04b1c2f21d88a04141a3f930254d80dcf5eb489f49c445e99861971e5be","schemaVersion":1,"lane":"live","sequence":3,"observedAt":"2026-03-01T10:01:30.000Z","data":{"id":"s1","updatedAt":"2026-03-01T10:01:30.000Z","rev":2,"partition":"eu","qty":6},"previous":null,"attempt":null}', 'pending', 0, NULL, NULL, '2026-03-01 10:01:30+00');
INSERT INTO compat_0e79de2.watukuy_outbox (poller, partition, seq, event_id, ordering_key, event, status, attempts, next_attempt_at, last_error, created_at) VALUES ('stock', 'eu', 4, 'cdc60a69a0ae7148786ef084f10dd19a7fc82d89434248e7a3445b13c2fdb6bd', 's5', '{"id":"cdc60a69a0ae7148786ef084f10dd19a7fc82d89434248e7a3445b13c2fdb6bd","type":"created","source":"stock","partition":"eu","identity":"s5","orderingKey":"s5","version":"3471d3f6758b100662b0a2af302a3494f7313907c5f92b77ee72a67f7c9b95f2","hash":"3471d3f6758b100662b0a2af302a3494f7313907c5f92b77ee72a67f7c9b95f2","schemaVersion":1,"lane":"live","sequence":4,"observedAt":"2026-03-01T10:01:30.000Z","data":{"id":"s5","updatedAt":"2026-03-01T10:01:30.000Z","rev":1,"partition":"eu","qty":9},"previous":null,"attempt":null}', 'pending', 0, NULL, NULL, '2026-03-01 10:01:30+00');


--
-- Data for Name: watukuy_parked; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_parked (poller, partition, id, kind, seq, event_id, ordering_key, event, item, error, attempts, parked_at, hold_key, created_at) VALUES ('orders', '', 'invalid-cbedc2069c1aa918', 'invalid', NULL, NULL, 'o4', NULL, '{"id":"o4","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"price":-5}', '{"name":"ValidationError","message":"price must be >= 0, but was -5","page":2,"index":0,"problems":["price must be >= 0, but was -5"]}', 0, '2026-03-01 10:00:00+00', NULL, NULL);
INSERT INTO compat_0e79de2.watukuy_parked (poller, partition, id, kind, seq, event_id, ordering_key, event, item, error, attempts, parked_at, hold_key, created_at) VALUES ('orders', '', '3', 'poison', 3, '60f22320e4ddaee65ad966358fd9a4e9ea4ea40832df6a86db79adbc1d8432e4', 'o3', '{"id":"60f22320e4ddaee65ad966358fd9a4e9ea4ea40832df6a86db79adbc1d8432e4","type":"created","source":"orders","partition":"","identity":"o3","orderingKey":"o3","version":"2026-03-01T10:00:00.000Z#1","hash":"d09fa9d71d2ab5774ff7612a06df929c8b58a6676b87a5aac33e82cb3da558da","schemaVersion":1,"lane":"live","sequence":3,"observedAt":"2026-03-01T10:00:00.000Z","data":{"id":"o3","updatedAt":"2026-03-01T10:00:00.000Z","rev":1,"price":30},"previous":null,"attempt":null}', NULL, '{"name":"Refused","message":"handler refused o3 created","stack":"io.watukuy.store.postgres.CompatFixtureGenerator$Refused: handler refused o3 created\n","history":[{"attempt":1,"at":"2026-03-01T10:00:00.000Z","name":"Refused","message":"handler refused o3 created","stack":"io.watukuy.store.postgres.CompatFixtureGenerator$Refused: handler refused o3 created\n"},{"attempt":2,"at":"2026-03-01T10:00:30.000Z","name":"Refused","message":"handler refused o3 created","stack":"io.watukuy.store.postgres.CompatFixtureGenerator$Refused: handler refused o3 created\n"},{"attempt":3,"at":"2026-03-01T10:01:00.000Z","name":"Refused","message":"handler refused o3 created","stack":"io.watukuy.store.postgres.CompatFixtureGenerator$Refused: handler refused o3 created\n"}]}', 3, '2026-03-01 10:01:00+00', NULL, '2026-03-01 10:00:00+00');


--
-- Data for Name: watukuy_pollers; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_pollers (poller, partition, state, lease_owner, lease_epoch, lease_expires_at, epoch_counter) VALUES ('stock', 'us', '{"cursors": {"live": "{\"value\":\"2026-03-01T10:00:30.000Z\",\"tieBreak\":\"s4\"}"}, "schedule": {"v": 1, "state": "idle", "paused": null, "circuit": null, "backfill": null, "lastPoll": {"at": "2026-03-01T10:01:30Z", "items": 0, "pages": 1, "events": 0, "truncated": false, "durationMs": 0, "notModified": false}, "dueReason": "schedule", "lastError": null, "nextDueAt": "2026-03-01T10:02:00Z", "intervalMs": 30000, "throttledUntil": null, "lastReconcileAt": null, "consecutiveFailures": 0}, "createdAt": "2026-03-01T10:00:00Z", "updatedAt": "2026-03-01T10:01:30Z", "lastSequence": 3, "schemaVersion": 1}', NULL, NULL, NULL, 4);
INSERT INTO compat_0e79de2.watukuy_pollers (poller, partition, state, lease_owner, lease_epoch, lease_expires_at, epoch_counter) VALUES ('orders', '', '{"cursors": {"live": "{\"value\":\"2026-03-01T10:01:30.000Z\",\"tieBreak\":\"o6\"}"}, "schedule": {"v": 1, "state": "idle", "paused": null, "circuit": null, "backfill": null, "lastPoll": {"at": "2026-03-01T10:01:30Z", "items": 1, "pages": 1, "events": 1, "truncated": false, "durationMs": 0, "notModified": false}, "dueReason": "schedule", "lastError": null, "nextDueAt": "2026-03-01T10:02:00Z", "intervalMs": 30000, "throttledUntil": null, "lastReconcileAt": null, "consecutiveFailures": 0}, "createdAt": "2026-03-01T10:00:00Z", "updatedAt": "2026-03-01T10:01:30Z", "lastSequence": 7, "schemaVersion": 1}', NULL, NULL, NULL, 4);
INSERT INTO compat_0e79de2.watukuy_pollers (poller, partition, state, lease_owner, lease_epoch, lease_expires_at, epoch_counter) VALUES ('stock', 'eu', '{"cursors": {"live": "{\"value\":\"2026-03-01T10:01:30.000Z\",\"tieBreak\":\"s5\"}"}, "schedule": {"v": 1, "state": "idle", "paused": null, "circuit": null, "backfill": null, "lastPoll": {"at": "2026-03-01T10:01:30Z", "items": 2, "pages": 1, "events": 2, "truncated": false, "durationMs": 0, "notModified": false}, "dueReason": "schedule", "lastError": null, "nextDueAt": "2026-03-01T10:02:00Z", "intervalMs": 30000, "throttledUntil": null, "lastReconcileAt": null, "consecutiveFailures": 0}, "createdAt": "2026-03-01T10:00:00Z", "updatedAt": "2026-03-01T10:01:30Z", "lastSequence": 4, "schemaVersion": 1}', NULL, NULL, NULL, 4);
INSERT INTO compat_0e79de2.watukuy_pollers (poller, partition, state, lease_owner, lease_epoch, lease_expires_at, epoch_counter) VALUES ('catalog', '', '{"cursors": {}, "schedule": {"v": 1, "state": "idle", "paused": null, "circuit": null, "backfill": null, "lastPoll": {"at": "2026-03-01T10:01:30Z", "items": 0, "pages": 1, "events": 0, "truncated": false, "durationMs": 0, "notModified": true}, "dueReason": "schedule", "lastError": null, "nextDueAt": "2026-03-01T10:02:00Z", "intervalMs": 30000, "throttledUntil": null, "lastReconcileAt": null, "consecutiveFailures": 0}, "createdAt": "2026-03-01T10:00:00Z", "updatedAt": "2026-03-01T10:01:30Z", "lastSequence": 6, "schemaVersion": 1}', NULL, NULL, NULL, 4);


--
-- Data for Name: watukuy_validators; Type: TABLE DATA; Schema: compat_0e79de2; Owner: -
--

INSERT INTO compat_0e79de2.watukuy_validators (poller, partition, url_hash, etag, last_modified, stored_at) VALUES ('catalog', '', '5d0f8f3312f858161ed2f20fb1f4ee3487352377d5b1a30ee81c6121f67c4280', '"4df60f446e598a6f"', NULL, '2026-03-01 10:01:00+00');


--
-- Name: watukuy_items watukuy_items_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_items
    ADD CONSTRAINT watukuy_items_pkey PRIMARY KEY (poller, partition, identity);


--
-- Name: watukuy_log watukuy_log_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_log
    ADD CONSTRAINT watukuy_log_pkey PRIMARY KEY (poller, partition, seq);


--
-- Name: watukuy_meta watukuy_meta_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_meta
    ADD CONSTRAINT watukuy_meta_pkey PRIMARY KEY (name);


--
-- Name: watukuy_outbox watukuy_outbox_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_outbox
    ADD CONSTRAINT watukuy_outbox_pkey PRIMARY KEY (poller, partition, seq);


--
-- Name: watukuy_parked watukuy_parked_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_parked
    ADD CONSTRAINT watukuy_parked_pkey PRIMARY KEY (poller, partition, id);


--
-- Name: watukuy_pollers watukuy_pollers_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_pollers
    ADD CONSTRAINT watukuy_pollers_pkey PRIMARY KEY (poller, partition);


--
-- Name: watukuy_validators watukuy_validators_pkey; Type: CONSTRAINT; Schema: compat_0e79de2; Owner: -
--

ALTER TABLE ONLY compat_0e79de2.watukuy_validators
    ADD CONSTRAINT watukuy_validators_pkey PRIMARY KEY (poller, partition, url_hash);


--
-- Name: watukuy_log_created_at; Type: INDEX; Schema: compat_0e79de2; Owner: -
--

CREATE INDEX watukuy_log_created_at ON compat_0e79de2.watukuy_log USING btree (poller, partition, created_at);


--
-- Name: watukuy_outbox_event_id; Type: INDEX; Schema: compat_0e79de2; Owner: -
--

CREATE INDEX watukuy_outbox_event_id ON compat_0e79de2.watukuy_outbox USING btree (poller, partition, event_id);


--
-- Name: watukuy_outbox_status_seq; Type: INDEX; Schema: compat_0e79de2; Owner: -
--

CREATE INDEX watukuy_outbox_status_seq ON compat_0e79de2.watukuy_outbox USING btree (poller, partition, status, seq);


--
-- Name: watukuy_parked_parked_at; Type: INDEX; Schema: compat_0e79de2; Owner: -
--

CREATE INDEX watukuy_parked_parked_at ON compat_0e79de2.watukuy_parked USING btree (poller, partition, parked_at);


--
-- PostgreSQL database dump complete
--

\unrestrict compat0e79de2

