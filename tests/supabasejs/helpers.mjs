// Shared by the supabasejs tests: the current postgrest-js and supabase-js
// (2.x) against the server tests/client/server started with
// PGREST_CLIENT_SUITE=supabasejs, which mounts pgrest under /rest/v1 as
// Supabase does. The data is the client suite's (tests/fixtures/read.sql
// and tests/client/fixture.sql).
//
// Files: postgrest.test.mjs (postgrest-js 2.x on its own),
// supabase.test.mjs (supabase-js's createClient with an anon key);
// explain.test.mjs is the place for .explain() against pgrest's plans.
import assert from 'node:assert/strict'
import { PostgrestClient } from '@supabase/postgrest-js'
import { createClient } from '@supabase/supabase-js'
import { succeeded } from '../client/checks.mjs'

export { failed, unique } from '../client/checks.mjs'

const need = (name) => {
  const v = process.env[name]
  assert.ok(v, `${name} is not set: run the suite with \`make test-client\` or \`PGREST_CLIENT_SUITE=supabasejs go run ./tests/client/server\``)
  return v
}

// url is pgrest's base URL, ending in /rest/v1; supabaseUrl is the site's,
// which supabase-js extends with /rest/v1 itself.
export const url = need('PGREST_URL')
export const supabaseUrl = need('PGREST_SUPABASE_URL')
export const userToken = need('PGREST_USER_TOKEN')
export const anonKey = need('PGREST_ANON_KEY')

// anon sends no token: requests run as db_anon_role (web_anon).
export const anon = new PostgrestClient(url)

// user sends a token for the role webuser.
export const user = new PostgrestClient(url, { headers: { Authorization: `Bearer ${userToken}` } })

// supabase is a Supabase client as an app makes one: the project URL and
// its anon key, which it sends as apikey and as the bearer token. No auth
// session is kept: these tests never sign in. supabase-js names its schema
// in every request (Accept-Profile), public unless told: the fixture's
// first schema is api.
const noSession = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }
const options = { auth: noSession, db: { schema: 'api' } }
export const supabase = createClient(supabaseUrl, anonKey, options)

// supabaseAs is a Supabase client whose requests carry token instead of
// the anon key, as after a sign-in.
export const supabaseAs = (token) =>
  createClient(supabaseUrl, anonKey, { ...options, global: { headers: { Authorization: `Bearer ${token}` } } })

// ok checks a successful response: no error and the status.
export const ok = succeeded
