-- Schemas every end-to-end test shares. The roles are demo/roles.sql's,
-- which pgresttest.SetUp loads first: the authenticator has no privileges
-- of its own, everything it does, it does as a switched role.

create schema api;
create schema private;
grant usage on schema api to web_anon, webuser;

-- Holds a pool connection until the test releases the advisory lock it
-- waits for (pgtest.HoldLock).
create function api.wait_for_lock(key bigint) returns int language sql volatile
as $$ select 1 from pg_advisory_xact_lock_shared(key) $$;
grant execute on function api.wait_for_lock(bigint) to web_anon, webuser;
