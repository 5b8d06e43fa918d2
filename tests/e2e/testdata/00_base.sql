-- Roles and schemas every end-to-end test shares. The authenticator has no
-- privileges of its own: everything it does, it does as a switched role.
create role authenticator login noinherit password 'authenticator-password';
create role web_anon nologin;
create role webuser nologin;
grant web_anon, webuser to authenticator;

create schema api;
create schema private;
grant usage on schema api to web_anon, webuser;
