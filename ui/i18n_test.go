package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// catalogIDs collects every string literal passed to T or F in the package's non-test files.
func catalogIDs(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			arg := call.Args[0]
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if fn.Sel.Name != "T" && fn.Sel.Name != "F" {
					return true
				}
			case *ast.Ident:
				// h(key, desc) builds translated key help; labelled(...) translated labels.
				if fn.Name != "h" || len(call.Args) < 2 {
					return true
				}
				arg = call.Args[1]
			default:
				return true
			}
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, err := strconv.Unquote(lit.Value)
				if err == nil {
					ids[s] = fset.Position(lit.Pos()).String()
				}
			}
			return true
		})
	}
	return ids
}

// dynamicIDs are translated through variables (states, presets), so the scan cannot see them.
var dynamicIDs = []string{
	"pending", "paid", "expired", "failed", "cancelled", "unknown", "confirmed",
	"5 min", "15 min", "1 h", "24 h", "3 days", "7 days", "custom",
}

func TestEveryMessageHasPortuguese(t *testing.T) {
	var missing []string
	ids := catalogIDs(t)
	for _, id := range dynamicIDs {
		ids[id] = "dynamicIDs"
	}
	for id, pos := range ids {
		if !ptBRHas(id) {
			missing = append(missing, pos+": "+strconv.Quote(id))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("%d message(s) without a pt-BR translation:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

func TestPortugueseKeepsFormatVerbs(t *testing.T) {
	for _, table := range ptBRTables {
		for id, pt := range table {
			if strings.Count(id, "%") != strings.Count(pt, "%") {
				t.Errorf("%q → %q: format verbs differ", id, pt)
			}
		}
	}
}

func TestCatalogFallsBackToEnglish(t *testing.T) {
	pt := catalog{lang: LangPT}
	if got := pt.T("PAID"); got != "PAGO" {
		t.Fatalf("PAID in pt-BR = %q", got)
	}
	if got := (catalog{lang: LangEN}).T("PAID"); got != "PAID" {
		t.Fatalf("PAID in en = %q", got)
	}
	if got := pt.T("no such id"); got != "no such id" {
		t.Fatalf("unknown id = %q", got)
	}
}

// moduleLiterals collects every string literal of the module's non-test Go files outside the
// pt-BR catalog files: the ids the code can ask the catalog for (literals passed to T and F,
// help texts, states and enum names, messages of other packages that localMessage and
// serviceMessage meet).
func moduleLiterals(t *testing.T) map[string]bool {
	t.Helper()
	lits := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && n != "..") {
				return filepath.SkipDir
			}
			return nil
		}
		base := filepath.Base(p)
		if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") ||
			(filepath.Base(filepath.Dir(p)) == "ui" && strings.HasPrefix(base, "i18n_ptbr")) {
			return nil
		}
		af, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					lits[s] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lits
}

// A pt-BR entry whose English id appears nowhere in the code is dead: its text changed or went
// (a stale entry hides a missing translation of the new text). An id counts as used when it is
// any string literal of the module's code, so it never fails on a used entry; it may miss an
// entry whose id is also an unrelated literal.
func TestNoUnusedCatalogEntries(t *testing.T) {
	lits := moduleLiterals(t)
	for _, id := range dynamicIDs {
		lits[id] = true
	}
	var unused []string
	for _, table := range ptBRTables {
		for id := range table {
			if !lits[id] {
				unused = append(unused, strconv.Quote(id))
			}
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Fatalf("%d pt-BR catalog entr(ies) no code asks for:\n%s", len(unused), strings.Join(unused, "\n"))
	}
}
