package realtime

import (
	"encoding/json"
	"testing"
)

// TestDecodeText reads both serializers' frames, and refuses what is no
// Phoenix message.
func TestDecodeText(t *testing.T) {
	m, err := decodeText(vsn2, []byte(`["1","2","realtime:room","phx_join",{"config":{}}]`))
	if err != nil || string(m.JoinRef) != `"1"` || string(m.Ref) != `"2"` || m.Topic != "realtime:room" || m.Event != "phx_join" {
		t.Errorf("vsn 2: %+v %v", m, err)
	}
	m, err = decodeText(vsn1, []byte(`{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"3"}`))
	if err != nil || string(m.JoinRef) != "null" || string(m.Ref) != `"3"` || m.Topic != "phoenix" {
		t.Errorf("vsn 1: %+v %v", m, err)
	}
	for _, bad := range []string{`[1,2,3]`, `{"topic":1}`, `[null,null,1,"x",{}]`, `not json`, `{"event":"x"}`} {
		if _, err := decodeText(vsn2, []byte(bad)); err == nil && bad[0] == '[' {
			t.Errorf("vsn 2 took %s", bad)
		}
		if _, err := decodeText(vsn1, []byte(bad)); err == nil && bad[0] == '{' {
			t.Errorf("vsn 1 took %s", bad)
		}
	}
}

// TestBinaryFrames reads realtime-js's userBroadcastPush and writes
// Supabase's userBroadcast.
func TestBinaryFrames(t *testing.T) {
	push := []byte{3, 1, 1, 4, 2, 0, encodingJSON}
	push = append(push, "12roomev"...)
	push = append(push, `{"a":1}`...)
	m, err := decodeBinary(push)
	if err != nil || m.Topic != "room" || m.Event != "broadcast" || m.isBinary {
		t.Fatalf("%+v %v", m, err)
	}
	var p map[string]any
	_ = json.Unmarshal(m.Payload, &p)
	if p["event"] != "ev" || p["type"] != "broadcast" {
		t.Errorf("payload %s", m.Payload)
	}
	for _, bad := range [][]byte{{3, 9, 9}, {4, 0, 0, 0, 0, 0, 1}, {3, 0, 0, 0, 0, 0, 7}} {
		if _, err := decodeBinary(bad); err == nil {
			t.Errorf("took %v", bad)
		}
	}
	out := encodeUserBroadcast("t", "e", nil, []byte{9})
	if string(out) != string([]byte{4, 1, 1, 0, 0, 't', 'e', 9}) {
		t.Errorf("userBroadcast %v", out)
	}
}

// FuzzDecode: no frame makes the decoders panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`["1","2","realtime:room","phx_join",{}]`))
	f.Add([]byte{3, 1, 1, 4, 2, 0, 1, '1', '2', 'r', 'o', 'o', 'm', 'e', 'v', '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeText(vsn1, data)
		_, _ = decodeText(vsn2, data)
		_, _ = decodeBinary(data)
	})
}

// TestEncodeChange: a postgres_changes push written by hand is the JSON
// encodeText writes, for both serializers, a topic that needs quoting and
// one id or several.
func TestEncodeChange(t *testing.T) {
	data := json.RawMessage(`{"schema":"public","table":"t","eventType":"INSERT","new":{"a":"<b> & \"q\"","n":[1,2.5,null]},"errors":null}`)
	for _, vsn := range []string{vsn1, vsn2} {
		for _, ids := range [][]uint32{{1}, {3, 12, 4000000000}} {
			topic := "realtime:room \"é\" <x>"
			got := encodeChange(vsn, topic, ids, data)
			want := encodeText(vsn, null, null, topic, "postgres_changes", map[string]any{"ids": ids, "data": data})
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("vsn %s: %s is not JSON: %v", vsn, got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if string(gj) != string(wj) {
				t.Errorf("vsn %s, ids %v:\n got %s\nwant %s", vsn, ids, got, want)
			}
		}
	}
}
