-- Casts in select (issue 7): a table anonymous users may read, a domain in
-- public to cast to by a schema-qualified name. The database setting
-- app.jwt_secret (00_base.sql) is what the union-select attack through a
-- cast tried to read from pg_db_role_setting.
create table api.announcements (
  id int primary key,
  title text not null,
  nums text[] not null
);
insert into api.announcements values (1, 'Hello', '{1,2}'), (2, 'World', '{3}');
grant select on api.announcements to web_anon;

create domain public.announcement_label as text;
