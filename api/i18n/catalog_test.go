package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// idRE is the shape of a message id: dotted lowercase words ("day.paid_caps", "charges.n_charges_n").
var idRE = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)+$`)

// catalogRecv reports whether e is a catalog value by the names the code gives them (tr, cu,
// cust, pt, en, x.tr, x.cust, catalog{...}).
func catalogRecv(e ast.Expr) bool {
	switch r := e.(type) {
	case *ast.Ident:
		switch r.Name {
		case "tr", "cu", "cust", "pt", "en":
			return true
		}
	case *ast.SelectorExpr:
		return r.Sel.Name == "tr" || r.Sel.Name == "cust"
	case *ast.CompositeLit:
		id, ok := r.Type.(*ast.Ident)
		return ok && id.Name == "catalog"
	case *ast.ParenExpr:
		return catalogRecv(r.X)
	}
	return false
}

// use is one message asked for by the code: its id or, for a call not converted, its text.
type use struct {
	text, pos string
	plural    bool // asked through N
}

// scan reads the module's non-test Go files outside this package: every string literal, and
// every literal first argument of a catalog's T, F and N (and of the key help h("k", "desc")).
func scan(t *testing.T) (lits map[string]bool, uses []use) {
	t.Helper()
	lits = map[string]bool{}
	fset := token.NewFileSet()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || p == filepath.Join(root, "api", "i18n")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
					lits[s] = true
				}
			case *ast.CallExpr:
				var arg ast.Expr
				plural := false
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					if catalogRecv(fn.X) && len(n.Args) > 0 && (fn.Sel.Name == "T" || fn.Sel.Name == "F" || fn.Sel.Name == "N") {
						arg, plural = n.Args[0], fn.Sel.Name == "N"
					}
				case *ast.Ident:
					if fn.Name == "h" && len(n.Args) == 2 && filepath.Base(p) == "keys.go" {
						arg = n.Args[1]
					}
				}
				if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					uses = append(uses, use{text: s, pos: fset.Position(lit.Pos()).String(), plural: plural})
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) < 500 {
		t.Fatalf("found only %d catalog calls: the scan is broken", len(uses))
	}
	return lits, uses
}

// TestEveryMessageHasPortuguese: every id the code asks for is in both tables, as the kind of
// message it is asked as (plural through N, plain through T and F); a call with English text
// instead of an id was not converted (run catalogconv).
func TestEveryMessageHasPortuguese(t *testing.T) {
	_, uses := scan(t)
	var bad []string
	for _, u := range uses {
		if !idRE.MatchString(u.text) {
			bad = append(bad, u.pos+": "+strconv.Quote(u.text)+" is text, not an id (run catalogconv)")
			continue
		}
		for _, l := range []Lang{English, Portuguese} {
			m, ok := tables[l][u.text]
			switch {
			case !ok:
				bad = append(bad, u.pos+": "+u.text+" missing from the "+string(l)+" table")
			case u.plural && m.One == "":
				bad = append(bad, u.pos+": "+u.text+" is asked through N but has no One form in "+string(l))
			case !u.plural && m.One != "":
				bad = append(bad, u.pos+": "+u.text+" is a plural message asked through T or F")
			}
		}
	}
	for id := range messagesEN {
		if _, ok := messagesPTBR[id]; !ok {
			bad = append(bad, id+" has no pt-BR text")
		}
	}
	for id := range messagesPTBR {
		if _, ok := messagesEN[id]; !ok {
			bad = append(bad, id+" is in the pt-BR table only")
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Fatalf("%d missing message(s):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestNoUnusedCatalogEntries: every id of the tables is asked for by the code (an id is used
// when it is a string literal of the module's code; a "text." id when its English text is).
// A stale entry hides a missing translation of the text that replaced it.
func TestNoUnusedCatalogEntries(t *testing.T) {
	lits, _ := scan(t)
	var unused []string
	for id, m := range messagesEN {
		if !idRE.MatchString(id) {
			unused = append(unused, strconv.Quote(id)+" is not an id")
		}
		if strings.HasPrefix(id, TextPrefix) {
			if !lits[m.Other] {
				unused = append(unused, id+" ("+strconv.Quote(m.Other)+" is no literal of the code)")
			}
			continue
		}
		if !lits[id] {
			unused = append(unused, id)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Fatalf("%d catalog entr(ies) no code asks for:\n%s", len(unused), strings.Join(unused, "\n"))
	}
}

// TestNoCollidingIDs: an id is defined once per table (the old catalog keyed by English text
// let the first of two tables win, and the Sales table said PAGO for PAGAS); a "text." id is
// found by its English text, so two of them must not share one.
func TestNoCollidingIDs(t *testing.T) {
	for file, name := range map[string]string{"messages_en.go": "messagesEN", "messages_ptbr.go": "messagesPTBR"} {
		af, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		n := 0
		ast.Inspect(af, func(node ast.Node) bool {
			vs, ok := node.(*ast.ValueSpec)
			if !ok || vs.Names[0].Name != name {
				return true
			}
			for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
				id, _ := strconv.Unquote(e.(*ast.KeyValueExpr).Key.(*ast.BasicLit).Value)
				if seen[id] {
					t.Errorf("%s: id %q twice", file, id)
				}
				seen[id] = true
				n++
			}
			return false
		})
		if n < 500 {
			t.Fatalf("%s: read only %d ids", file, n)
		}
	}
	byEnglish := map[string]string{}
	for id, m := range messagesEN {
		if !strings.HasPrefix(id, TextPrefix) {
			continue
		}
		if other, ok := byEnglish[m.Other]; ok {
			t.Errorf("%s and %s both stand for %q", id, other, m.Other)
		}
		byEnglish[m.Other] = id
	}
}

// TestPortugueseKeepsFormatVerbs: a translation has the English text's format verbs.
func TestPortugueseKeepsFormatVerbs(t *testing.T) {
	verbs := regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z%]`)
	same := func(a, b string) bool {
		x, y := verbs.FindAllString(a, -1), verbs.FindAllString(b, -1)
		sort.Strings(x)
		sort.Strings(y)
		return strings.Join(x, " ") == strings.Join(y, " ")
	}
	for id, e := range messagesEN {
		p := messagesPTBR[id]
		if !same(e.Other, p.Other) || (e.One != "" && !same(e.One, p.One)) {
			t.Errorf("%s: %q → %q: format verbs differ", id, e.Other, p.Other)
		}
	}
}

// The Sales table's PAID column counts charges (PAGAS); a charge's state is PAGO: two ids.
func TestSameEnglishTwoMeanings(t *testing.T) {
	pt := For(Portuguese)
	if got := pt.T("day.paid_caps"); got != "PAGAS" {
		t.Errorf("day.paid_caps = %q, want PAGAS", got)
	}
	if got := pt.Text("PAID"); got != "PAGO" {
		t.Errorf("PAID as a state = %q, want PAGO", got)
	}
	if got := For(English).T("day.paid_caps"); got != "PAID" {
		t.Errorf("day.paid_caps in English = %q", got)
	}
	if got := pt.T("no such id"); got != "no such id" {
		t.Errorf("unknown id = %q", got)
	}
	if got := For("fr").T("day.paid_caps"); got != "PAID" {
		t.Errorf("unknown language = %q", got)
	}
}
