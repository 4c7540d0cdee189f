package form

// Planned reports whether Body encodes v from a plan (for the external
// tests).
func Planned(v any) bool {
	_, _, ok := planOf(v)
	return ok
}
