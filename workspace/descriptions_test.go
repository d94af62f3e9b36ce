package workspace

import "testing"

func TestParseAPISource(t *testing.T) {
	for in, want := range map[string]APISource{
		"crm=api/crm.yaml":                        {ServiceID: "crm", Location: "api/crm.yaml"},
		"crm=https://crm.example.test/o.json?a=b": {ServiceID: "crm", Location: "https://crm.example.test/o.json?a=b"},
		"https://crm.example.test/o.json?a=b":     {Location: "https://crm.example.test/o.json?a=b"},
		"api/all.yaml":                            {Location: "api/all.yaml"},
	} {
		got, err := ParseAPISource(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "crm="} {
		if _, err := ParseAPISource(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
