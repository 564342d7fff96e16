package state

import "testing"

func TestMaskDocument(t *testing.T) {
	for in, want := range map[string]string{
		"123.456.789-09":     "***.456.789-**",
		"12345678909":        "***.456.789-**",
		"12.345.678/0001-95": "**.345.678/****-**",
		"12345678000195":     "**.345.678/****-**",
		"":                   "",
		"1234":               "****",
		"123456":             "**3456",
		"abc":                "",
	} {
		if got := MaskDocument(in); got != want {
			t.Errorf("MaskDocument(%q) = %q, want %q", in, got, want)
		}
	}
}
