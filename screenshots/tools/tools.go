//go:build tools

// Package tools pins freeze, which `make screenshots` builds to turn the dashboard's ANSI frames into PNGs.
// It is a module of its own so the dashboard's go.mod does not depend on it; building it by module
// version also avoids the version-list lookup that `go install pkg@version` makes.
package tools

import _ "github.com/charmbracelet/freeze"
