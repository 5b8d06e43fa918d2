-- Functions for the tests of what must not cross from one request to the
-- next on a shared connection (isolation_test.go).

-- A simple LANGUAGE sql function, which PostgreSQL inlines into a plan
-- after checking EXECUTE for the role that plans it. Only webuser may
-- call it.
create function api.members_only() returns text language sql stable as $$ select 'welcome' $$;
revoke execute on function api.members_only() from public;
grant execute on function api.members_only() to webuser;

-- Sets response.status and response.headers at session level, which
-- outlives the transaction on the connection.
create function api.leave_response_settings() returns text language sql volatile as $$
  select pg_catalog.set_config('response.status', '418', false)
      || pg_catalog.set_config('response.headers', '[{"Set-Cookie": "leaked=from-webuser"}]', false)
$$;
revoke execute on function api.leave_response_settings() from public;
grant execute on function api.leave_response_settings() to webuser;

create function api.everyone() returns text language sql stable as $$ select 'hello' $$;
grant execute on function api.everyone() to web_anon, webuser;

-- The same with a parameter: a statement with parameters gets custom
-- plans for five runs before PostgreSQL may settle on a generic one.
create function api.members_only_echo(n integer) returns integer language sql stable as $$ select n $$;
revoke execute on function api.members_only_echo(integer) from public;
grant execute on function api.members_only_echo(integer) to webuser;
