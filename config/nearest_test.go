package config

// editDistance is distance for two plain strings; FuzzEditDistance checks
// distance through it against the full table.
func editDistance(a, b string, limit int) int {
	var buf distBuf
	return buf.distance([]rune(lower(a)), b, limit)
}
