-- The demo's realtime (demo/Caddyfile's realtime_enabled), loaded by
-- make demo after realtime/realtime.sql: the grants that file's header
-- asks for, for the demo's roles, and a private channel per user: a
-- signed-in user may read and send on the topic "user:<their email>"
-- (the email claim of api.login's token), nobody else.
grant usage on schema realtime to authenticator, web_anon, webuser;
grant execute on function realtime.authorization_probe(text, text), realtime.node_publish(text),
  realtime.node_message(bigint), realtime.resume_save(text, pg_lsn, bigint, interval),
  realtime.resume_take(text) to authenticator;
grant execute on function realtime.send(jsonb, text, text, boolean) to webuser;

drop policy if exists demo_user_topic_read on realtime.messages;
create policy demo_user_topic_read on realtime.messages for select to webuser
  using (realtime.topic() = 'user:' || (current_setting('request.jwt.claims', true)::json->>'email'));
drop policy if exists demo_user_topic_write on realtime.messages;
create policy demo_user_topic_write on realtime.messages for insert to webuser
  with check (realtime.topic() = 'user:' || (current_setting('request.jwt.claims', true)::json->>'email'));
