// Package layering holds no code: its test checks every Go file of the
// module against the table of allowed imports in layering_test.go, the
// layering each package's doc comment describes.
//
// Nothing imports it.
package layering
