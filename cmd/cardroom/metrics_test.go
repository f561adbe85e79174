package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// catalogue is deploy/observability/metrics.txt: the metric families the
// dashboards and alerts may name, each with the test that proves it.
const catalogue = "../../deploy/observability/metrics.txt"

// family is one row of the catalogue.
type family struct {
	name, proof, expect string
}

func readCatalogue(t *testing.T) []family {
	t.Helper()
	raw, err := os.ReadFile(catalogue)
	if err != nil {
		t.Fatal(err)
	}
	var out []family
	for line := range strings.Lines(string(raw)) {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 3 {
			t.Fatalf("%s: want family, proof, expectation: %q", catalogue, line)
		}
		out = append(out, family{f[0], f[1], f[2]})
	}
	return out
}

// samples is one scrape of /metrics: each series (name{labels}) and its
// value.
type samples map[string]float64

// scrape reads the suite's /metrics.
func (s *suite) scrape() samples {
	s.t.Helper()
	resp, err := http.Get(s.metrics + "/metrics")
	if err != nil {
		s.t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		s.t.Fatalf("scrape: %d %s", resp.StatusCode, b)
	}
	out := samples{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			s.t.Fatalf("scrape: bad sample %q", line)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		s.t.Fatalf("scrape: %v", err)
	}
	return out
}

// sum adds the values of the series of metric name (exactly: a histogram
// is asked for as name_count or name_sum) whose labels contain every one
// of labels (`key="value"`); found is false when there is none.
func (m samples) sum(name string, labels ...string) (total float64, found bool) {
	for series, v := range m {
		metric, rest, _ := strings.Cut(series, "{")
		if metric != name {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(rest, l)
		}
		if ok {
			total, found = total+v, true
		}
	}
	return total, found
}

// checkCatalogue checks every family the catalogue says proof proves
// against the scrape m: present, moved (above zero; a histogram by its
// _count) or zero.
func checkCatalogue(t *testing.T, m samples, proof string) {
	t.Helper()
	checked := 0
	for _, f := range readCatalogue(t) {
		if f.proof != proof {
			continue
		}
		checked++
		name := f.name
		if _, ok := m.sum(name); !ok {
			if _, hist := m.sum(name + "_count"); hist {
				name += "_count"
			}
		}
		v, ok := m.sum(name)
		switch {
		case !ok:
			t.Errorf("/metrics after the %s has no %s", proof, f.name)
		case f.expect == "moved" && v <= 0:
			t.Errorf("/metrics after the %s: %s = %v, want it moved", proof, name, v)
		case f.expect == "zero" && v != 0:
			t.Errorf("/metrics after the %s: %s = %v, want 0", proof, name, v)
		}
	}
	if checked == 0 {
		t.Fatalf("the catalogue lists no family proved by the %s", proof)
	}
}
