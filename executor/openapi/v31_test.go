package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToV31MovesEverySectionAndKeepsOrder(t *testing.T) {
	v2 := `{"swagger":"2.0","info":{"title":"t","version":"1"},"host":"api.example.com","basePath":"/rest/v1/","schemes":["https"],
"consumes":["application/json","text/csv"],"produces":["application/json"],
"paths":{"/b":{"post":{"produces":["text/csv"],"parameters":[{"$ref":"#/parameters/body.b"},{"$ref":"#/parameters/select"},
{"name":"ids","in":"query","type":"array","items":{"type":"integer"},"collectionFormat":"csv","required":false}],
"responses":{"201":{"description":"Created","schema":{"$ref":"#/definitions/b"}}}}},"/a":{"get":{"responses":{"200":{"description":"OK"}}}}},
"definitions":{"b":{"type":"object","properties":{"z":{"type":"integer","format":"bigint"},"a":{"type":"string"}}}},
"parameters":{"select":{"name":"select","in":"query","type":"string"},"body.b":{"name":"b","in":"body","required":false,"schema":{"$ref":"#/definitions/b"}}},
"securityDefinitions":{"JWT":{"type":"apiKey","in":"header","name":"Authorization"},"Basic":{"type":"basic"}},"security":[{"JWT":[]}]}`
	out, err := ToV31([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.com/rest/v1"}],"paths":{"/b":`,
		`"requestBody":{"$ref":"#/components/requestBodies/body.b"}`,
		`"parameters":[{"$ref":"#/components/parameters/select"},{"name":"ids","in":"query","style":"form","explode":false,"required":false,"schema":{"type":"array","items":{"type":"integer"}}}]`,
		`"responses":{"201":{"description":"Created","content":{"text/csv":{"schema":{"$ref":"#/components/schemas/b"}}}}}`,
		`"/a":{"get":{"responses":{"200":{"description":"OK"}}}}`,
		`"security":[{"JWT":[]}]`,
		`"components":{"schemas":{"b":{"type":"object","properties":{"z":{"type":"integer","format":"bigint"},"a":{"type":"string"}}}}`,
		`"parameters":{"select":{"name":"select","in":"query","schema":{"type":"string"}}}`,
		`"requestBodies":{"body.b":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/b"}},"text/csv":{"schema":{"$ref":"#/components/schemas/b"}}},"required":false}}`,
		`"securitySchemes":{"JWT":{"type":"apiKey","in":"header","name":"Authorization"},"Basic":{"type":"http","scheme":"basic"}}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the 3.1 document lacks\n%s\nin\n%s", want, s)
		}
	}
	if !json.Valid(out) {
		t.Fatal("not JSON")
	}
	for _, gone := range []string{"swagger", "basePath", "consumes", "produces", "definitions", "#/parameters/", `"in":"body"`, "collectionFormat"} {
		if strings.Contains(s, gone) {
			t.Errorf("the 3.1 document still has %q", gone)
		}
	}
}

func TestToV31WithoutHostIsRelative(t *testing.T) {
	out, err := ToV31([]byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"basePath":"/","schemes":["http"],"paths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"servers":[{"url":"/"}]`) {
		t.Errorf("servers in %s", out)
	}
}
