-- Fixtures of the authentication tests (auth_*_test.go). Everything is named
-- auth_* except the login pattern's api.login and basic_auth schema, which
-- come from demo/schema.sql, so other fixtures of this package can live
-- beside it.

-- Roles -------------------------------------------------------------------

-- auth_alice and auth_bob are individual roles told apart by current_user.
-- auth_carol is an individual role whose privileges come from the group
-- role auth_staff: the authenticator is granted the individual role only.
-- auth_stranger exists but is not granted to the authenticator.
create role auth_alice nologin;
create role auth_bob nologin;
create role auth_staff nologin;
create role auth_carol nologin;
create role auth_stranger nologin;
grant auth_staff to auth_carol;
grant auth_alice, auth_bob, auth_carol to authenticator;
grant usage on schema api to auth_alice, auth_bob, auth_staff, auth_stranger;

-- What SQL sees of the request ----------------------------------------------

-- The switched-to role.
create function api.auth_whoami() returns text
language sql stable
as $$ select current_user::text $$;

-- Any setting, read as the contract says: NULL when it is absent.
create function api.auth_setting(name text) returns text
language sql stable
as $$ select current_setting(name, true) $$;

-- The e-mail claim as applications read it on PostgreSQL 14 and later.
create function api.auth_email() returns text
language sql stable
as $$ select current_setting('request.jwt.claims', true)::json ->> 'email' $$;

-- The schemas of search_path that exist, in order.
create function api.auth_search_path() returns text[]
language sql stable
as $$ select current_schemas(false)::text[] $$;

-- Refuses everyone, as a function may.
create function api.auth_deny() returns void
language plpgsql
as $$ begin raise insufficient_privilege using message = 'auth_deny: no'; end $$;

-- Holds a pool connection for a while.
create function api.auth_sleep(seconds double precision) returns text
language sql volatile
as $$ select pg_sleep(seconds)::text $$;

-- Row-level security by role: each role sees the rows it owns.
create table api.auth_notes (
  id    int primary key,
  owner name not null,
  body  text not null
);
alter table api.auth_notes enable row level security;
create policy auth_notes_of_their_owner on api.auth_notes
  using (owner = current_user);
grant select on api.auth_notes to auth_alice, auth_bob, web_anon;
insert into api.auth_notes values
  (1, 'auth_alice', 'alice one'),
  (2, 'auth_alice', 'alice two'),
  (3, 'auth_bob',   'bob one');

-- Privileges through a group role only.
create table api.auth_staff_docs (
  id    int primary key,
  title text not null
);
grant select on api.auth_staff_docs to auth_staff;
insert into api.auth_staff_docs values (1, 'staff handbook'), (2, 'rota');

-- Row-level security by claim: web users share the role webuser and are told
-- apart by the e-mail claim. nullif: a connection that once set the setting
-- reads '' rather than NULL outside that transaction, and ''::json fails.
create table api.auth_todos (
  id          int primary key,
  owner_email text not null,
  task        text not null
);
alter table api.auth_todos enable row level security;
create policy auth_todos_of_their_owner on api.auth_todos to webuser
  using (owner_email = nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email');
grant select on api.auth_todos to webuser;
insert into api.auth_todos values
  (1, 'alice@example.com', 'buy oat milk'),
  (2, 'alice@example.com', 'water the plants'),
  (3, 'bob@example.com',   'renew the passport');

-- The internal schema: readable by web_anon in SQL, yet not exposed.
create table private.auth_secrets (id int primary key, secret text not null);
insert into private.auth_secrets values (1, 'the cake is a lie');
grant usage on schema private to web_anon, webuser;
grant select on private.auth_secrets to web_anon;

-- db_pre_request hook, in the unexposed schema. It runs after the role switch
-- and before the main statement: it blocks one user with
-- insufficient_privilege, revokes another with a custom 401, and leaves a
-- trace (the role it ran as) for the main statement to read.
create function private.auth_check_request() returns void
language plpgsql
as $$
declare
  _email text := nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email';
begin
  perform set_config('auth.pre_request_role', current_user, true);
  if _email = 'blocked@example.com' then
    raise insufficient_privilege using message = 'user blocked@example.com is blocked';
  end if;
  if _email = 'revoked@example.com' then
    raise sqlstate 'PT401' using message = 'token revoked', hint = 'log in again';
  end if;
end
$$;

-- The login pattern (contract, Authentication item 12) ------------------------

-- basic_auth.users, the token signer basic_auth.sign and api.login are
-- demo/schema.sql's, loaded before this file (see harness_test.go): these
-- tests check the recipe the demo and the README give. The secret is not
-- written in any function: it is a database setting, the same value as the
-- tests' jwtSecret.
do $$
begin
  execute format('alter database %I set app.jwt_secret = %L',
                 current_database(), 'pgrest-e2e-secret-that-is-long-enough-0123456789');
end
$$;

-- A token made in the database for tests (contract, Authentication item 11:
-- five minutes).
create function api.auth_test_token() returns text
language sql stable security definer
set search_path = public, pg_temp
as $$
  select basic_auth.sign(
    json_build_object('role', 'webuser', 'email', 'test@example.com',
                      'exp', extract(epoch from now())::bigint + 5 * 60),
    current_setting('app.jwt_secret'))
$$;

-- Web sessions (Authentication item 13): login that hands the token over as a
-- Secure, HttpOnly cookie instead of in the body.
create function api.auth_login_cookie(email text, pass text) returns void
language plpgsql
as $$
begin
  perform set_config('response.headers',
    json_build_array(json_build_object('Set-Cookie',
      format('session=%s; Path=/; Secure; HttpOnly; SameSite=Strict', (api.login(email, pass)).token)))::text,
    true);
end
$$;

-- Functions are executable by PUBLIC when made: the cookie login, like
-- login, is meant for the anonymous role only.
revoke all on function api.auth_login_cookie(text, text) from public;
grant execute on function api.auth_login_cookie(text, text) to web_anon;

insert into basic_auth.users (email, pass, role) values
  ('alice@example.com',   'alice-password',   'webuser'),
  ('bob@example.com',     'bob-password',     'webuser'),
  ('blocked@example.com', 'blocked-password', 'webuser');
