package openapi

import (
	"bytes"
	"encoding/json"
)

// object is a JSON object that keeps its members in the order they were
// added: paths, definitions and properties read in schema order (the
// root first, columns in attribute order), as PostgREST writes them, where
// a Go map would sort them.
type object []member

type member struct {
	key   string
	value any
}

func (o *object) add(key string, value any) { *o = append(*o, member{key, value}) }

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encode(&b, m.key); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := encode(&b, m.value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: PostgREST's notes in
// descriptions ("<pk/>", "<fk table='t' column='c'/>") stay readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encode(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}
