// Package textpos owns positions in a text and their units: a byte offset
// (ByteOffset), and a line with a column counted in Unicode characters
// (RunePos: what `restls check` prints and config.Position holds) or in
// UTF-16 code units (UTF16Pos, what the Language Server Protocol speaks).
// Lines and columns are 1-based in every type here. A
// Mapper converts between them for one text, with one rule for line
// breaks ("\n", "\r\n" and a lone "\r", as the LSP specification says)
// and one rule for a byte order mark that starts a file read from disk
// (NewFile: it takes no column, as editors drop it).
//
// Every package that turns an offset into a line and column, or back, goes
// through a Mapper; none counts lines or columns itself.
//
// textpos imports only the standard library: never another restls
// package. Every package may import it.
package textpos
