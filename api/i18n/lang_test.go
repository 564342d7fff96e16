package i18n

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Lang
		ok   bool
	}{
		{"en", English, true}, {"EN", English, true}, {" pt-BR ", Portuguese, true}, {"pt", Portuguese, true},
		{"pt_BR", Portuguese, true}, {"PT-br", Portuguese, true}, {"fr", "", false}, {"", "", false}, {"pt-PT", "", false},
	} {
		if got, ok := Parse(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Lang
	}{
		{nil, English},
		{map[string]string{"LANG": "pt_BR.UTF-8"}, Portuguese},
		{map[string]string{"LANG": "pt_BR@euro"}, Portuguese},
		{map[string]string{"LC_MESSAGES": "pt_BR.UTF-8", "LANG": "en_US.UTF-8"}, Portuguese},
		{map[string]string{"LC_ALL": "C", "LANG": "pt_BR.UTF-8"}, English},
		{map[string]string{"LC_ALL": "pt_BR", "LC_MESSAGES": "en"}, Portuguese},
		{map[string]string{"LANG": "POSIX"}, English},
	} {
		if got := FromEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("FromEnv(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

// Plural forms follow CLDR through x/text, except that zero is plural in both languages.
func TestPluralForms(t *testing.T) {
	for _, tc := range []struct {
		l    Lang
		n    int
		want bool
	}{
		{English, 0, false}, {English, 1, true}, {English, 2, false}, {English, -1, true},
		{Portuguese, 0, false}, {Portuguese, 1, true}, {Portuguese, 2, false}, {Portuguese, 1000000, false},
	} {
		if got := For(tc.l).PluralOne(tc.n); got != tc.want {
			t.Errorf("%s PluralOne(%d) = %v", tc.l, tc.n, got)
		}
	}
}
