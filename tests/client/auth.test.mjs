// Authentication: no token runs as db_anon_role (web_anon), a token as its
// role claim. member_notes and webuser_secret() (tests/client/fixture.sql)
// are granted to webuser only.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { anon, user, withToken, byId, ok, failed } from './helpers.mjs'

const secret = process.env.PGREST_JWT_SECRET

// sign makes an HS256 token.
const sign = (claims, key = secret) => {
  const part = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`
}
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600

test('without a token requests run as web_anon, with no claims', async () => {
  const who = await anon.rpc('whoami')
  ok(who)
  assert.equal(who.data, 'web_anon')
  const sub = await anon.rpc('jwt_sub')
  ok(sub)
  assert.equal(sub.data, null)
})

test("a Bearer token for webuser runs as webuser and passes its claims", async () => {
  const who = await user.rpc('whoami')
  ok(who)
  assert.equal(who.data, 'webuser')
  const sub = await user.rpc('jwt_sub', {}, { get: true })
  ok(sub)
  assert.equal(sub.data, 'client-suite')

  const own = withToken(sign({ role: 'webuser', sub: 'signed-in-js', exp: inAnHour() }))
  assert.equal((await own.rpc('jwt_sub')).data, 'signed-in-js')
})

test('member_notes: 401 (42501) for the anonymous role, three notes for webuser', async () => {
  const denied = failed(await anon.from('member_notes').select(), 401, '42501')
  assert.equal(denied.message, 'permission denied for table member_notes')

  const res = await user.from('member_notes').select()
  ok(res)
  assert.deepEqual(byId(res.data), [
    { id: 1, body: 'Kick-off on Monday' },
    { id: 2, body: 'Budget review moved to Q3' },
    { id: 3, body: 'Release freeze starts 1 June' },
  ])
})

test("rpc('webuser_secret'): 401 when anonymous, 42 for webuser", async () => {
  const denied = failed(await anon.rpc('webuser_secret'), 401, '42501')
  assert.equal(denied.message, 'permission denied for function webuser_secret')

  const res = await user.rpc('webuser_secret')
  ok(res)
  assert.equal(res.data, 42)
})

test('a bad token is 401: PGRST301 for a bad signature, PGRST303 when expired', async () => {
  const garbage = failed(await withToken('abc.def.ghi').from('clients').select(), 401, 'PGRST301')
  assert.equal(garbage.message, 'JWT cryptographic operation failed')

  const wrongKey = sign({ role: 'webuser', exp: inAnHour() }, 'not-the-secret-not-the-secret-not-the-secret-!!')
  failed(await withToken(wrongKey).rpc('whoami'), 401, 'PGRST301')

  const expired = sign({ role: 'webuser', exp: Math.floor(Date.now() / 1000) - 3600 })
  const error = failed(await withToken(expired).rpc('whoami'), 401, 'PGRST303')
  assert.equal(error.message, 'JWT expired')
})
