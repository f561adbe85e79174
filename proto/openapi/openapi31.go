package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	_ "embed"
)

//go:embed cardroom.openapi.json
var document31 []byte

// JSON31 returns the OpenAPI 3.1 document, the same API as JSON (Swagger
// 2.0) for client generators that want OpenAPI 3.x; the gateway serves it
// at GET /openapi3.json. Callers must not modify the returned slice.
func JSON31() []byte { return document31 }

// Convert31 rewrites the Swagger 2.0 document `make proto` generates as an
// OpenAPI 3.1 document: definitions become components.schemas (and every
// $ref follows), a body parameter becomes the requestBody, the other
// parameters' types move into their schema, responses get a JSON content
// entry, securityDefinitions become components.securitySchemes, and a
// schema's title that stands alone becomes its description (protoc-gen-
// openapiv2 puts a one-line comment in title), so every field a client
// needs carries a description. The output is stable: keys sorted, two
// spaces of indent, a final newline.
func Convert31(swagger []byte) ([]byte, error) {
	var sw map[string]any
	if err := json.Unmarshal(swagger, &sw); err != nil {
		return nil, fmt.Errorf("read Swagger 2.0: %w", err)
	}
	if sw["swagger"] != "2.0" {
		return nil, fmt.Errorf("not a Swagger 2.0 document: swagger = %v", sw["swagger"])
	}
	media := "application/json"
	if ps, ok := sw["produces"].([]any); ok && len(ps) > 0 {
		media, _ = ps[0].(string)
	}
	out := map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info":              sw["info"],
		"servers":           []any{map[string]any{"url": "/", "description": "the gateway that serves this document"}},
	}
	for _, k := range []string{"tags", "security", "externalDocs"} {
		if v, ok := sw[k]; ok {
			out[k] = v
		}
	}
	components := map[string]any{}
	if defs, ok := sw["definitions"].(map[string]any); ok {
		for _, s := range defs {
			schema(s)
		}
		components["schemas"] = defs
	}
	if sec, ok := sw["securityDefinitions"].(map[string]any); ok {
		schemes := map[string]any{}
		for name, d := range sec {
			s, err := securityScheme(d)
			if err != nil {
				return nil, fmt.Errorf("securityDefinitions.%s: %w", name, err)
			}
			schemes[name] = s
		}
		components["securitySchemes"] = schemes
	}
	out["components"] = components
	paths, _ := sw["paths"].(map[string]any)
	for p, item := range paths {
		ops, _ := item.(map[string]any)
		for method, o := range ops {
			op, ok := o.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("paths.%s.%s: not an operation", p, method)
			}
			if err := operation(op, media); err != nil {
				return nil, fmt.Errorf("paths.%s.%s: %w", p, method, err)
			}
		}
	}
	out["paths"] = paths
	refs(out)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// operation converts one operation in place.
func operation(op map[string]any, media string) error {
	params, _ := op["parameters"].([]any)
	kept := []any{}
	for _, x := range params {
		p, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("a parameter is not an object")
		}
		if p["in"] == "body" {
			s := p["schema"]
			schema(s)
			rb := map[string]any{"required": p["required"] == true, "content": map[string]any{media: map[string]any{"schema": s}}}
			if d, ok := p["description"]; ok {
				rb["description"] = d
			}
			op["requestBody"] = rb
			continue
		}
		s := map[string]any{}
		for _, k := range []string{"type", "format", "items", "enum", "default", "minimum", "maximum", "pattern", "maxLength", "minLength"} {
			if v, ok := p[k]; ok {
				s[k] = v
				delete(p, k)
			}
		}
		if cf, ok := p["collectionFormat"]; ok {
			delete(p, "collectionFormat")
			if cf == "multi" {
				p["style"], p["explode"] = "form", true
			}
		}
		schema(s)
		p["schema"] = s
		kept = append(kept, p)
	}
	if len(kept) > 0 {
		op["parameters"] = kept
	} else {
		delete(op, "parameters")
	}
	resps, _ := op["responses"].(map[string]any)
	for code, x := range resps {
		r, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("response %s is not an object", code)
		}
		if s, ok := r["schema"]; ok {
			delete(r, "schema")
			schema(s)
			r["content"] = map[string]any{media: map[string]any{"schema": s}}
		}
		if _, ok := r["description"]; !ok {
			r["description"] = ""
		}
	}
	return nil
}

// schema converts a schema in place, recursively: a lone title becomes the
// description, and Swagger's x-nullable the 3.1 type list.
func schema(x any) {
	s, ok := x.(map[string]any)
	if !ok {
		return
	}
	if t, ok := s["title"].(string); ok {
		if d, _ := s["description"].(string); strings.TrimSpace(d) == "" {
			s["description"] = t
			delete(s, "title")
		}
	}
	if s["x-nullable"] == true {
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
		delete(s, "x-nullable")
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		schema(s[k])
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			schema(p)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := s[k].([]any); ok {
			for _, e := range l {
				schema(e)
			}
		}
	}
}

// securityScheme converts a Swagger security definition.
func securityScheme(x any) (map[string]any, error) {
	d, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	switch d["type"] {
	case "apiKey":
		return d, nil
	case "basic":
		out := map[string]any{"type": "http", "scheme": "basic"}
		if v, ok := d["description"]; ok {
			out["description"] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("security type %v has no conversion here", d["type"])
}

// refs points every $ref at components.schemas.
func refs(x any) {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "$ref" {
				v[k] = strings.Replace(s, "#/definitions/", "#/components/schemas/", 1)
				continue
			}
			refs(e)
		}
	case []any:
		for _, e := range v {
			refs(e)
		}
	}
}
