// supabase-js 2.x's supabase.channel(...) against pgrest's realtime
// socket (realtime_enabled), which the launcher serves at
// /realtime/v1/websocket beside /rest/v1 from the same handler:
// broadcast, presence, postgres_changes under row-level security with
// writes through the REST API and in SQL, token expiry and refresh, and
// the resume of postgres_changes after a dropped connection.
// The realtime fixture (tests/fixtures/realtime_grants.sql) publishes
// api.rt_todos, each user's rows visible to that user only.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'
import { supabaseUrl, anonKey, unique } from './helpers.mjs'
import { startProxy, within } from './proxy.mjs'

const secret = process.env.PGREST_JWT_SECRET
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')

// sign makes an HS256 token with the server's secret.
const sign = (claims) => {
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

// tokenFor is a token of webuser for sub, valid for seconds.
const tokenFor = (sub, seconds = 3600) =>
  sign({ role: 'webuser', sub, exp: Math.floor(Date.now() / 1000) + seconds })

const clients = []
// client is a Supabase client whose token is what token() returns now
// (supabase-js's accessToken option, as an app with its own auth
// passes it), or the anon key. It waits for realtime to have the token:
// createClient hands it over asynchronously, and a channel subscribed
// before that would join with the anon key (realtime-js fixes a join's
// payload when it subscribes).
const client = async (token, url = supabaseUrl) => {
  const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }, db: { schema: 'api' } }
  if (token) options.accessToken = async () => token()
  const c = createClient(url, anonKey, options)
  clients.push(c)
  await c.realtime.setAuth()
  return c
}
after(async () => {
  for (const c of clients) await c.removeAllChannels()
})

// subscribed subscribes a channel and resolves once SUBSCRIBED.
const subscribed = (channel) =>
  within(new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(channel)
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status))
    })
  }), 'subscription')

// queue collects a channel's events for next() to take in order.
const queue = () => {
  const items = []
  const waiters = []
  return {
    push: (x) => (waiters.length ? waiters.shift()(x) : items.push(x)),
    next: (what) => within(new Promise((resolve) => (items.length ? resolve(items.shift()) : waiters.push(resolve))), what),
  }
}

test('broadcast between two clients', async () => {
  const topic = unique('room')
  const got = queue()
  const a = (await client()).channel(topic).on('broadcast', { event: 'ping' }, (m) => got.push(m))
  const b = (await client()).channel(topic, { config: { broadcast: { ack: true } } })
  await subscribed(a)
  await subscribed(b)
  assert.equal(await b.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } }), 'ok')
  const m = await got.next('broadcast')
  assert.equal(m.event, 'ping')
  assert.deepEqual(m.payload, { n: 1 })
})

test('broadcast with self, on protocol 1.0.0', async () => {
  const topic = unique('room')
  const c = createClient(supabaseUrl, anonKey, {
    auth: { persistSession: false }, realtime: { vsn: '1.0.0' },
  })
  clients.push(c)
  const got = queue()
  const ch = c.channel(topic, { config: { broadcast: { self: true } } }).on('broadcast', { event: 'echo' }, (m) => got.push(m))
  await subscribed(ch)
  await ch.send({ type: 'broadcast', event: 'echo', payload: { back: true } })
  assert.deepEqual((await got.next('own broadcast')).payload, { back: true })
})

test('presence: join, state and leave', async () => {
  const topic = unique('room')
  const joins = queue()
  const leaves = queue()
  const a = (await client()).channel(topic, { config: { presence: { key: 'alice' } } })
  const b = (await client()).channel(topic, { config: { presence: { key: 'bob' } } })
  b.on('presence', { event: 'join' }, (e) => joins.push(e)).on('presence', { event: 'leave' }, (e) => leaves.push(e))
  await subscribed(b)
  await subscribed(a)
  assert.equal(await a.track({ online: true }), 'ok')
  let e
  do e = await joins.next('presence join'); while (e.key !== 'alice')
  assert.equal(e.newPresences[0].online, true)
  assert.deepEqual(Object.keys(b.presenceState()).sort(), ['alice'])
  await a.untrack()
  do e = await leaves.next('presence leave'); while (e.key !== 'alice')
})

