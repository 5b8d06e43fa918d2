-- CORS: a table browsers read and write from another origin.
create table api.cors_items (id int primary key, name text not null);
insert into api.cors_items values (1, 'one'), (2, 'two');
grant select on api.cors_items to web_anon;
grant select, insert on api.cors_items to webuser;
