// supabase-js's createClient(url, anonKey), as a Supabase app makes it,
// against pgrest under /rest/v1: from(), rpc() and schema() go through
// its PostgREST client with the anon key as apikey and bearer token.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { supabase, supabaseAs, userToken, unique, ok, failed } from './helpers.mjs'

test("from('clients').select() through createClient", async () => {
  const res = await supabase.from('clients').select('id, name').order('id').limit(3)
  ok(res)
  assert.deepEqual(res.data, [
    { id: 1, name: 'Acme Corp' },
    { id: 2, name: 'Globex' },
    { id: 3, name: 'Initech' },
  ])
})

test('the anon key is a token for the anonymous role', async () => {
  const res = await supabase.rpc('whoami')
  ok(res)
  assert.equal(res.data, 'web_anon')
})

test("a signed-in user's token replaces the anon key", async () => {
  const client = supabaseAs(userToken)
  const who = await client.rpc('whoami')
  ok(who)
  assert.equal(who.data, 'webuser')
  const sub = await client.rpc('jwt_sub')
  ok(sub)
  assert.equal(sub.data, 'client-suite')
  const notes = await client.from('member_notes').select('id').order('id')
  ok(notes)
  assert.deepEqual(notes.data, [{ id: 1 }, { id: 2 }, { id: 3 }])
})

test('insert() and select() of the row written', async () => {
  const slug = unique('supabase')
  const res = await supabase.from('notes').insert({ slug, title: 'from supabase-js' }).select('slug, title').single()
  ok(res, 201)
  assert.deepEqual(res.data, { slug, title: 'from supabase-js' })
  const back = await supabase.from('notes').select('title').eq('slug', slug)
  ok(back)
  assert.deepEqual(back.data, [{ title: 'from supabase-js' }])
})

test('rpc() with arguments', async () => {
  const res = await supabase.rpc('add_numbers', { a: 20, b: 22 })
  ok(res)
  assert.equal(res.data, 42)
})

test("schema('v2') reads another exposed schema", async () => {
  const res = await supabase.schema('v2').rpc('project_titles')
  ok(res)
  assert.ok(Array.isArray(res.data) && res.data.length > 0, JSON.stringify(res.data))
})

test('an error reaches the app in the contract', async () => {
  failed(await supabase.from('no_such_table').select(), 404, 'PGRST205')
  failed(await supabase.rpc('webuser_secret'), 401, '42501')
})
