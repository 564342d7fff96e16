package common

// Minimum terminal size; below it the dashboard asks for a larger window.
const (
	MinWidth  = 80
	MinHeight = 24
)
