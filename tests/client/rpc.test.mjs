// Functions: POST and GET /rpc/<function> with named arguments.
// The functions are the client suite's own, in tests/client/fixture.sql.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ok, failed, CLIENT_NAMES } from './helpers.mjs'

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
  assert.deepEqual(res.data, {
    id: 9,
    name: 'The "Best" Co',
    country: null,
    email: null,
    active: true,
    created_at: '2023-09-09T09:09:09.123456+00:00',
  })
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
