// Columns and filters: select lists (aliases, casts, JSON paths) and every
// kind of filter postgrest-js writes, on the read fixture.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, byId, ids, range, ok } from './helpers.mjs'

test("select('id, name') returns only those keys", async () => {
  const res = await anon.from('clients').select('id, name')
  ok(res)
  assert.equal(res.data.length, 9)
  for (const row of res.data) {
    assert.deepEqual(Object.keys(row).sort(), ['id', 'name'])
  }
  assert.deepEqual(byId(res.data)[4], { id: 5, name: "O'Reilly Media" })
})

test("select('id, label:name, budget::text') renames and casts", async () => {
  const res = await anon.from('projects').select('id, label:name, budget::text').eq('id', 7)
  ok(res)
  assert.deepEqual(res.data, [{ id: 7, label: "O'Reilly publishing pipeline", budget: '45000.50' }])
})

test(".eq('client_id', 1) keeps Acme's projects", async () => {
  const res = await anon.from('projects').select('id').eq('client_id', 1)
  ok(res)
  assert.deepEqual(ids(byId(res.data)), [1, 2])
})

test(".gt('released_year', 2000) leaves out the NULL year", async () => {
  const res = await anon.from('films').select('id').gt('released_year', 2000)
  ok(res)
  assert.deepEqual(ids(byId(res.data)), [1, 4, 6, 7, 8])
})

test(".in('name', [...]) quotes commas and quotes", async () => {
  const res = await anon.from('clients').select('id')
    .in('name', ['Umbrella, Inc.', 'The "Best" Co', "O'Reilly Media"])
  ok(res)
  assert.deepEqual(ids(byId(res.data)), [4, 5, 9])
})

test(".like('title', '%backup') matches a suffix", async () => {
  const res = await anon.from('tasks').select('id').like('title', '%backup')
  ok(res)
  assert.deepEqual(ids(byId(res.data)), [49, 50, 51, 52, 53, 54])
})

test(".ilike('title', 'cleanup') ignores case", async () => {
  const res = await anon.from('tasks').select('id, title').ilike('title', 'cleanup')
  ok(res)
  assert.deepEqual(byId(res.data), [{ id: 59, title: 'Cleanup' }, { id: 60, title: 'cleanup' }])
})

test(".is('client_id', null) finds the internal projects", async () => {
  const res = await anon.from('projects').select('id').is('client_id', null)
  ok(res)
  assert.deepEqual(ids(byId(res.data)), [11, 12])
})

test('.contains() on a text[] and on a jsonb column', async () => {
  const tags = await anon.from('tasks').select('id').contains('tags', ['ops'])
  ok(tags)
  assert.deepEqual(ids(byId(tags.data)), [5, 11, 17, 23, 29, 35, 41, 47, 53, 56])

  const settings = await anon.from('projects').select('id').contains('settings', { color: 'green' })
  ok(settings)
  assert.deepEqual(ids(byId(settings.data)), [3, 6])
})

test(".overlaps('tags', ['urgent', 'ux'])", async () => {
  const res = await anon.from('tasks').select('id').overlaps('tags', ['urgent', 'ux'])
  ok(res)
  assert.deepEqual(ids(byId(res.data)),
    [2, 3, 8, 9, 14, 15, 20, 21, 26, 27, 32, 33, 38, 39, 44, 45, 50, 51])
})

test('.textSearch() plain and websearch', async () => {
  const plain = await anon.from('articles').select('id').textSearch('search', 'search', { config: 'english' })
  ok(plain)
  assert.deepEqual(ids(plain.data), [4])

  const web = await anon.from('articles').select('id')
    .textSearch('search', 'postgresql -production', { type: 'websearch', config: 'english' })
  ok(web)
  assert.deepEqual(ids(byId(web.data)), [1, 10])
})

test(".or('budget.gt.200000,client_id.is.null')", async () => {
  const res = await anon.from('projects').select('id').or('budget.gt.200000,client_id.is.null')
  ok(res)
  assert.deepEqual(ids(byId(res.data)), [2, 8, 11, 12])
})

test(".not('client_id', 'is', null)", async () => {
  const res = await anon.from('projects').select('id').not('client_id', 'is', null)
  ok(res)
  assert.deepEqual(ids(byId(res.data)), range(1, 10))
})

test('JSON paths: ->> and -> in select, ->> in a filter', async () => {
  const res = await anon.from('projects')
    .select('id, color:settings->>color, channel:settings->notify->slack->>channel').eq('id', 2)
  ok(res)
  assert.deepEqual(res.data, [{ id: 2, color: 'blue', channel: '#alpha' }])

  const green = await anon.from('projects').select('id').eq('settings->>color', 'green')
  ok(green)
  assert.deepEqual(ids(byId(green.data)), [3, 6])
})
