package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkUIClientUses is TestArchitecture's rule that the dashboard reaches the service only
// through state/workflow: no non-test file under root/ui mentions api.Client or selects a
// Client field (sess.Client); and the rule catches what it forbids.
func checkUIClientUses(t *testing.T, root string) {
	t.Helper()
	uses, err := uiClientUses(root)
	if err != nil {
		t.Fatal(err)
	}
	offending := slices.Clone(uses)
	if len(offending) > 0 {
		slices.Sort(offending)
		t.Errorf("ui reaches the service's client instead of going through state/workflow:\n%s", strings.Join(offending, "\n"))
	}

	// The rule catches what it forbids, and lets the rest be.
	const bad = `package ui

import (
	"context"
	"net/http"

	pague "pixdash/api"
	"pixdash/state/workflow"
)

type view struct{ sess *workflow.Session; hc http.Client }

func (v *view) load(ctx context.Context) {
	c := v.sess.Client
	_, _ = c.GetAccount(ctx)
	_, _ = v.sess.Client.ListSubAccounts(ctx)
	_ = http.Client{}
}

func read(c *pague.Client) {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "ui/bad.go", bad, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got := clientUses(fset, f); len(got) != 3 {
		t.Errorf("%d uses found in a file with 3:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// uiClientUses lists, as "file:line: what" (file relative to root, with slashes), every place
// a non-test Go file under root/ui reaches the service's client around state/workflow.
func uiClientUses(root string) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, "ui"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); strings.HasPrefix(name, ".") || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, clientUses(fset, f)...)
		return nil
	})
	return out, err
}

// clientUses lists the places f reaches the service's client: a mention of pixdash/api's
// Client type (a *api.Client value, parameter or field, whatever the import's name), and a
// selection of a field or method named Client on anything but another package (sess.Client,
// m.app.sess.Client: the session's client, the way around the workflows). Without type
// information, a value of type *api.Client can only come from one of these, so a method
// call on one is caught where the value is obtained.
func clientUses(fset *token.FileSet, f *ast.File) []string {
	pkgs := map[string]string{} // local name → import path
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Client" {
			return true
		}
		pos := fset.Position(sel.Pos())
		where := fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
		if id, ok := sel.X.(*ast.Ident); ok {
			if p, isPkg := pkgs[id.Name]; isPkg {
				if p == "pixdash/api" {
					out = append(out, where+": mentions api.Client")
				}
				return true
			}
		}
		out = append(out, where+": selects "+exprString(sel))
		return true
	})
	return out
}

// exprString prints a selector chain (m.app.sess.Client); other expressions print as "(…)".
func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.CallExpr:
		return exprString(x.Fun) + "()"
	case *ast.ParenExpr:
		return "(" + exprString(x.X) + ")"
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	}
	return "(…)"
}
