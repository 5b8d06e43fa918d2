// The current postgrest-js (2.x) on its own against pgrest under /rest/v1:
// reads, embeds, counts, writes, rpc and errors as 2.x sends and reads them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PostgrestClient } from '@supabase/postgrest-js'
import { anon, user, url, unique, ok, failed } from './helpers.mjs'

test('select with a filter, an order and a limit', async () => {
  const res = await anon.from('clients').select('id, name').lt('id', 4).order('id', { ascending: false }).limit(2)
  ok(res)
  assert.deepEqual(res.data, [
    { id: 3, name: 'Initech' },
    { id: 2, name: 'Globex' },
  ])
})

test('an embedded parent through the foreign key, as one object with single()', async () => {
  const res = await anon.from('projects').select('id, code, clients(name)').eq('id', 1).single()
  ok(res)
  assert.deepEqual(res.data, { id: 1, code: 'ACME-WEB', clients: { name: 'Acme Corp' } })
})

test('maybeSingle() of no row is null, not an error', async () => {
  const res = await anon.from('clients').select('id').eq('id', -1).maybeSingle()
  ok(res)
  assert.equal(res.data, null)
})

test("count: 'exact' with head: true counts without rows", async () => {
  const res = await anon.from('clients').select('*', { count: 'exact', head: true })
  ok(res)
  assert.equal(res.count, 9)
  assert.equal(res.data, null)
})

test('insert, update and delete a row, each returning it', async () => {
  const slug = unique('pg2')
  const inserted = await anon.from('notes').insert({ slug, title: 'first' }).select('slug, title, priority').single()
  ok(inserted, 201)
  assert.deepEqual(inserted.data, { slug, title: 'first', priority: 3 })

  const updated = await anon.from('notes').update({ title: 'second' }).eq('slug', slug).select('title')
  ok(updated)
  assert.deepEqual(updated.data, [{ title: 'second' }])

  const deleted = await anon.from('notes').delete().eq('slug', slug).select('slug')
  ok(deleted)
  assert.deepEqual(deleted.data, [{ slug }])
})

test('upsert merges on the unique slug', async () => {
  const slug = unique('pg2-upsert')
  ok(await anon.from('notes').insert({ slug, title: 'before' }), 201)
  const res = await anon.from('notes').upsert({ slug, title: 'after' }, { onConflict: 'slug' }).select('title')
  ok(res, 200)
  assert.deepEqual(res.data, [{ title: 'after' }])
})

test('rpc with named arguments, by POST and by GET', async () => {
  const post = await anon.rpc('add_numbers', { a: 2, b: 3 })
  ok(post)
  assert.equal(post.data, 5)
  const get = await anon.rpc('add_numbers', { a: 4, b: 5 }, { get: true })
  ok(get)
  assert.equal(get.data, 9)
})

test('rpc runs as the role of the token', async () => {
  const asAnon = await anon.rpc('whoami')
  ok(asAnon)
  assert.equal(asAnon.data, 'web_anon')
  const asUser = await user.rpc('whoami')
  ok(asUser)
  assert.equal(asUser.data, 'webuser')
})

test('schema() switches the profile', async () => {
  const res = await new PostgrestClient(url, { schema: 'v2' }).rpc('project_titles')
  ok(res)
  assert.ok(Array.isArray(res.data) && res.data.length > 0, JSON.stringify(res.data))
})

test('errors come back in the contract: an unknown table', async () => {
  const e = failed(await anon.from('no_such_table').select(), 404, 'PGRST205')
  assert.match(e.message, /no_such_table/)
})

test('errors come back in the contract: a permission the role lacks', async () => {
  failed(await anon.from('member_notes').select(), 401, '42501')
})
