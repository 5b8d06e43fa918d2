// Shared by the client tests: postgrest-js clients for the server that
// tests/client/server started (PGREST_URL), anonymous and as webuser.
import assert from 'node:assert/strict'
import { PostgrestClient } from '@supabase/postgrest-js'
import { succeeded } from './checks.mjs'

export { failed, unique } from './checks.mjs'

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

// recording is a client (anonymous, or with a bearer token) whose requests
// are kept in requests: method, URL (decoded), the headers as an object and
// the body. For tests of what postgrest-js sends, and for reporting a call
// pgrest answers differently from PostgREST.
export const recording = (token) => {
  const requests = []
  const fetchAndRecord = (input, init = {}) => {
    requests.push({
      method: init.method ?? 'GET',
      url: decodeURIComponent(String(input)),
      headers: Object.fromEntries(new Headers(init.headers)),
      body: init.body ?? null,
    })
    return fetch(input, init)
  }
  const headers = token ? { Authorization: `Bearer ${token}` } : {}
  return { client: new PostgrestClient(url, { headers, fetch: fetchAndRecord }), requests }
}

// byId sorts rows by their id, for reads that ask for no order (and so
// guarantee none).
export const byId = (rows) => [...rows].sort((a, b) => a.id - b.id)

// ids are the rows' ids in the order given.
export const ids = (rows) => rows.map((r) => r.id)

// range is the integers from first to last.
export const range = (first, last) => Array.from({ length: last - first + 1 }, (_, i) => first + i)

// ok checks a successful response: no error, the status, and no count
// (none was asked for).
export const ok = (res, status = 200) => {
  succeeded(res, status)
  assert.equal(res.count, null)
}

// counted checks a successful response carrying a count.
export const counted = (res, count, status = 200) => {
  succeeded(res, status)
  assert.equal(res.count, count)
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

// CLIENT_9 is client 9 as the API returns it: NULLs, a char(2) column left
// NULL and a timestamp with microseconds.
export const CLIENT_9 = {
  id: 9,
  name: 'The "Best" Co',
  country: null,
  email: null,
  active: true,
  created_at: '2023-09-09T09:09:09.123456+00:00',
}
