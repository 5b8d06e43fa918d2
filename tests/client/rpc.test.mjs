// Functions: POST and GET /rpc/<function> with named arguments, and the
// read language on the rows they return. The functions are the client
// suite's own, in tests/client/fixture.sql.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ids, ok, counted, failed, recording, unique, CLIENT_9, CLIENT_NAMES } from './helpers.mjs'

test("rpc('add_numbers', { a, b }) returns a scalar, by POST and by GET", async () => {
  const post = await anon.rpc('add_numbers', { a: 2, b: 3 })
  ok(post)
  assert.equal(post.data, 5)

  const get = await anon.rpc('add_numbers', { a: -7, b: 10 }, { get: true })
  ok(get)
  assert.equal(get.data, 3)
})

test("rpc('client_by_id') returns one composite as an object", async () => {
  const res = await anon.rpc('client_by_id', { client_id: 9 })
  ok(res)
  assert.deepEqual(res.data, CLIENT_9)
})

test("rpc('clients_in_country') returns a set of composites in the function's order", async () => {
  const res = await anon.rpc('clients_in_country', { country_code: 'US' })
  ok(res)
  assert.deepEqual(res.data.map((c) => [c.id, c.name]), [
    [1, 'Acme Corp'],
    [2, 'Globex'],
    [3, 'Initech'],
    [5, "O'Reilly Media"],
    [6, 'Stark Industries (Holdings)'],
  ])

  const none = await anon.rpc('clients_in_country', { country_code: 'ZZ' })
  ok(none)
  assert.deepEqual(none.data, [])
})

test("rpc('client_names') returns a set of scalars; with head: true no body", async () => {
  const res = await anon.rpc('client_names')
  ok(res)
  assert.deepEqual(res.data, CLIENT_NAMES)

  const head = await anon.rpc('client_names', {}, { head: true })
  ok(head)
  assert.equal(head.data, null)
})

test("rpc('do_nothing') returns void: 204 and no data", async () => {
  const res = await anon.rpc('do_nothing')
  ok(res, 204)
  assert.equal(res.data, null)
  assert.equal(res.statusText, 'No Content')
})

test('an unknown function or argument list is PGRST202', async () => {
  const misspelt = failed(await anon.rpc('add_numberz', { a: 1, b: 2 }), 404, 'PGRST202')
  assert.equal(misspelt.message, 'Could not find the function api.add_numberz(a, b) in the schema cache')
  assert.equal(misspelt.hint, 'Perhaps you meant to call the function api.add_numbers')

  const missingArg = failed(await anon.rpc('add_numbers', { a: 1 }), 404, 'PGRST202')
  assert.equal(missingArg.message, 'Could not find the function api.add_numbers(a) in the schema cache')
  assert.equal(missingArg.hint, 'Perhaps you meant to call the function api.add_numbers(a, b)')
})

test("rpc('clients_in_country').select('name').eq('active', false) filters the result", async () => {
  const res = await anon.rpc('clients_in_country', { country_code: 'US' }).select('name').eq('active', false)
  ok(res)
  assert.deepEqual(res.data, [{ name: 'Initech' }])
})

test('rpc(...).select().eq().order().limit() shapes the rows', async () => {
  const { client, requests } = recording()
  const res = await client.rpc('clients_in_country', { country_code: 'US' })
    .select('id, name').eq('active', true).order('name', { ascending: false }).limit(2)
  ok(res)
  assert.deepEqual(res.data, [
    { id: 6, name: 'Stark Industries (Holdings)' },
    { id: 5, name: "O'Reilly Media" },
  ])
  // The arguments go in the body, the read language in the query string.
  assert.equal(requests[0].method, 'POST')
  assert.equal(requests[0].url, `${process.env.PGREST_URL}/rpc/clients_in_country?select=id,name&active=eq.true&order=name.desc&limit=2`)
  assert.equal(requests[0].body, '{"country_code":"US"}')
})

test("rpc(..., { count: 'exact' }) counts a function's rows", async () => {
  const res = await anon.rpc('clients_in_country', { country_code: 'US' }, { count: 'exact' })
  counted(res, 5)
  assert.deepEqual(ids(res.data), [1, 2, 3, 5, 6])

  // The count is of the filtered rows, before the limit.
  const page = await anon.rpc('clients_in_country', { country_code: 'US' }, { count: 'exact' })
    .select('id').gt('id', 1).order('id').limit(2)
  counted(page, 4, 206)
  assert.deepEqual(ids(page.data), [2, 3])
})

test("rpc(..., { head: true, count: 'exact' }) counts without a body", async () => {
  const rows = await anon.rpc('clients_in_country', { country_code: 'US' }, { head: true, count: 'exact' })
  counted(rows, 5)
  assert.equal(rows.data, null)

  const scalars = await anon.rpc('client_names', {}, { count: 'exact', head: true })
  counted(scalars, 9)
  assert.equal(scalars.data, null)
})

test("rpc(..., { get: true }) sends the arguments in the query string", async () => {
  const { client, requests } = recording()
  const res = await client.rpc('clients_in_country', { country_code: 'US' }, { get: true })
    .select('id, name').gt('id', 2).order('id')
  ok(res)
  assert.deepEqual(res.data, [
    { id: 3, name: 'Initech' },
    { id: 5, name: "O'Reilly Media" },
    { id: 6, name: 'Stark Industries (Holdings)' },
  ])
  assert.equal(requests[0].method, 'GET')
  assert.equal(requests[0].url,
    `${process.env.PGREST_URL}/rpc/clients_in_country?country_code=US&select=id,name&id=gt.2&order=id.asc`)
})

test("rpc(...).select().single() on a set of one row is an object", async () => {
  const res = await anon.rpc('clients_in_country', { country_code: 'FR' }).select('id, name').single()
  ok(res)
  assert.deepEqual(res.data, { id: 7, name: 'Société Générale' })

  const many = await anon.rpc('clients_in_country', { country_code: 'US' }).select('id').single()
  assert.equal(failed(many, 406, 'PGRST116').details, 'The result contains 5 rows')
})

test("a volatile function writes by POST; by GET it is 405 (read-only transaction)", async () => {
  const slug = unique('rpc-note')
  const res = await anon.rpc('add_note', { slug, title: 'Added by rpc' }).select('slug, title, priority')
  ok(res)
  assert.deepEqual(res.data, { slug, title: 'Added by rpc', priority: 3 })
  const stored = await anon.from('notes').select('title').eq('slug', slug)
  ok(stored)
  assert.deepEqual(stored.data, [{ title: 'Added by rpc' }])

  const other = unique('rpc-note-get')
  const get = await anon.rpc('add_note', { slug: other, title: 'Never stored' }, { get: true })
  const error = failed(get, 405, '25006')
  assert.equal(error.message, 'cannot execute INSERT in a read-only transaction')
  const absent = await anon.from('notes').select('id').eq('slug', other)
  ok(absent)
  assert.deepEqual(absent.data, [])
})
