package realtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Serializer versions, as realtime-js's constants.ts names them: vsn
// 1.0.0 sends JSON objects, 2.0.0 (realtime-js's default) JSON arrays and
// binary broadcast frames.
const (
	vsn1 = "1.0.0"
	vsn2 = "2.0.0"
)

// message is one Phoenix message. JoinRef and Ref are kept as the client
// sent them (a string or null) and echoed in replies as they were.
type message struct {
	JoinRef json.RawMessage
	Ref     json.RawMessage
	Topic   string
	Event   string
	Payload json.RawMessage
	// binary holds a broadcast's payload that a binary frame carried with
	// the binary encoding (realtime-js's BINARY_ENCODING), which JSON
	// cannot hold; Payload then holds {"type","event"} only.
	binary []byte
	// isBinary says the broadcast's user payload is binary.
	isBinary bool
}

// null is a JSON null, the ref of a message the server pushes.
var null = json.RawMessage("null")

// errMalformed is a frame that is no Phoenix message.
var errMalformed = errors.New("malformed message")

// decodeText reads a text frame as the socket's serializer writes it.
func decodeText(vsn string, data []byte) (message, error) {
	var m message
	if vsn == vsn1 {
		var obj struct {
			JoinRef json.RawMessage `json:"join_ref"`
			Ref     json.RawMessage `json:"ref"`
			Topic   *string         `json:"topic"`
			Event   *string         `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return m, fmt.Errorf("%w: %v", errMalformed, err)
		}
		if obj.Topic == nil || obj.Event == nil {
			return m, fmt.Errorf("%w: topic and event are required", errMalformed)
		}
		m = message{JoinRef: obj.JoinRef, Ref: obj.Ref, Topic: *obj.Topic, Event: *obj.Event, Payload: obj.Payload}
	} else {
		var arr []json.RawMessage
		if err := json.Unmarshal(data, &arr); err != nil {
			return m, fmt.Errorf("%w: %v", errMalformed, err)
		}
		if len(arr) != 5 {
			return m, fmt.Errorf("%w: expected [join_ref, ref, topic, event, payload], got %d elements", errMalformed, len(arr))
		}
		m = message{JoinRef: arr[0], Ref: arr[1], Payload: arr[4]}
		if err := json.Unmarshal(arr[2], &m.Topic); err != nil {
			return m, fmt.Errorf("%w: topic is not a string", errMalformed)
		}
		if err := json.Unmarshal(arr[3], &m.Event); err != nil {
			return m, fmt.Errorf("%w: event is not a string", errMalformed)
		}
	}
	if len(m.JoinRef) == 0 {
		m.JoinRef = null
	}
	if len(m.Ref) == 0 {
		m.Ref = null
	}
	if len(bytes.TrimSpace(m.Payload)) == 0 || bytes.Equal(bytes.TrimSpace(m.Payload), null) {
		m.Payload = json.RawMessage("{}")
	}
	return m, nil
}

// Binary frame kinds and payload encodings of realtime-js's serializer.ts
// (KINDS, BINARY_ENCODING, JSON_ENCODING) and Supabase's V2 serializer
// (lib/realtime_web/socket/v2_serializer.ex).
const (
	kindUserBroadcastPush = 3
	kindUserBroadcast     = 4
	encodingBinary        = 0
	encodingJSON          = 1
)

// decodeBinary reads a userBroadcastPush frame: kind, the lengths of
// join_ref, ref, topic, user event and metadata, the payload's encoding,
// those fields, then the payload.
func decodeBinary(data []byte) (message, error) {
	const header = 7
	if len(data) < header || data[0] != kindUserBroadcastPush {
		return message{}, fmt.Errorf("%w: not a user broadcast push frame", errMalformed)
	}
	lens := []int{int(data[1]), int(data[2]), int(data[3]), int(data[4]), int(data[5])}
	enc := data[6]
	off := header
	fields := make([][]byte, len(lens))
	for i, n := range lens {
		if off+n > len(data) {
			return message{}, fmt.Errorf("%w: truncated binary frame", errMalformed)
		}
		fields[i] = data[off : off+n]
		off += n
	}
	payload := data[off:]
	m := message{Topic: string(fields[2]), Event: "broadcast", JoinRef: refJSON(fields[0]), Ref: refJSON(fields[1])}
	obj := map[string]any{"type": "broadcast", "event": string(fields[3])}
	if len(fields[4]) > 0 {
		var meta json.RawMessage
		if err := json.Unmarshal(fields[4], &meta); err != nil {
			return message{}, fmt.Errorf("%w: metadata is not JSON", errMalformed)
		}
		obj["meta"] = meta
	}
	switch enc {
	case encodingJSON:
		if !json.Valid(payload) {
			return message{}, fmt.Errorf("%w: payload is not JSON", errMalformed)
		}
		obj["payload"] = json.RawMessage(payload)
	case encodingBinary:
		m.binary, m.isBinary = bytes.Clone(payload), true
	default:
		return message{}, fmt.Errorf("%w: unknown payload encoding %d", errMalformed, enc)
	}
	m.Payload, _ = json.Marshal(obj)
	return m, nil
}

func refJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return null
	}
	out, _ := json.Marshal(string(b))
	return out
}

// encodeText writes a message as the socket's serializer does.
func encodeText(vsn string, joinRef, ref json.RawMessage, topic, event string, payload any) []byte {
	if joinRef == nil {
		joinRef = null
	}
	if ref == nil {
		ref = null
	}
	var out []byte
	var err error
	if vsn == vsn1 {
		out, err = json.Marshal(struct {
			JoinRef json.RawMessage `json:"join_ref"`
			Ref     json.RawMessage `json:"ref"`
			Topic   string          `json:"topic"`
			Event   string          `json:"event"`
			Payload any             `json:"payload"`
		}{joinRef, ref, topic, event, payload})
	} else {
		out, err = json.Marshal([]any{joinRef, ref, topic, event, payload})
	}
	if err != nil {
		// Every payload is built from decoded JSON; this is a bug.
		panic(fmt.Sprintf("realtime: encoding %s: %v", event, err))
	}
	return out
}

// encodeChange writes a postgres_changes push, {"ids":[…],"data":…},
// as encodeText would, without a pass of encoding/json over data: data is
// the change's payload, which the feed built as compact JSON once for
// every subscriber of a role, and a socket of each of them writes it.
// The frame is appended by hand around it (the topic alone goes through
// encoding/json, for its quoting).
func encodeChange(vsn, topic string, ids []uint32, data json.RawMessage) []byte {
	quoted, err := json.Marshal(topic)
	if err != nil {
		panic(fmt.Sprintf("realtime: encoding a topic: %v", err))
	}
	out := make([]byte, 0, len(data)+len(quoted)+96+8*len(ids))
	if vsn == vsn1 {
		out = append(out, `{"join_ref":null,"ref":null,"topic":`...)
		out = append(out, quoted...)
		out = append(out, `,"event":"postgres_changes","payload":{"ids":[`...)
	} else {
		out = append(out, `[null,null,`...)
		out = append(out, quoted...)
		out = append(out, `,"postgres_changes",{"ids":[`...)
	}
	for i, id := range ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendUint(out, uint64(id), 10)
	}
	out = append(out, `],"data":`...)
	out = append(out, data...)
	if vsn == vsn1 {
		return append(out, "}}"...)
	}
	return append(out, "}]"...)
}

// encodeUserBroadcast writes a binary broadcast as Supabase's V2
// serializer does (a userBroadcast frame): kind, the lengths of topic,
// user event and metadata, the encoding, those fields, the payload.
func encodeUserBroadcast(topic, event string, meta json.RawMessage, payload []byte) []byte {
	if len(topic) > 255 || len(event) > 255 || len(meta) > 255 {
		return nil
	}
	out := make([]byte, 0, 5+len(topic)+len(event)+len(meta)+len(payload))
	out = append(out, kindUserBroadcast, byte(len(topic)), byte(len(event)), byte(len(meta)), encodingBinary)
	out = append(out, topic...)
	out = append(out, event...)
	out = append(out, meta...)
	return append(out, payload...)
}