// secondNode is the same site on a second pgrest node on the same
// database (the launcher starts it): another realtime node.
const secondNode = process.env.PGREST_SECOND_NODE_URL

test('broadcast and presence between clients on two nodes', async () => {
  assert.ok(secondNode, 'PGREST_SECOND_NODE_URL is not set')
  const topic = unique('room')
  const got = queue()
  const joins = queue()
  const a = (await client(null, supabaseUrl)).channel(topic, { config: { presence: { key: 'on-node-1' } } })
  const b = (await client(null, secondNode)).channel(topic, { config: { presence: { key: 'on-node-2' } } })
    .on('broadcast', { event: 'across' }, (m) => got.push(m))
    .on('presence', { event: 'join' }, (e) => joins.push(e))
  await subscribed(b)
  await subscribed(a)
  // Node 1's listener may still be connecting when the test starts: a
  // sends until b hears.
  let heard = false
  const sending = (async () => {
    while (!heard) {
      await a.send({ type: 'broadcast', event: 'across', payload: { from: 'node 1' } })
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
  })()
  const m = await got.next('broadcast from the other node')
  heard = true
  await sending
  assert.deepEqual(m.payload, { from: 'node 1' })
  assert.equal(await a.track({ node: 1 }), 'ok')
  let e
  do e = await joins.next('presence from the other node'); while (e.key !== 'on-node-1')
  assert.equal(e.newPresences[0].node, 1)
})

test('postgres_changes: each user hears of their own rows, written through REST or SQL', async () => {
  const u1 = unique('u1')
  const u2 = unique('u2')
  const c1 = await client(() => tokenFor(u1))
  const c2 = await client(() => tokenFor(u2))
  const got1 = queue()
  const got2 = queue()
  const spec = { event: '*', schema: 'api', table: 'rt_todos' }
  await subscribed(c1.channel(unique('todos')).on('postgres_changes', spec, (p) => got1.push(p)))
  await subscribed(c2.channel(unique('todos')).on('postgres_changes', spec, (p) => got2.push(p)))

  // INSERT, UPDATE and DELETE through the REST API.
  const ins = await c1.from('rt_todos').insert({ title: 'first' }).select().single()
  assert.equal(ins.error, null)
  let p = await got1.next('insert')
  assert.equal(p.eventType, 'INSERT')
  assert.equal(p.new.title, 'first')
  assert.equal(p.new.owner, u1)
  assert.equal((await c1.from('rt_todos').update({ done: true }).eq('id', ins.data.id)).error, null)
  p = await got1.next('update')
  assert.equal(p.eventType, 'UPDATE')
  assert.equal(p.new.done, true)
  assert.equal((await c1.from('rt_todos').delete().eq('id', ins.data.id)).error, null)
  p = await got1.next('delete')
  assert.equal(p.eventType, 'DELETE')
  assert.equal(p.old.id, ins.data.id)

  // u2's own insert reaches u2, and none of u1's inserts or updates
  // did. (Deletes reach every subscriber with the key only: row-level
  // security cannot be checked on a row that is gone, as in Supabase.)
  assert.equal((await c2.from('rt_todos').insert({ title: 'second' })).error, null)
  let p2
  do p2 = await got2.next('u2 insert'); while (p2.eventType === 'DELETE' && Object.keys(p2.old).length === 1)
  assert.equal(p2.new.title, 'second')
  assert.equal((await c1.from('rt_todos').insert({ title: 'third' })).error, null)
  assert.equal((await got1.next('u1 insert')).new.title, 'third')
})

test('postgres_changes with a filter', async () => {
  const u = unique('u')
  const c = await client(() => tokenFor(u))
  const got = queue()
  await subscribed(c.channel(unique('todos')).on('postgres_changes',
    { event: 'INSERT', schema: 'api', table: 'rt_todos', filter: 'title=eq.wanted' }, (p) => got.push(p)))
  assert.equal((await c.from('rt_todos').insert([{ title: 'unwanted' }, { title: 'wanted' }])).error, null)
  assert.equal((await got.next('filtered insert')).new.title, 'wanted')
})

test('an expiring token closes the channel with Supabase\'s message; a refreshed one keeps it', async () => {
  const u = unique('u')
  let current = tokenFor(u, 3)
  const c = await client(() => current)
  const system = queue()
  const closed = queue()
  const ch = c.channel(unique('room')).on('system', {}, (m) => system.push(m))
  ch.subscribe((status) => { if (status === 'CLOSED') closed.push(status) })
  await within(new Promise((resolve) => { const t = setInterval(() => { if (ch.state === 'joined') { clearInterval(t); resolve() } }, 50) }), 'join')
  const m = await system.next('system message')
  assert.equal(m.status, 'error')
  assert.match(m.message, /^Token has expired \d+ seconds ago$/)
  assert.equal(await closed.next('close'), 'CLOSED')

  // Refreshed before expiry: the channel lives on past the first token's exp.
  let next = tokenFor(u, 3)
  const c2 = await client(() => next)
  const got = queue()
  const kept = c2.channel(unique('room'), { config: { broadcast: { self: true, ack: true } } })
    .on('broadcast', { event: 'after' }, (x) => got.push(x))
  await subscribed(kept)
  next = tokenFor(u, 3600)
  await c2.realtime.setAuth()
  await new Promise((resolve) => setTimeout(resolve, 4500))
  assert.equal(kept.state, 'joined')
  assert.equal(await kept.send({ type: 'broadcast', event: 'after', payload: { ok: 1 } }), 'ok')
  assert.deepEqual((await got.next('broadcast after refresh')).payload, { ok: 1 })
})

// subscribedAgain waits for the next SUBSCRIBED among a channel's
// subscribe statuses (realtime-js reports one at each rejoin).
const subscribedAgain = async (statuses) => {
  for (;;) {
    const s = await statuses.next('SUBSCRIBED after the reconnect')
    if (s === 'SUBSCRIBED') return
  }
}

test('postgres_changes resume after a dropped socket: realtime-js reconnects and gets what it missed, once, in order', async (t) => {
  const u = unique('resume')
  const tok = tokenFor(u)
  // The subscriber reaches the node through a proxy that cuts its
  // connection; the writer goes straight to the node.
  const proxy = await startProxy(supabaseUrl)
  t.after(() => proxy.close())
  const sub = await client(() => tok, proxy.url)
  const writer = await client(() => tok)
  const titles = queue()
  const statuses = queue()
  const ch = sub.channel(unique('todos'))
    .on('postgres_changes', { event: 'INSERT', schema: 'api', table: 'rt_todos' }, (p) => titles.push(p.new.title))
  ch.subscribe((status) => statuses.push(status))
  await subscribedAgain(statuses)
  const insert = async (title) => assert.equal((await writer.from('rt_todos').insert({ title })).error, null)
  const expectTitles = async (...want) => {
    for (const w of want) assert.equal(await titles.next(`the insert of ${w}`), w)
  }
  await insert('before-1')
  await expectTitles('before-1')

  // The connection drops without phx_leave; rows are written while the
  // client cannot reconnect (its attempts wait at the proxy).
  await proxy.cut()
  for (const title of ['missed-1', 'missed-2', 'missed-3']) await insert(title)
  proxy.resume()

  // realtime-js reconnects and rejoins by itself.
  await subscribedAgain(statuses)
  await expectTitles('missed-1', 'missed-2', 'missed-3')
  await insert('live-1')
  await expectTitles('live-1')
  // Nothing came twice: the next change is the next insert.
  await insert('live-2')
  await expectTitles('live-2')
  await sub.removeAllChannels()
})
