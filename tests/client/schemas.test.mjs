// Schema switching: Accept-Profile on reads, Content-Profile on POST /rpc.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PostgrestClient } from '@supabase/postgrest-js'
import { url, anon, byId, ok, failed } from './helpers.mjs'

test("schema('v2').from('projects') reads v2's projects, not api's", async () => {
  const res = await anon.schema('v2').from('projects').select()
  ok(res)
  assert.deepEqual(byId(res.data), [
    { id: 1, title: 'Apollo', stage: 'beta', owner_email: 'apollo@v2.example' },
    { id: 2, title: 'Gemini', stage: 'alpha', owner_email: null },
    { id: 3, title: 'Mercury', stage: 'ga', owner_email: 'mercury@v2.example' },
    { id: 4, title: 'Voyager', stage: 'beta', owner_email: 'voyager@v2.example' },
  ])
})

test("new PostgrestClient(url, { schema: 'v2' }) reads v2.releases", async () => {
  const v2 = new PostgrestClient(url, { schema: 'v2' })
  const res = await v2.from('releases').select()
  ok(res)
  assert.deepEqual(
    byId(res.data).map((r) => [r.project_id, r.version, r.released_on]),
    [
      [1, '0.9.0', '2024-01-10'],
      [1, '1.0.0-rc.1', '2024-02-01'],
      [2, '0.1.0', '2024-02-15'],
      [3, '1.0.0', '2023-12-01'],
      [3, '1.1.0', '2024-03-01'],
      [4, '2.0.0-beta', null],
    ],
  )
  // api has no releases table.
  failed(await anon.from('releases').select(), 404, 'PGRST205')
})

test("schema('v2').rpc('project_titles') calls v2's function (Content-Profile)", async () => {
  const res = await anon.schema('v2').rpc('project_titles')
  ok(res)
  assert.deepEqual(res.data, ['Apollo', 'Gemini', 'Mercury', 'Voyager'])

  const inApi = await anon.rpc('project_titles')
  const error = failed(inApi, 404, 'PGRST202')
  assert.equal(error.message, 'Could not find the function api.project_titles without parameters in the schema cache')
})

test("schema('private') is PGRST106: only api and v2 are exposed", async () => {
  const res = await anon.schema('private').from('user_credentials').select()
  const error = failed(res, 406, 'PGRST106')
  assert.equal(error.message, 'Invalid schema: private')
  assert.equal(error.hint, 'Only the following schemas are exposed: api, v2')

  // Nor is private reachable from the default schema.
  const plain = await anon.from('user_credentials').select()
  assert.equal(failed(plain, 404, 'PGRST205').message,
    "Could not find the table 'api.user_credentials' in the schema cache")
})
