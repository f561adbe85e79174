package config

import (
	"fmt"
	"reflect"
	"strings"
)

// Variable describes one environment variable: its name, its default as
// documentation shows it, and what it means.
type Variable struct {
	Name    string
	Default string
	Meaning string
	// Secret variables are never printed.
	Secret bool

	field    []string // path of Go field names inside Config
	hostPort bool     // Validate checks host:port (tag check:"hostport")
}

// Variables returns every variable Config reads, in declaration order. It
// is derived from Config's struct tags, so it cannot disagree with what
// Load actually reads.
func Variables() []Variable { return VariablesOf[Config]() }

// VariablesOf returns the variables that a struct read with the same tags
// (env, envDefault, docDefault, doc, secret) reads: services describe their own
// settings this way so that the README can list them too.
func VariablesOf[T any]() []Variable {
	var vars []Variable
	collect(reflect.TypeFor[T](), nil, &vars)
	return vars
}

func collect(t reflect.Type, path []string, vars *[]Variable) {
	for f := range t.Fields() {
		p := append(append([]string(nil), path...), f.Name)
		name := f.Tag.Get("env")
		if name == "" {
			if f.Type.Kind() == reflect.Struct {
				collect(f.Type, p, vars)
			}
			continue
		}
		def, ok := f.Tag.Lookup("docDefault")
		if !ok {
			def = f.Tag.Get("envDefault")
		}
		*vars = append(*vars, Variable{
			Name:     name,
			Default:  def,
			Meaning:  f.Tag.Get("doc"),
			Secret:   f.Tag.Get("secret") == "true",
			field:    p,
			hostPort: f.Tag.Get("check") == "hostport",
		})
	}
}

// TableOf returns vars as a Markdown table.
func TableOf(vars []Variable) string {
	var b strings.Builder
	b.WriteString("| Variable | Default | Meaning |\n")
	b.WriteString("|---|---|---|\n")
	for _, v := range vars {
		def := "`" + v.Default + "`"
		if strings.HasPrefix(v.Default, "(") {
			def = v.Default
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, def, strings.ReplaceAll(v.Meaning, "|", `\|`))
	}
	return b.String()
}
