-- The limits' fixture (limits_attack_test.go): a way to see which requests
-- reach the database, and a table whose rows row-level security hides.

-- private.note_request, the pre-request function of the limits' server,
-- records every request that reaches the database. A read runs in a
-- read-only transaction and a plan always rolls back, so it records
-- through dblink on a connection of its own, as private.trip does.
create table private.seen_requests (
  at   timestamptz not null default clock_timestamp(),
  path text
);
grant insert on private.seen_requests to pgrest_tripwire;

create function private.note_request() returns void
language plpgsql security definer set search_path = private, pg_catalog as $$
begin
  perform private.dblink_exec(private.trip_dsn(),
    format('insert into private.seen_requests (path) values (%L)', current_setting('request.path', true)));
end
$$;
revoke all on function private.note_request() from public;
grant execute on function private.note_request() to web_anon, webuser;

-- rls_notes: each role sees its own notes only. An analyzed plan of a
-- read by web_anon would count webuser's notes in "Rows Removed by Filter".
create table api.rls_notes (
  id    int primary key,
  owner text not null,
  body  text not null
);
insert into api.rls_notes values
  (1, 'web_anon', 'public note'),
  (2, 'webuser', 'a note web_anon must not learn of'),
  (3, 'webuser', 'another one');
alter table api.rls_notes enable row level security;
create policy own_notes on api.rls_notes using (owner = current_user);
grant select on api.rls_notes to web_anon, webuser;
