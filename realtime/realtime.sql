-- pgrest realtime: what the database side of Supabase Realtime's
-- Broadcast and Realtime Authorization needs, for pgrest's realtime
-- socket (README, "Realtime"). Install it once per database as the owner
-- of the API's tables (a superuser or the database owner):
--
--   psql "$DATABASE_URL" -f realtime/realtime.sql
--
-- then let the authenticator (db_uri's user) reach the two functions the
-- socket calls, and the API's roles send from SQL:
--
--   grant usage on schema realtime to authenticator, anon, authenticated;
--   grant execute on function realtime.authorization_probe(text, text),
--     realtime.node_publish(text), realtime.node_message(bigint),
--     realtime.resume_save(text, pg_lsn, bigint, interval),
--     realtime.resume_take(text) to authenticator;
--   grant execute on function realtime.send(jsonb, text, text, boolean),
--     realtime.broadcast_changes(text, text, text, text, text, record, record, text)
--     to anon, authenticated;
--
-- The objects follow Supabase's migrations of its realtime schema
-- (supabase/realtime, lib/realtime/tenants/repo/migrations: messages,
-- topic(), send(), broadcast_changes()), so policies written for Supabase
-- work unchanged. Running the file again replaces the functions and keeps
-- the tables.

create schema if not exists realtime;

-- messages is the table Realtime Authorization's policies are written on
-- (Supabase's realtime.messages): a private channel's join is allowed
-- when the role may SELECT a row of its topic and extension, a send when
-- it may INSERT one. realtime.send() stores what it sends here too.
create table if not exists realtime.messages (
  id uuid not null default gen_random_uuid() primary key,
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now()
);
create index if not exists messages_topic_index on realtime.messages (topic);
alter table realtime.messages enable row level security;
grant select, insert on realtime.messages to public;

-- topic() is the topic being authorized, as policies read it (Supabase's
-- realtime.topic()).
create or replace function realtime.topic() returns text
  language sql stable
  as $$ select nullif(current_setting('realtime.topic', true), '')::text $$;

-- node_messages carries what is too long for one NOTIFY (8000 bytes) from
-- one pgrest node to the others: the notification names the row's id.
-- Rows are deleted a few minutes later by the next publish.
create table if not exists realtime.node_messages (
  id bigint generated always as identity primary key,
  body text not null,
  created_at timestamptz not null default now()
);
create index if not exists node_messages_created_at_index on realtime.node_messages (created_at);
revoke all on realtime.node_messages from public;

-- node_publish sends body to every pgrest node listening on the channel
-- pgrest_realtime: as the notification's payload when it fits, else
-- through node_messages, the payload then being '#<id>'. Delivery is at
-- commit, as NOTIFY's.
create or replace function realtime.node_publish(body text) returns void
  language plpgsql security definer
  set search_path = ''
  as $$
declare
  row_id bigint;
begin
  if octet_length(body) < 7900 then
    perform pg_notify('pgrest_realtime', body);
    return;
  end if;
  delete from realtime.node_messages where created_at < now() - interval '5 minutes';
  insert into realtime.node_messages (body) values (body) returning id into row_id;
  perform pg_notify('pgrest_realtime', '#' || row_id);
end
$$;
revoke all on function realtime.node_publish(text) from public;

-- node_message reads a message node_publish stored.
create or replace function realtime.node_message(message_id bigint) returns text
  language sql stable security definer
  set search_path = ''
  as $$ select body from realtime.node_messages where id = message_id $$;
revoke all on function realtime.node_message(bigint) from public;

-- resume_points are where clients whose socket dropped resume their
-- postgres_changes when they rejoin, on any node (the README's Realtime
-- section, "Resuming"): the position of the change after which the
-- client has seen nothing, by a hash of its identity, topic and specs,
-- until expires_at. Unlogged: a point is worth a few seconds, not a
-- crash recovery.
create unlogged table if not exists realtime.resume_points (
  key text primary key,
  lsn pg_lsn not null,
  seq bigint not null,
  expires_at timestamptz not null
);
create index if not exists resume_points_expires_at_index on realtime.resume_points (expires_at);
revoke all on realtime.resume_points from public;

-- resume_save stores a resume point for ttl, dropping the expired ones.
-- Of two points for one key (two clients of one identity on one topic),
-- the later is kept: a change is never sent twice.
create or replace function realtime.resume_save(resume_key text, resume_lsn pg_lsn, resume_seq bigint,
    ttl interval) returns void
  language sql volatile security definer
  set search_path = ''
  as $$
    delete from realtime.resume_points where expires_at < now();
    insert into realtime.resume_points as p (key, lsn, seq, expires_at)
      values (resume_key, resume_lsn, resume_seq, now() + ttl)
      on conflict (key) do update set lsn = excluded.lsn, seq = excluded.seq, expires_at = excluded.expires_at
      where (excluded.lsn, excluded.seq) > (p.lsn, p.seq);
  $$;
revoke all on function realtime.resume_save(text, pg_lsn, bigint, interval) from public;

-- resume_take takes (deletes) the resume point of a key, if it has not
-- expired.
create or replace function realtime.resume_take(resume_key text) returns table (resume_lsn pg_lsn, resume_seq bigint)
  language sql volatile security definer
  set search_path = ''
  as $$
    with taken as (delete from realtime.resume_points where key = resume_key returning lsn, seq, expires_at)
    select lsn, seq from taken where expires_at >= now();
  $$;
revoke all on function realtime.resume_take(text) from public;

-- authorization_probe inserts a row of topic and extension past
-- row-level security, for the socket to check, as the joining role and in
-- a transaction it rolls back, whether the role's SELECT policies let it
-- see the row (Supabase inserts the same probe rows before it switches
-- to the role: lib/realtime/tenants/authorization.ex).
create or replace function realtime.authorization_probe(probe_topic text, probe_extension text) returns uuid
  language sql volatile security definer
  set search_path = ''
  as $$
    insert into realtime.messages (topic, extension) values (probe_topic, probe_extension) returning id
  $$;
revoke all on function realtime.authorization_probe(text, text) from public;

-- send broadcasts payload as event on topic (a private channel's when
-- private) to every socket of every node, at commit, and stores it in
-- messages, as Supabase's realtime.send does (migration
-- 20251103001201_broadcast_send_include_payload_id: an "id" is added to
-- the payload when it has none, and errors become a warning).
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true) returns void
  language plpgsql security definer
  set search_path = ''
  as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
      values (generated_id, final_payload, event, topic, private, 'broadcast');
    perform realtime.node_publish(jsonb_build_object(
      'k', 'b', 'n', 'db', 't', topic, 'pv', private, 'e', event,
      'p', final_payload, 'm', jsonb_build_object('id', generated_id))::text);
  exception
    when others then
      raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;
revoke all on function realtime.send(jsonb, text, text, boolean) from public;

-- broadcast_changes sends a row trigger's change as Supabase's does
-- (migration 20240919163303_add_payload_to_messages).
create or replace function realtime.broadcast_changes(topic_name text, event_name text, operation text,
    table_name text, table_schema text, new record, old record, level text default 'ROW') returns void
  language plpgsql
  set search_path = ''
  as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
      'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception
  when others then
    raise exception 'Failed to process the row: %', sqlerrm;
end
$$;
revoke all on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) from public;
