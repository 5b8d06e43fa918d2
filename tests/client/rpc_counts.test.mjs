// Counts of function calls: rpc(..., { count }) and { head: true }, as
// PostgREST answers them. count=exact and count=estimated count a call's
// result exactly, one for a single value; count=planned gives none. The
// functions are the client suite's own, in tests/client/fixture.sql.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, counted, CLIENT_NAMES } from './helpers.mjs'

test("rpc(..., { count: 'exact' }) on a set of scalars counts them", async () => {
  const res = await anon.rpc('client_names', {}, { count: 'exact' })
  counted(res, CLIENT_NAMES.length)
  assert.deepEqual(res.data, CLIENT_NAMES)
})

test("rpc(..., { head: true, count: 'exact' }) counts without a body", async () => {
  const scalars = await anon.rpc('client_names', {}, { head: true, count: 'exact' })
  counted(scalars, CLIENT_NAMES.length)
  assert.equal(scalars.data, null)

  const rows = await anon.rpc('clients_in_country', { country_code: 'US' }, { head: true, count: 'exact' })
  counted(rows, 5)
  assert.equal(rows.data, null)
})

test("rpc(..., { count: 'exact' }) with a limit is a partial 206 with the total", async () => {
  const res = await anon
    .rpc('clients_in_country', { country_code: 'US' }, { count: 'exact' })
    .select('id')
    .order('id')
    .limit(2)
  counted(res, 5, 206)
  assert.deepEqual(res.data, [{ id: 1 }, { id: 2 }])
})

test("rpc(..., { count: 'exact' }) on a scalar counts one", async () => {
  const post = await anon.rpc('add_numbers', { a: 2, b: 3 }, { count: 'exact' })
  counted(post, 1)
  assert.equal(post.data, 5)

  const get = await anon.rpc('add_numbers', { a: 2, b: 3 }, { get: true, count: 'exact' })
  counted(get, 1)
  assert.equal(get.data, 5)
})

test("rpc(..., { count: 'estimated' }) counts a call exactly", async () => {
  const res = await anon.rpc('clients_in_country', { country_code: 'US' }, { count: 'estimated' }).select('id').limit(1)
  counted(res, 5, 206)
})

test("rpc(..., { count: 'planned' }) gives no count: there is no table to plan", async () => {
  const res = await anon.rpc('client_names', {}, { count: 'planned' })
  assert.equal(res.error, null)
  assert.equal(res.status, 200)
  // Content-Range 0-8/*: postgrest-js reads the unknown total as NaN, as it
  // does against PostgREST.
  assert.ok(Number.isNaN(res.count), `count ${res.count}`)
  assert.deepEqual(res.data, CLIENT_NAMES)
})
