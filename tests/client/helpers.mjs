// Shared by the client tests: postgrest-js clients for the server that
// tests/client/server started (PGREST_URL), anonymous and as webuser.
import assert from 'node:assert/strict'
import { PostgrestClient } from '@supabase/postgrest-js'

export const url = process.env.PGREST_URL
assert.ok(url, 'PGREST_URL is not set: run the suite with `make test-client` or `go run ./tests/client/server`')

export const userToken = process.env.PGREST_USER_TOKEN
assert.ok(userToken, 'PGREST_USER_TOKEN is not set')

// anon sends no token: requests run as db_anon_role (web_anon).
export const anon = new PostgrestClient(url)

// user sends a token for the role webuser.
export const user = new PostgrestClient(url, {
  headers: { Authorization: `Bearer ${userToken}` },
})

// withToken is a client sending an arbitrary Authorization bearer token.
export const withToken = (token) =>
  new PostgrestClient(url, { headers: { Authorization: `Bearer ${token}` } })

// byId sorts rows by their id: reads have no order until order= lands, and
// an unordered read guarantees none.
export const byId = (rows) => [...rows].sort((a, b) => a.id - b.id)

// ok checks a successful response: no error, the status, and no count
// (none was asked for).
export const ok = (res, status = 200) => {
  assert.equal(res.error, null, `unexpected error: ${JSON.stringify(res.error)}`)
  assert.equal(res.status, status)
  assert.equal(res.count, null)
}

// failed checks an error response: status, PGRST (or SQLSTATE) code, no data.
export const failed = (res, status, code) => {
  assert.equal(res.status, status, `status of ${JSON.stringify(res)}`)
  assert.equal(res.data, null)
  assert.ok(res.error, 'no error')
  assert.equal(res.error.code, code)
  return res.error
}

export const CLIENT_NAMES = [
  'Acme Corp',
  'Globex',
  'Initech',
  'Umbrella, Inc.',
  "O'Reilly Media",
  'Stark Industries (Holdings)',
  'Société Générale',
  '東京システム',
  'The "Best" Co',
]
